import { PassThrough } from 'node:stream';
import * as E from 'fp-ts/lib/Either.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { startChronicle, type Chronicle, type ChronicleDeps, type ServerTimeouts } from '../../src/startup/startChronicle.js';
import { handleCommand } from '../../src/application/commands/handleCommand.js';
import { issueApiKey } from '../../src/features/apiKeys/application/issueApiKey.js';
import { revokeApiKey } from '../../src/features/apiKeys/application/revokeApiKey.js';
import { issueAdminToken } from '../../src/features/adminTokens/application/issueAdminToken.js';
import { revokeAdminToken } from '../../src/features/adminTokens/application/revokeAdminToken.js';
import { AdminTokenName } from '../../src/features/adminTokens/domain/AdminTokenName.js';
import { companyDecider } from '../../src/features/companies/domain/companyDecider.js';
import { CompanyEvent, companyStream } from '../../src/features/companies/domain/companyEvents.js';
import { CompanyName } from '../../src/features/companies/domain/CompanyName.js';
import { newId } from '../../src/shared/ids.js';
import { userDecider } from '../../src/features/users/domain/userDecider.js';
import { UserEvent, userStream } from '../../src/features/users/domain/userEvents.js';
import { UserName } from '../../src/features/users/domain/UserName.js';
import { Email } from '../../src/features/users/domain/Email.js';
import { SPECIFICATION_PERMISSIONS, type Permission } from '../../src/shared/permissions.js';
import { assertMatchesOpenApi } from './openApi.js';
import { tempDir } from './tempStore.js';
import { sqliteOf } from './sqliteOf.js';
import { systemClock } from '../../src/shared/Clock.js';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
}

/** The `X-Log-Position` a write answered with (a test fails without one). */
export const positionOf = (res: ApiResponse): string => {
  const position = res.headers.get('x-log-position');
  if (position === null) throw new Error(`no X-Log-Position (status ${res.status})`);
  return position;
};

/** Requests made with one API key. */
export const withKey = (api: Pick<Harness, 'request'>, key: string) => ({
  get: (path: string) => api.request('GET', path, { key }),
  post: (path: string, body: unknown) => api.request('POST', path, { key, body }),
  put: (path: string, body: unknown) => api.request('PUT', path, { key, body }),
});

export interface RequestOptions {
  readonly key?: string | null;
  readonly body?: unknown;
  /** Sent as is (with `contentType`), instead of JSON. */
  readonly rawBody?: string;
  readonly contentType?: string | null;
  readonly headers?: Record<string, string>;
}

export interface Harness {
  readonly baseUrl: string;
  /** The DATA_DIR of this Chronicle (removed by `close`). */
  readonly dataDir: string;
  readonly chronicle: Chronicle;
  readonly companyId: string;
  /** The demo key: the seven permissions of the specification (not contacts:erase). */
  readonly key: string;
  /** Everything the server logged, as one string (to look for secrets). */
  readonly logs: () => string;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  newCompany(name?: string): Promise<{ companyId: string; key: string; keyId: string }>;
  issueKey(companyId: string, permissions: readonly Permission[], expiresAt?: Date | null): Promise<{ key: string; keyId: string }>;
  revokeKey(keyId: string): Promise<void>;
  /** A new admin token (as `chronicle admin-tokens create` makes one), applied to the read models. */
  issueAdminToken(name?: string): Promise<{ token: string; tokenId: string }>;
  revokeAdminToken(tokenId: string): Promise<void>;
  createUser(companyId: string, name: string, email: string): Promise<string>;
  /**
   * Test-only: caps the embedded SQLite file at its current size plus `extraPages`
   * pages (SQLite's `PRAGMA max_page_count`: a write that needs a page beyond it
   * fails with SQLITE_FULL, as on a full disk), or lifts the cap (`null`).
   */
  limitStorage(extraPages: number | null): void;
  close(): Promise<void>;
}

/**
 * A whole Chronicle (embedded storage in a temporary folder) on 127.0.0.1, with a
 * client that checks every response against the OpenAPI document.
 */
