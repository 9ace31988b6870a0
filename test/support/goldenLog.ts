import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { assertMatchesOpenApi } from './openApi.js';
import { tempDir } from './tempStore.js';

/** test/fixtures/logs, found from dist/test/support. */
export const GOLDEN_LOGS_DIR = fileURLToPath(new URL('../../../test/fixtures/logs/', import.meta.url));

/** One recorded answer of a release (responses.json). */
export interface GoldenResponse {
  readonly request: { readonly method: string; readonly path: string; readonly credential: string };
  readonly status: number;
  readonly body: unknown;
}

export interface GoldenLog {
  /** The release's short commit (the folder's name). */
  readonly release: string;
  readonly folder: string;
  readonly credentials: Record<string, any>;
  readonly responses: readonly GoldenResponse[];
}

/** Every committed golden log (a folder of test/fixtures/logs with a chronicle.sqlite), oldest release first as listed. */
export const goldenLogReleases = (): string[] =>
  readdirSync(GOLDEN_LOGS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(GOLDEN_LOGS_DIR, entry.name, 'chronicle.sqlite')))
    .map((entry) => entry.name)
    .sort();

export const loadGoldenLog = (release: string): GoldenLog => {
  const folder = join(GOLDEN_LOGS_DIR, release);
  const read = (file: string): any => JSON.parse(readFileSync(join(folder, file), 'utf8'));
  return { release, folder, credentials: read('credentials.json'), responses: read('responses.json') };
};

/** How long today's server may take to start on a golden log (they are small: it takes well under a second). */
const START_TIMEOUT_MS = 20_000;

export interface GoldenServer {
  readonly chronicle: Chronicle;
  readonly dataDir: string;
  /** Everything the server logged. */
  readonly logs: () => string;
  request(method: string, path: string, key: string | null): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/**
 * Today's Chronicle on a copy of a release's golden log (the committed file is
 * never opened: a server migrates and turns it to WAL), embedded storage in a
 * temporary DATA_DIR, on 127.0.0.1. Webhook targets of the release (a receiver
 * that is gone) are refused as private addresses, so nothing is sent.
 */
export const startOnGoldenLog = async (log: GoldenLog, env: NodeJS.ProcessEnv = {}): Promise<GoldenServer> => {
  const dir = tempDir(`chronicle-golden-${log.release}-`);
  copyFileSync(join(log.folder, 'chronicle.sqlite'), embeddedDatabaseFile(dir.path));
  const logStream = new PassThrough();
  let logs = '';
  logStream.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', ...env });
  let chronicle: Chronicle;
  let timer: NodeJS.Timeout | undefined;
  try {
    // Bounded: a server that cannot read the log must fail here, not hang the suite.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`today's server did not start on the golden log of ${log.release} within ${START_TIMEOUT_MS} ms; its log ends:\n${logs.slice(-3000)}`)),
        START_TIMEOUT_MS,
      );
    });
    chronicle = await Promise.race([startChronicle(config, createLogger('info', logStream)), late]);
  } catch (error) {
    dir.dispose();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const baseUrl = `http://127.0.0.1:${chronicle.port}${config.basePath}`;
  return {
    chronicle,
    dataDir: dir.path,
    logs: () => logs,
    async request(method, path, key) {
      const response = await fetch(`${baseUrl}${path}`, { method, headers: key === null ? {} : { Authorization: `Bearer ${key}` } });
      const text = await response.text();
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      assertMatchesOpenApi({ method, path: path.split('?')[0]!, status: response.status, body, headers: response.headers });
      return { status: response.status, body };
    },
    async close() {
      await chronicle.close({ timeoutMs: 5000 });
      dir.dispose();
    },
  };
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The version a history item's `data` is shown in. */
const SHOWN_VERSION = /^\$\.data\[\d+\]\.schema\.version$/;

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Where today's answer fails to show what the release showed, as `path: what`
 * lines (empty: it shows it). The rules:
 *
 * - the status is the same;
 * - every field the release answered is there with an equal value, recursively;
 *   a field the release did not answer may be added (the API grows: e.g. a history
 *   item's `schema`); arrays keep their length and order;
 * - the time of the request is not compared, only its format: `data.timestamp`
 *   of `GET /test` and the `timestamp` of an error body (`success: false`);
 * - a history item's `schema.version`, the version its `data` is shown in (its
 *   type's current one), may be higher: a newer version of the type was added, and
 *   `data` is upcast to it (the recorded fields must still be there, equal);
 * - the feed's `meta.types` (`GET /events`: every type the page covers) may gain
 *   the webhook event types added since, the recorded ones kept in their order.
 */
export const goldenDifferences = (recorded: GoldenResponse, actual: { status: number; body: unknown }): string[] => {
  const differences: string[] = [];
  if (actual.status !== recorded.status) differences.push(`status: recorded ${recorded.status}, now ${actual.status}`);
  const volatile = new Set<string>();
  if (recorded.request.path.split('?')[0] === '/test' && recorded.status === 200) volatile.add('$.data.timestamp');
  if (isObject(recorded.body) && recorded.body.success === false) volatile.add('$.timestamp');

  const feed = recorded.request.path.split('?')[0] === '/events';
  const compare = (path: string, then: unknown, now: unknown): void => {
    if (SHOWN_VERSION.test(path) && typeof then === 'number' && typeof now === 'number' && now >= then) return;
    if (feed && path === '$.meta.types' && Array.isArray(then) && Array.isArray(now)) {
      const kept = now.filter((type) => then.includes(type));
      if (JSON.stringify(kept) !== JSON.stringify(then)) differences.push(`${path}: recorded ${JSON.stringify(then)}, now ${JSON.stringify(now)}`);
      return;
    }
    if (volatile.has(path)) {
      if (typeof now !== 'string' || !ISO_INSTANT.test(now)) differences.push(`${path}: expected an ISO 8601 instant, now ${JSON.stringify(now)}`);
      return;
    }
    if (Array.isArray(then)) {
      if (!Array.isArray(now)) return void differences.push(`${path}: recorded an array, now ${JSON.stringify(now)}`);
      if (now.length !== then.length) differences.push(`${path}: recorded ${then.length} items, now ${now.length}`);
      then.forEach((item, i) => i < now.length && compare(`${path}[${i}]`, item, now[i]));
      return;
    }
    if (isObject(then)) {
      if (!isObject(now)) return void differences.push(`${path}: recorded an object, now ${JSON.stringify(now)}`);
      for (const [field, value] of Object.entries(then)) {
        if (!(field in now)) differences.push(`${path}.${field}: recorded ${JSON.stringify(value)}, now missing`);
        else compare(`${path}.${field}`, value, now[field]);
      }
      return;
    }
    if (then !== now) differences.push(`${path}: recorded ${JSON.stringify(then)}, now ${JSON.stringify(now)}`);
  };
  compare('$', recorded.body, actual.body);
  return differences;
};
