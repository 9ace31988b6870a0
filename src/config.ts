import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { relative, resolve } from 'node:path';
import { SecretKey } from './shared/SecretKey.js';
// The stores' clients judge their own connection strings (each loads its client only when asked).
import { eventStoreDbUrlProblem } from './adapters/eventstoredb/eventStoreDbUrl.js';
import { mongoDbUrlProblem } from './adapters/mongodb/mongoDbUrl.js';

/** An integer within bounds, read from an environment string. */
const intFromString = (name: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  new t.Type<number, string, unknown>(
    name,
    (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= min && u <= max,
    (u, c) => {
      const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
      const n = typeof u === 'string' && /^\s*\d+\s*$/.test(u) ? Number(u) : NaN;
      return Number.isSafeInteger(n) && n >= min && n <= max
        ? t.success(n)
        : t.failure(u, c, `must be a whole number ${range}`);
    },
    String,
  );

const booleanFromString = new t.Type<boolean, string, unknown>(
  'boolean',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => {
    const v = typeof u === 'string' ? u.trim().toLowerCase() : u;
    if (v === 'true' || v === '1' || v === 'yes') return t.success(true);
    if (v === 'false' || v === '0' || v === 'no') return t.success(false);
    return t.failure(u, c, 'must be true or false');
  },
  String,
);

const delaysFromString = new t.Type<number[], string, unknown>(
  'delays',
  (u): u is number[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a comma-separated list of milliseconds');
    const parts = u.split(',').map((p) => p.trim());
    if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) {
      return t.failure(u, c, 'must be a comma-separated list of milliseconds, e.g. 5000,30000,120000');
    }
    return t.success(parts.map(Number));
  },
  (a) => a.join(','),
);

/**
 * A store's connection string, checked by the store's own client (`problem`: why
 * the client refuses it, or null), so that whatever the client takes is taken:
 * host lists of clusters and replica sets, DNS seed lists, every option.
 */
const connectionString = (name: string, problem: (url: string) => string | null) =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string',
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c, 'must be a connection string');
      const refused = problem(u);
      return refused === null ? t.success(u) : t.failure(u, c, `is refused by the ${name} client: ${refused}`);
    },
    String,
  );

/** The password of a connection string (`scheme://user:password@…`), or null. */
const passwordOf = (url: string): string | null => /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^:@/?#]*:([^@/?#]+)@/.exec(url)?.[1] ?? null;

/** `text` without the password of `url` (a refused connection string is shown, its password never). */
const withoutPassword = (text: string, url: string): string => {
  const password = passwordOf(url);
  return password === null ? text : text.split(password).join('***');
};

/** A URL with one of `schemes` (PostgreSQL's connection URL). */
const urlWithScheme = (name: string, schemes: readonly string[]) =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string',
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c, 'must be a URL');
      try {
        const url = new URL(u);
        if (schemes.includes(url.protocol)) return t.success(u);
      } catch {
        // fall through
      }
      return t.failure(u, c, `must be a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}`);
    },
    String,
  );

const basePath = new t.Type<string, string, unknown>(
  'basePath',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && /^(\/[A-Za-z0-9._~-]+)+$/.test(u)
      ? t.success(u)
      : t.failure(u, c, 'must be a path such as /api/external (a leading slash, no trailing slash)'),
  String,
);

/** A bearer token (RFC 6750 `b64token` characters), long enough not to be guessed. */
const bearerToken = new t.Type<string, string, unknown>(
  'token',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && /^[A-Za-z0-9._~+/-]{16,}=*$/.test(u)
      ? t.success(u)
      : t.failure(u, c, 'must be at least 16 characters of A-Z a-z 0-9 . _ ~ + / - (e.g. `openssl rand -hex 32`)'),
  String,
);

/** An address to listen on: an IPv4 or IPv6 literal, or a host name of this machine. */
const listenHost = new t.Type<string, string, unknown>(
  'host',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && (isIP(u) !== 0 || /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(u))
      ? t.success(u)
      : t.failure(u, c, 'must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name of this machine'),
  String,
);