export const startHarness = async (env: NodeJS.ProcessEnv = {}, timeouts?: ServerTimeouts, deps?: ChronicleDeps): Promise<Harness> => {
  const dir = tempDir('chronicle-http-');
  const logStream = new PassThrough();
  let logs = '';
  logStream.on('data', (chunk: Buffer) => (logs += chunk.toString()));
  const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', ...env });
  const chronicle = await startChronicle(config, createLogger('debug', logStream), timeouts, deps);
  if (!chronicle.demo || chronicle.port === null) throw new Error('expected a demo key on an empty store');
  const baseUrl = `http://127.0.0.1:${chronicle.port}${config.basePath}`;
  const { eventStore } = chronicle.stores;
  const runner = chronicle.projections!;
  const settle = async (position: string | null) => {
    if (position !== null && !(await runner.waitFor(position, 5000))) throw new Error('projection did not catch up');
  };

  const issueKey: Harness['issueKey'] = async (companyId, permissions, expiresAt = null) => {
    const issued = await issueApiKey(
      { eventStore, newId, clock: systemClock },
      { companyId, type: 'generic', permissions, expiresAt, metadata: { source: 'cli', correlationId: newId() } },
    );
    if (E.isLeft(issued)) throw new Error(JSON.stringify(issued.left));
    await settle(issued.right.position);
    return { key: issued.right.key, keyId: issued.right.keyId };
  };

  return {
    baseUrl,
    dataDir: dir.path,
    chronicle,
    companyId: chronicle.demo.companyId,
    key: chronicle.demo.key,
    logs: () => logs,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? chronicle.demo!.key : options.key;
      if (key !== null) headers.Authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (options.rawBody !== undefined) body = options.rawBody;
      else if (options.body !== undefined) body = JSON.stringify(options.body);
      const contentType = options.contentType === undefined ? (body !== undefined ? 'application/json' : null) : options.contentType;
      if (contentType !== null) headers['Content-Type'] = contentType;
      const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      const parsed = text === '' ? undefined : JSON.parse(text);
      assertMatchesOpenApi({
        method,
        path: path.split('?')[0]!,
        status: response.status,
        body: parsed,
        headers: response.headers,
      });
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async newCompany(name = 'Other company') {
      const companyId = newId();
      const decodedName = CompanyName.decode(name);
      if (E.isLeft(decodedName)) throw new Error('bad company name');
      const created = await handleCommand(
        { eventStore, newId: newId },
        {
          decider: companyDecider,
          eventCodec: CompanyEvent,
          stream: companyStream(companyId),
          command: { type: 'CreateCompany', companyId, name: decodedName.right, at: new Date() },
          metadata: { source: 'cli', correlationId: newId(), companyId },
        },
      );
      if (E.isLeft(created)) throw new Error('company not created');
      return { companyId, ...(await issueKey(companyId, SPECIFICATION_PERMISSIONS)) };
    },
    issueKey,
    async createUser(companyId, name, email) {
      const userId = newId();
      const [decodedName, decodedEmail] = [UserName.decode(name), Email.decode(email)];
      if (E.isLeft(decodedName) || E.isLeft(decodedEmail)) throw new Error('bad user');
      const created = await handleCommand(
        { eventStore, newId: newId },
        {
          decider: userDecider,
          eventCodec: UserEvent,
          stream: userStream(userId),
          command: { type: 'CreateUser', userId, companyId, name: decodedName.right, email: decodedEmail.right, at: new Date() },
          metadata: { source: 'cli', correlationId: newId(), companyId },
        },
      );
      if (E.isLeft(created)) throw new Error('user not created');
      await settle(created.right.position);
      return userId;
    },
    async revokeKey(keyId) {
      const revoked = await revokeApiKey({ eventStore, newId, clock: systemClock }, { keyId, metadata: { source: 'cli', correlationId: newId() } });
      if (E.isLeft(revoked)) throw new Error(JSON.stringify(revoked.left));
      await settle(revoked.right.position);
    },
    async issueAdminToken(name = 'platform backend') {
      const decoded = AdminTokenName.decode(name);
      if (E.isLeft(decoded)) throw new Error('bad admin token name');
      const issued = await issueAdminToken({ eventStore, newId, clock: systemClock }, { name: decoded.right, metadata: { source: 'cli', correlationId: newId() } });
      if (E.isLeft(issued)) throw new Error(JSON.stringify(issued.left));
      await settle(issued.right.position);
      return { token: issued.right.token, tokenId: issued.right.tokenId };
    },
    async revokeAdminToken(tokenId) {
      const revoked = await revokeAdminToken(
        { eventStore, newId, clock: systemClock, sessions: chronicle.stores.consoleSessions },
        { tokenId, metadata: { source: 'cli', correlationId: newId() } },
      );
      if (E.isLeft(revoked)) throw new Error(JSON.stringify(revoked.left));
      await settle(revoked.right.position);
    },
    limitStorage(extraPages) {
      const log = sqliteOf(eventStore);
      const pages = extraPages === null ? 4_294_967_294 : (log.db.pragma('page_count', { simple: true }) as number) + extraPages;
      log.db.pragma(`max_page_count = ${pages}`);
    },
    async close() {
      await chronicle.close();
      dir.dispose();
    },
  };
};