/** A 256-bit key written in hex or base64 (SECRETS_KEY). */
const secretKey = new t.Type<SecretKey, string, unknown>(
  'secretKey',
  (u): u is SecretKey => u instanceof SecretKey,
  (u, c) => {
    const key = typeof u === 'string' ? SecretKey.fromText(u) : E.left('must be a key');
    return E.isRight(key) ? t.success(key.right) : t.failure(u, c, key.left);
  },
  String,
);

/** A file holding a key as SECRETS_KEY takes it (SECRETS_KEY_FILE): read when the configuration is decoded. */
const secretKeyFile = new t.Type<SecretKey, string, unknown>(
  'secretKeyFile',
  (u): u is SecretKey => u instanceof SecretKey,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a file path');
    let text: string;
    try {
      text = readFileSync(u, 'utf8');
    } catch (error) {
      return t.failure(u, c, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    const key = SecretKey.fromText(text);
    return E.isRight(key) ? t.success(key.right) : t.failure(u, c, `holds no valid key: it ${key.left}`);
  },
  String,
);

/** Keys of earlier rotations, comma-separated (SECRETS_KEY_PREVIOUS). */
const secretKeyList = new t.Type<readonly SecretKey[], string, unknown>(
  'secretKeys',
  (u): u is readonly SecretKey[] => Array.isArray(u),
  (u, c) => {
    const keys = typeof u === 'string' ? u.split(',').map((part) => SecretKey.fromText(part)) : [];
    const bad = keys.findIndex(E.isLeft);
    if (keys.length === 0 || bad >= 0) {
      const which = bad >= 0 ? `key ${bad + 1} of the list ` : '';
      return t.failure(u, c, `${which}must be 32 bytes written as 64 hex digits or in base64, keys separated by commas`);
    }
    return t.success(keys.map((key) => (key as E.Right<SecretKey>).right));
  },
  (keys) => keys.map(String).join(','),
);

/**
 * CONSOLE_FRAME_ANCESTORS: who may frame the console, as CSP `frame-ancestors` sources separated by spaces:
 * `'none'` alone, or any of `'self'` and origins (`https://dashboard.example.com`, `https://*.example.com:8443`).
 * The keywords may be written without their quotes (a `.env` file drops them): `none`, `self`.
 */
const frameAncestors = new t.Type<readonly string[], string, unknown>(
  'frameAncestors',
  (u): u is readonly string[] => Array.isArray(u),
  (u, c) => {
    const keyword = (source: string) => (source === 'none' || source === 'self' ? `'${source}'` : source);
    const sources = typeof u === 'string' ? u.trim().split(/\s+/).map(keyword) : [];
    const origin = /^https?:\/\/(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/;
    const valid = sources.every((source) => source === "'self'" || origin.test(source));
    if (sources.length === 1 && sources[0] === "'none'") return t.success(sources);
    return sources.length > 0 && sources[0] !== '' && valid
      ? t.success(sources)
      : t.failure(u, c, "must be 'none', or 'self' and origins such as https://dashboard.example.com, separated by spaces");
  },
  (sources) => sources.join(' '),
);

/** Where embedded read models live: their SQLite file (the default) or this process's memory. */
const readModelsKind = t.keyof({ sqlite: null, memory: null });

const logLevel = t.keyof({ fatal: null, error: null, warn: null, info: null, debug: null, trace: null, silent: null });
const logFormat = t.keyof({ auto: null, json: null, pretty: null });

const nonEmpty = new t.Type<string, string, unknown>(
  'string',
  (u): u is string => typeof u === 'string' && u.length > 0,
  (u, c) => (typeof u === 'string' && u.length > 0 ? t.success(u) : t.failure(u, c, 'must not be empty')),
  String,
);

/** Every variable, its codec and its default (as the string an operator would write). */
const variables = {
  PORT: { codec: intFromString('port', 0, 65535), default: '3000' },
  HOST: { codec: listenHost, default: '127.0.0.1' },
  DATA_DIR: { codec: nonEmpty, default: './data' },
  EVENTSTORE_URL: { codec: connectionString('EventStoreDB', eventStoreDbUrlProblem), default: undefined },
  MONGODB_URL: { codec: connectionString('MongoDB', mongoDbUrlProblem), default: undefined },
  MONGODB_DB: { codec: nonEmpty, default: 'chronicle' },
  POSTGRES_URL: { codec: urlWithScheme('PostgreSQL URL', ['postgres:', 'postgresql:']), default: undefined },
  POSTGRES_POOL_SIZE: { codec: intFromString('connections', 1, 1000), default: '10' },
  POSTGRES_READ_URL: { codec: urlWithScheme('PostgreSQL URL', ['postgres:', 'postgresql:']), default: undefined },
  POSTGRES_READ_FALLBACK_MS: { codec: intFromString('milliseconds', 0, 60_000), default: '500' },
  RATE_LIMIT_HOURLY: { codec: intFromString('limit', 1), default: '1000' },
  RATE_LIMIT_DAILY: { codec: intFromString('limit', 1), default: '10000' },
  RATE_LIMIT_CONCURRENT: { codec: intFromString('limit', 1), default: '10' },
  RATE_LIMIT_COUNT_BATCH: { codec: intFromString('requests', 1, 1000), default: '20' },
  ADMIN_RATE_LIMIT_HOURLY: { codec: intFromString('limit', 1), default: '3600' },
  ADMIN_RATE_LIMIT_DAILY: { codec: intFromString('limit', 1), default: '50000' },
  ADMIN_RATE_LIMIT_CONCURRENT: { codec: intFromString('limit', 1), default: '10' },
  WEBHOOK_TIMEOUT_MS: { codec: intFromString('milliseconds', 1), default: '30000' },
  WEBHOOK_RETRY_DELAYS_MS: { codec: delaysFromString, default: '5000,30000,120000' },
  WEBHOOK_ALLOW_PRIVATE_TARGETS: { codec: booleanFromString, default: 'false' },
  WEBHOOK_LOG_RETENTION_DAYS: { codec: intFromString('days', 1, 36_500), default: '30' },
  WEBHOOK_MAX_IN_FLIGHT: { codec: intFromString('count', 1, 4096), default: '64' },
  WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY: { codec: intFromString('count', 1, 4096), default: '16' },
  WEBHOOK_DELIVERY_THREAD: { codec: booleanFromString, default: 'true' },
  WEBHOOK_DELIVERY_THREADS: { codec: intFromString('count', 1, 16), default: '2' },
  WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY: { codec: intFromString('count', 1, 100_000), default: '100' },
  // 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, then every 6 h.
  WEBHOOK_PAUSE_DELAYS_MS: { codec: delaysFromString, default: '60000,300000,1800000,3600000,7200000,14400000,21600000' },
  // 5 days.
  WEBHOOK_DISABLE_AFTER_MS: { codec: intFromString('milliseconds', 1), default: '432000000' },
  DELETED_RECORDS_RETENTION_DAYS: { codec: intFromString('days', 1, 36_500), default: '30' },
  ERASURE_JOURNAL: { codec: nonEmpty, default: undefined },
  // Ten minutes; at most a day.
  DELETED_RECORDS_SWEEP_SECONDS: { codec: intFromString('seconds', 1, 86_400), default: '600' },
  DELETED_COMPANIES_RETENTION_DAYS: { codec: intFromString('days', 1, 36_500), default: '30' },
  LOG_LEVEL: { codec: logLevel, default: 'info' },
  LOG_FORMAT: { codec: logFormat, default: 'auto' },
  BASE_PATH: { codec: basePath, default: undefined },
  TLS_CERT_FILE: { codec: nonEmpty, default: undefined },
  TLS_KEY_FILE: { codec: nonEmpty, default: undefined },
  TRUST_PROXY: { codec: booleanFromString, default: 'false' },
  // One year; at most two (browsers cap it at about one anyway).
  HSTS_MAX_AGE_SECONDS: { codec: intFromString('seconds', 0, 63_072_000), default: '31536000' },
  HSTS_INCLUDE_SUBDOMAINS: { codec: booleanFromString, default: 'false' },
  RUN_API: { codec: booleanFromString, default: 'true' },
  RUN_PROJECTIONS: { codec: booleanFromString, default: 'true' },
  RUN_WEBHOOKS: { codec: booleanFromString, default: 'true' },
  API_WORKERS: { codec: intFromString('count', 1, 256), default: '1' },
  READ_MODELS: { codec: readModelsKind, default: 'sqlite' },
  READ_MODEL_THREAD: { codec: booleanFromString, default: 'true' },
  BACKGROUND_PORT: { codec: intFromString('port', 0, 65535), default: undefined },
  READ_YOUR_WRITES_TIMEOUT_MS: { codec: intFromString('milliseconds', 0, 60_000), default: '5000' },
  READY_MAX_LAG_MS: { codec: intFromString('milliseconds', 0), default: '5000' },
  METRICS_TOKEN: { codec: bearerToken, default: undefined },
  SHUTDOWN_TIMEOUT_MS: { codec: intFromString('milliseconds', 100, 600_000), default: '10000' },
  SECRETS_KEY: { codec: secretKey, default: undefined },
  SECRETS_KEY_FILE: { codec: secretKeyFile, default: undefined },
  SECRETS_KEY_PREVIOUS: { codec: secretKeyList, default: undefined },
  CONSOLE_PUBLIC_URL: { codec: urlWithScheme('URL', ['https:', 'http:']), default: undefined },
  CONSOLE_FRAME_ANCESTORS: { codec: frameAncestors, default: 'none' },
  CONSOLE_SESSION_IDLE_SECONDS: { codec: intFromString('seconds', 1, 86_400), default: '1800' },
  CONSOLE_SESSION_MAX_SECONDS: { codec: intFromString('seconds', 1, 604_800), default: '28800' },
  FAILED_CREDENTIALS_LIMIT: { codec: intFromString('count', 0, 1_000_000), default: '100' },
  FAILED_CREDENTIALS_WINDOW_SECONDS: { codec: intFromString('seconds', 1, 86_400), default: '60' },
} as const;

/** Variables whose value is a secret: a problem with one never shows the value. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set(['METRICS_TOKEN', 'SECRETS_KEY', 'SECRETS_KEY_PREVIOUS', 'POSTGRES_URL', 'POSTGRES_READ_URL']);
/** Connection strings: a problem with one shows it without its password. */
const CONNECTION_VARIABLES: ReadonlySet<string> = new Set(['EVENTSTORE_URL', 'MONGODB_URL']);

type Variables = typeof variables;
type Decoded<K extends keyof Variables> = t.TypeOf<Variables[K]['codec']>;
type RawConfig = {
  [K in keyof Variables]: Variables[K]['default'] extends string ? Decoded<K> : Decoded<K> | undefined;
};

export interface Config {
  /** The HTTP port (0: a free one); null: listen on none (API_WORKERS' background process without BACKGROUND_PORT). */
  readonly port: number | null;
  /**
   * The address to listen on: loopback by default (a first start prints a key with every permission, so
   * nothing else should reach it until the operator says so); `0.0.0.0` or `::` for every interface (the
   * Dockerfile and docker-compose.yml set it).
   */
  readonly host: string;
  readonly dataDir: string;
  readonly eventStoreUrl: string | undefined;
  readonly mongoUrl: string | undefined;
  readonly mongoDb: string;
  /** Every store (log, read models, outbox, leases, counters, keys, secrets) in this PostgreSQL database. A secret (its password): never logged. */
  readonly postgresUrl: string | undefined;
  /** Connections each process opens to PostgreSQL at most, shared by all its stores (one more listens for the log's commits). */
  readonly postgresPoolSize: number;
  /** A streaming replica of POSTGRES_URL's database, for API processes' reads of the read models (POSTGRES_READ_URL). */
  readonly postgresReadUrl: string | undefined;
  /** How long a read waits for the replica to show a position before it reads from the primary (POSTGRES_READ_FALLBACK_MS). */
  readonly postgresReadFallbackMs: number;
  /** Per API key, on the customer API. */
  readonly rateLimit: { readonly hourly: number; readonly daily: number; readonly concurrent: number };
  /**
   * On PostgreSQL: requests a process counts in memory before adding them to the shared
   * counts (the windows may let through at most processes × this over a limit; 1: exact).
   */
  readonly rateLimitCountBatch: number;
  /** Per admin token, on the admin API (`/admin`): counted apart from every API key. */
  readonly adminRateLimit: { readonly hourly: number; readonly daily: number; readonly concurrent: number };
  readonly webhooks: {
    readonly timeoutMs: number;
    readonly retryDelaysMs: readonly number[];
    readonly allowPrivateTargets: boolean;
    /** Delivered and failed outbox rows are pruned this many days after they became final. */
    readonly logRetentionDays: number;
    /** Delivery attempts in flight at once (each to a different subscription). */
    readonly maxInFlight: number;
    /** Of which at most this many to the subscriptions of one company. */
    readonly maxInFlightPerCompany: number;
    /** The HTTP attempts on a thread of their own (`deliveryThread`) rather than on the event loop. */
    readonly deliveryThread: boolean;
    /** How many such threads, each turn on the one with the fewest (`deliveryThread`). */
    readonly deliveryThreads: number;
    /** Subscriptions (not unsubscribed) one company may have. */
    readonly maxSubscriptionsPerCompany: number;
    /** How long each successive hold of a paused subscription lasts (the last one repeats). */
    readonly pauseDelaysMs: readonly number[];
    /** A receiver failing every attempt for this long is disabled. */
    readonly disableAfterMs: number;
  };
  /** A deleted contact or deal can be restored for this many days. */
  readonly deletedRecordsRetentionDays: number;
  /**
   * The erasure journal's file (ERASURE_JOURNAL), outside DATA_DIR: every erasure is written down
   * there, and re-applied at start (a backup restored since); undefined: no journal.
   */
  readonly erasureJournal: string | undefined;
  /** How often the projector erases the deleted contacts whose restore period has ended, and the deleted companies whose waiting period has. */
  readonly deletedRecordsSweepSeconds: number;
  /** A deleted company is erased this many days after its deletion was asked for (unless erased at once, or cancelled). */
  readonly deletedCompaniesRetentionDays: number;
  readonly logLevel: t.TypeOf<typeof logLevel>;
  /** JSON lines (`json`), readable lines (`pretty`), or readable on a terminal and JSON otherwise (`auto`). */
  readonly logFormat: t.TypeOf<typeof logFormat>;
  readonly basePath: string;
  readonly tls: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly trustProxy: boolean;
  /**
   * `Strict-Transport-Security` on every response served over TLS (TLS_CERT_FILE, or a proxy's
   * `X-Forwarded-Proto: https` with TRUST_PROXY), never over plain HTTP: `max-age` in seconds (0: no
   * header at all), and `includeSubDomains` only when asked (Chronicle cannot know its domain's other hosts).
   */
  readonly hsts: { readonly maxAgeSeconds: number; readonly includeSubDomains: boolean };
  readonly roles: { readonly api: boolean; readonly projections: boolean; readonly webhooks: boolean };
  /**
   * API worker processes `chronicle serve` forks on this machine (node:cluster, sharing PORT); above 1 the
   * projections and the webhooks run in one more process of their own. 1: everything in this process.
   */
  readonly apiWorkers: number;
  /**
   * Embedded read models: `sqlite` (DATA_DIR/read-models.sqlite, kept across restarts,
   * shared by the processes on DATA_DIR) or `memory` (built from the whole log at every
   * start, for one process; for tests and comparisons).
   */
  readonly readModels: 'sqlite' | 'memory';
  /**
   * SQLite read models kept by a process that also serves the API: the projector's
   * batches applied on a worker thread of their own (`ThreadedReadModelStore`) rather
   * than on the event loop.
   */
  readonly readModelThread: boolean;
  /**
   * With API_WORKERS above 1: the port on which the projections-and-webhooks process serves /health, /ready
   * and /metrics; undefined: that process listens on no port (the supervisor hears from it over IPC).
   */
  readonly backgroundPort: number | undefined;
  /** Bounded wait of a write for its own read models (read-your-writes). */
  readonly readYourWritesTimeoutMs: number;
  /** `/ready` fails when the read models this process serves are further behind the log than this. */
  readonly readyMaxLagMs: number;
  /** When set, `/metrics` needs `Authorization: Bearer <token>`. A secret: never logged. */
  readonly metricsToken: string | undefined;
  /** One bound on the whole graceful shutdown (SIGTERM, SIGINT). */
  readonly shutdownTimeoutMs: number;
  /**
   * Keys of webhook signing secrets at rest: `key` (SECRETS_KEY or SECRETS_KEY_FILE) encrypts,
   * `previousKeys` (SECRETS_KEY_PREVIOUS) only decrypt what earlier keys encrypted. No key:
   * secrets are kept in the clear. Secrets: never logged (they print as their id).
   */
  readonly secrets: { readonly key: SecretKey | undefined; readonly previousKeys: readonly SecretKey[] };
  readonly console: {
    /**
     * The scheme, host and port customers reach Chronicle at (`https://api.example.com`): console links
     * start with it, then BASE_PATH. Unset: the admin API answers with the origin its request came to
     * (through TRUST_PROXY's headers), the CLI with this process's own address.
     */
    readonly publicUrl: string | undefined;
    /** CSP `frame-ancestors` of every console page: `'none'` (the default) or the platform's origins that embed it. */
    readonly frameAncestors: readonly string[];
    /** A session ends after `idleMs` without a request, and `maxMs` after it opened, whatever happens. */
    readonly session: { readonly idleMs: number; readonly maxMs: number };
  };
  /**
   * Failed credentials (API keys, admin tokens, console links and session cookies) one client address may
   * present in a window, in each API process, before it is answered 429 (`limit` 0: never).
   */
  readonly failedCredentials: { readonly limit: number; readonly windowMs: number };
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** The variables and defaults, for `.env.example` checks and documentation. */
export const configVariables = Object.keys(variables) as (keyof Variables)[];

/** Each variable's default as an operator would write it (undefined: unset), for `npm run config:check`. */
export const configDefaults: { readonly [K in keyof Variables]: string | undefined } = Object.fromEntries(
  configVariables.map((name) => [name, variables[name].default]),
) as { readonly [K in keyof Variables]: string | undefined };

/**
 * Decodes the environment. An empty value counts as unset. Every problem is
 * reported at once, each naming its variable.
 */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const problems: string[] = [];
  const raw: Record<string, unknown> = {};
  for (const name of configVariables) {
    const spec = variables[name];
    const given = env[name]?.trim();
    const value = given === undefined || given === '' ? spec.default : given;
    if (value === undefined) continue;
    const decoded = (spec.codec as t.Decoder<unknown, unknown>).decode(value);
    if (E.isLeft(decoded)) {
      const message = decoded.left[0]?.message ?? 'is invalid';
      if (SECRET_VARIABLES.has(name)) problems.push(`${name} (value hidden) ${message}`);
      else if (CONNECTION_VARIABLES.has(name)) problems.push(withoutPassword(`${name}=${JSON.stringify(value)} ${message}`, value));
      else problems.push(`${name}=${JSON.stringify(value)} ${message}`);
    } else raw[name] = decoded.right;
  }
  const c = raw as RawConfig;
  if (c.ERASURE_JOURNAL !== undefined && c.DATA_DIR !== undefined && !relative(resolve(c.DATA_DIR), resolve(c.ERASURE_JOURNAL)).startsWith('..')) {
    problems.push('ERASURE_JOURNAL must be outside DATA_DIR: a backup of DATA_DIR, restored, would take the journal back with the data');
  }
  if ((c.TLS_CERT_FILE === undefined) !== (c.TLS_KEY_FILE === undefined)) {
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  if (c.WEBHOOK_RETRY_DELAYS_MS && c.WEBHOOK_RETRY_DELAYS_MS.length === 0) {
    problems.push('WEBHOOK_RETRY_DELAYS_MS must list at least one delay');
  }
  if (c.WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY > c.WEBHOOK_MAX_IN_FLIGHT) {
    problems.push('WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY must not exceed WEBHOOK_MAX_IN_FLIGHT: a company gets a share of the dispatcher');
  }
  if (c.EVENTSTORE_URL !== undefined && c.MONGODB_URL === undefined) {
    // The outbox, webhook secrets and fan-out checkpoint would otherwise live in DATA_DIR's SQLite
    // file beside a remote log: inside a container without a volume they vanish at every
    // redeploy (secrets lost, the fan-out group ahead of an empty outbox), and no other instance sees them.
    problems.push(
      'EVENTSTORE_URL needs MONGODB_URL: the webhook outbox and webhook secrets must live beside the read models in MongoDB, ' +
        'not in a SQLite file in DATA_DIR (lost with a container, not shared between instances)',
    );
  }
  if (c.POSTGRES_URL !== undefined && (c.EVENTSTORE_URL !== undefined || c.MONGODB_URL !== undefined)) {
    // One engine holds everything: a log in one and read models or an outbox in another would drift apart.
    problems.push(
      `POSTGRES_URL keeps every store in PostgreSQL: unset ${[c.EVENTSTORE_URL !== undefined ? 'EVENTSTORE_URL' : null, c.MONGODB_URL !== undefined ? 'MONGODB_URL' : null]
        .filter((name) => name !== null)
        .join(' and ')} (one engine at a time)`,
    );
  }
  if (c.POSTGRES_READ_URL !== undefined && c.POSTGRES_URL === undefined) {
    problems.push('POSTGRES_READ_URL names a replica of the database POSTGRES_URL names: set POSTGRES_URL too');
  }
  if (c.READ_MODELS === 'memory') {
    // Read models in one process's memory serve that process alone, and are built by it.
    if (c.MONGODB_URL !== undefined) problems.push('READ_MODELS=memory is for the embedded mode: with MONGODB_URL the read models are in MongoDB');
    if (c.POSTGRES_URL !== undefined) problems.push('READ_MODELS=memory is for the embedded mode: with POSTGRES_URL the read models are in PostgreSQL');
    if (!c.RUN_PROJECTIONS || !c.RUN_API) problems.push('READ_MODELS=memory needs RUN_API and RUN_PROJECTIONS in the same process: no other process can read them');
    if (c.API_WORKERS > 1) problems.push('READ_MODELS=memory needs API_WORKERS=1: no other process can read them');
  }
  if (c.API_WORKERS > 1 && !c.RUN_API) {
    problems.push('API_WORKERS above 1 needs RUN_API: it is the number of API processes to run');
  }
  if (c.BACKGROUND_PORT !== undefined && c.BACKGROUND_PORT !== 0 && c.BACKGROUND_PORT === c.PORT) {
    problems.push('BACKGROUND_PORT must differ from PORT: the API workers listen on PORT');
  }
  // Checked on what was given, valid or not: each mistake is reported at once.
  const given = (name: keyof Variables): boolean => (env[name]?.trim() ?? '') !== '';
  if (given('SECRETS_KEY') && given('SECRETS_KEY_FILE')) {
    problems.push('SECRETS_KEY and SECRETS_KEY_FILE cannot both be set: give the key one way');
  }
  if (given('SECRETS_KEY_PREVIOUS') && !given('SECRETS_KEY') && !given('SECRETS_KEY_FILE')) {
    problems.push('SECRETS_KEY_PREVIOUS needs SECRETS_KEY (or SECRETS_KEY_FILE): previous keys only decrypt, the current one encrypts');
  }
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    port: c.PORT,
    host: c.HOST,
    dataDir: c.DATA_DIR,
    eventStoreUrl: c.EVENTSTORE_URL,
    mongoUrl: c.MONGODB_URL,
    mongoDb: c.MONGODB_DB,
    postgresUrl: c.POSTGRES_URL,
    postgresPoolSize: c.POSTGRES_POOL_SIZE,
    postgresReadUrl: c.POSTGRES_READ_URL,
    postgresReadFallbackMs: c.POSTGRES_READ_FALLBACK_MS,
    rateLimit: { hourly: c.RATE_LIMIT_HOURLY, daily: c.RATE_LIMIT_DAILY, concurrent: c.RATE_LIMIT_CONCURRENT },
    rateLimitCountBatch: c.RATE_LIMIT_COUNT_BATCH,
    adminRateLimit: { hourly: c.ADMIN_RATE_LIMIT_HOURLY, daily: c.ADMIN_RATE_LIMIT_DAILY, concurrent: c.ADMIN_RATE_LIMIT_CONCURRENT },
    webhooks: {
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      retryDelaysMs: c.WEBHOOK_RETRY_DELAYS_MS,
      allowPrivateTargets: c.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      logRetentionDays: c.WEBHOOK_LOG_RETENTION_DAYS,
      maxInFlight: c.WEBHOOK_MAX_IN_FLIGHT,
      maxInFlightPerCompany: c.WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY,
      deliveryThread: c.WEBHOOK_DELIVERY_THREAD,
      deliveryThreads: c.WEBHOOK_DELIVERY_THREADS,
      maxSubscriptionsPerCompany: c.WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY,
      pauseDelaysMs: c.WEBHOOK_PAUSE_DELAYS_MS,
      disableAfterMs: c.WEBHOOK_DISABLE_AFTER_MS,
    },
    deletedRecordsRetentionDays: c.DELETED_RECORDS_RETENTION_DAYS,
    erasureJournal: c.ERASURE_JOURNAL,
    deletedRecordsSweepSeconds: c.DELETED_RECORDS_SWEEP_SECONDS,
    deletedCompaniesRetentionDays: c.DELETED_COMPANIES_RETENTION_DAYS,
    logLevel: c.LOG_LEVEL,
    logFormat: c.LOG_FORMAT,
    basePath: c.BASE_PATH ?? '',
    tls: c.TLS_CERT_FILE && c.TLS_KEY_FILE ? { certFile: c.TLS_CERT_FILE, keyFile: c.TLS_KEY_FILE } : undefined,
    trustProxy: c.TRUST_PROXY,
    hsts: { maxAgeSeconds: c.HSTS_MAX_AGE_SECONDS, includeSubDomains: c.HSTS_INCLUDE_SUBDOMAINS },
    roles: { api: c.RUN_API, projections: c.RUN_PROJECTIONS, webhooks: c.RUN_WEBHOOKS },
    apiWorkers: c.API_WORKERS,
    readModels: c.READ_MODELS,
    readModelThread: c.READ_MODEL_THREAD,
    backgroundPort: c.BACKGROUND_PORT,
    readYourWritesTimeoutMs: c.READ_YOUR_WRITES_TIMEOUT_MS,
    readyMaxLagMs: c.READY_MAX_LAG_MS,
    metricsToken: c.METRICS_TOKEN,
    shutdownTimeoutMs: c.SHUTDOWN_TIMEOUT_MS,
    secrets: { key: c.SECRETS_KEY ?? c.SECRETS_KEY_FILE, previousKeys: c.SECRETS_KEY_PREVIOUS ?? [] },
    console: {
      publicUrl: c.CONSOLE_PUBLIC_URL?.replace(/\/+$/, ''),
      frameAncestors: c.CONSOLE_FRAME_ANCESTORS,
      session: { idleMs: c.CONSOLE_SESSION_IDLE_SECONDS * 1000, maxMs: c.CONSOLE_SESSION_MAX_SECONDS * 1000 },
    },
    failedCredentials: { limit: c.FAILED_CREDENTIALS_LIMIT, windowMs: c.FAILED_CREDENTIALS_WINDOW_SECONDS * 1000 },
  };
};
