import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ConfigError, configVariables, loadConfig } from '../../src/config.js';
import { tempDir } from '../support/tempStore.js';

const problemsOf = (env: NodeJS.ProcessEnv): readonly string[] => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return expect.fail('expected a ConfigError');
};

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).to.deep.equal({
      port: 3000,
      host: '127.0.0.1',
      dataDir: './data',
      deletedRecordsRetentionDays: 30,
      erasureJournal: undefined,
      deletedRecordsSweepSeconds: 600,
      deletedCompaniesRetentionDays: 30,
      eventStoreUrl: undefined,
      mongoUrl: undefined,
      mongoDb: 'chronicle',
      postgresUrl: undefined,
      postgresPoolSize: 10,
      postgresReadUrl: undefined,
      postgresReadFallbackMs: 500,
      rateLimit: { hourly: 1000, daily: 10000, concurrent: 10 },
      rateLimitCountBatch: 20,
      adminRateLimit: { hourly: 3600, daily: 50000, concurrent: 10 },
      webhooks: {
        timeoutMs: 30000,
        retryDelaysMs: [5000, 30000, 120000],
        allowPrivateTargets: false,
        logRetentionDays: 30,
        maxInFlight: 64,
        maxInFlightPerCompany: 16,
        deliveryThread: true,
        deliveryThreads: 2,
        maxSubscriptionsPerCompany: 100,
        pauseDelaysMs: [60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 21_600_000],
        disableAfterMs: 5 * 24 * 3_600_000,
      },
      logLevel: 'info',
      logFormat: 'auto',
      basePath: '',
      tls: undefined,
      trustProxy: false,
      hsts: { maxAgeSeconds: 31_536_000, includeSubDomains: false },
      roles: { api: true, projections: true, webhooks: true },
      apiWorkers: 1,
      readModels: 'sqlite',
      readModelThread: true,
      backgroundPort: undefined,
      readYourWritesTimeoutMs: 5000,
      readyMaxLagMs: 5000,
      metricsToken: undefined,
      shutdownTimeoutMs: 10000,
      secrets: { key: undefined, previousKeys: [] },
      console: { publicUrl: undefined, frameAncestors: ["'none'"], session: { idleMs: 1_800_000, maxMs: 28_800_000 } },
      failedCredentials: { limit: 100, windowMs: 60_000 },
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/chronicle',
      EVENTSTORE_URL: 'esdb://localhost:2113?tls=false',
      MONGODB_URL: 'mongodb://localhost:27017/?replicaSet=rs0',
      MONGODB_DB: 'prod',
      RATE_LIMIT_HOURLY: '50',
      RATE_LIMIT_DAILY: '500',
      RATE_LIMIT_CONCURRENT: '2',
      ADMIN_RATE_LIMIT_HOURLY: '60',
      ADMIN_RATE_LIMIT_DAILY: '600',
      ADMIN_RATE_LIMIT_CONCURRENT: '3',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_DELAYS_MS: '10, 20,30',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_LOG_RETENTION_DAYS: '7',
      WEBHOOK_MAX_IN_FLIGHT: '32',
      WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY: '4',
      WEBHOOK_DELIVERY_THREAD: 'false',
      WEBHOOK_DELIVERY_THREADS: '3',
      WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY: '20',
      WEBHOOK_PAUSE_DELAYS_MS: '100,200',
      WEBHOOK_DISABLE_AFTER_MS: '5000',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      BASE_PATH: '/api/external',
      TLS_CERT_FILE: 'cert.pem',
      TLS_KEY_FILE: 'key.pem',
      TRUST_PROXY: 'yes',
      HSTS_MAX_AGE_SECONDS: '86400',
      HSTS_INCLUDE_SUBDOMAINS: 'true',
      RUN_API: 'false',
      RUN_PROJECTIONS: '0',
      RUN_WEBHOOKS: 'FALSE',
      READ_YOUR_WRITES_TIMEOUT_MS: '250',
      READY_MAX_LAG_MS: '1500',
      METRICS_TOKEN: 'scrape-0123456789abcdef',
      SHUTDOWN_TIMEOUT_MS: '30000',
      FAILED_CREDENTIALS_LIMIT: '0',
      FAILED_CREDENTIALS_WINDOW_SECONDS: '300',
    });
    expect(config).to.deep.include({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/chronicle',
      eventStoreUrl: 'esdb://localhost:2113?tls=false',
      mongoDb: 'prod',
      rateLimit: { hourly: 50, daily: 500, concurrent: 2 },
      adminRateLimit: { hourly: 60, daily: 600, concurrent: 3 },
      webhooks: {
        timeoutMs: 1000,
        retryDelaysMs: [10, 20, 30],
        allowPrivateTargets: true,
        logRetentionDays: 7,
        maxInFlight: 32,
        maxInFlightPerCompany: 4,
        deliveryThread: false,
        deliveryThreads: 3,
        maxSubscriptionsPerCompany: 20,
        pauseDelaysMs: [100, 200],
        disableAfterMs: 5000,
      },
      logLevel: 'debug',
      logFormat: 'json',
      basePath: '/api/external',
      tls: { certFile: 'cert.pem', keyFile: 'key.pem' },
      trustProxy: true,
      hsts: { maxAgeSeconds: 86400, includeSubDomains: true },
      roles: { api: false, projections: false, webhooks: false },
      readYourWritesTimeoutMs: 250,
      readyMaxLagMs: 1500,
      metricsToken: 'scrape-0123456789abcdef',
      shutdownTimeoutMs: 30000,
      failedCredentials: { limit: 0, windowMs: 300_000 },
    });
  });

  it('listens on loopback unless HOST says otherwise, and takes an address or a host name', () => {
    expect(loadConfig({}).host).to.equal('127.0.0.1');
    for (const host of ['0.0.0.0', '::', '::1', '10.1.2.3', 'localhost', 'api.internal', 'chronicle-1']) {
      expect(loadConfig({ HOST: host }).host, host).to.equal(host);
    }
    for (const host of ['http://0.0.0.0', '0.0.0.0:3000', 'a b', '-leading', 'under_score.example']) {
      expect(() => loadConfig({ HOST: host }), host).to.throw(ConfigError, /HOST.*IP address/);
    }
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ PORT: '', EVENTSTORE_URL: ' ' })).to.include({ port: 3000, eventStoreUrl: undefined });
  });

  it('refuses bad values, naming each variable, all at once', () => {
    const problems = problemsOf({
      PORT: '70000',
      RATE_LIMIT_HOURLY: '0',
      WEBHOOK_RETRY_DELAYS_MS: '5s,10s',
      LOG_LEVEL: 'loud',
      EVENTSTORE_URL: 'http://localhost:2113',
      TRUST_PROXY: 'maybe',
      BASE_PATH: 'api/',
    });
    expect(problems).to.have.length(7);
    for (const name of ['PORT', 'RATE_LIMIT_HOURLY', 'WEBHOOK_RETRY_DELAYS_MS', 'LOG_LEVEL', 'EVENTSTORE_URL', 'TRUST_PROXY', 'BASE_PATH']) {
      expect(problems.some((p) => p.startsWith(`${name}=`)), name).to.equal(true);
    }
    expect(problems.find((p) => p.startsWith('PORT='))).to.contain('from 0 to 65535');
  });

  it('takes 1 to 16 webhook delivery threads', () => {
    expect(loadConfig({ WEBHOOK_DELIVERY_THREADS: '1' }).webhooks.deliveryThreads).to.equal(1);
    expect(loadConfig({ WEBHOOK_DELIVERY_THREADS: '16' }).webhooks.deliveryThreads).to.equal(16);
    for (const bad of ['0', '17', 'two']) {
      const problems = problemsOf({ WEBHOOK_DELIVERY_THREADS: bad });
      expect(problems, bad).to.have.length(1);
      expect(problems[0]).to.match(/^WEBHOOK_DELIVERY_THREADS=/);
    }
  });

  it('takes the host lists of clusters and replica sets, as the EventStoreDB and MongoDB clients take them', () => {
    const mongo = 'mongodb://m1:27017,m2:27017/?replicaSet=rs0';
    for (const url of ['esdb://n1:2113,n2:2113,n3:2113?tls=true', 'esdb+discover://cluster.example.com:2113', 'esdb://admin:changeit@localhost:2113?tls=false']) {
      expect(loadConfig({ EVENTSTORE_URL: url, MONGODB_URL: mongo }).eventStoreUrl).to.equal(url);
    }
    for (const url of [mongo, 'mongodb://m1,m2,m3/?replicaSet=rs0&w=majority', 'mongodb+srv://cluster0.example.net/?retryWrites=true', 'mongodb://u:p@h/db?authSource=admin']) {
      expect(loadConfig({ MONGODB_URL: url }).mongoUrl).to.equal(url);
    }
  });

  it('refuses what the clients refuse, in their own words, without a password', () => {
    const problem = (env: NodeJS.ProcessEnv) => problemsOf({ MONGODB_URL: 'mongodb://db', ...env })[0] ?? '';
    expect(problem({ EVENTSTORE_URL: 'http://localhost:2113' })).to.match(/^EVENTSTORE_URL="http:\/\/localhost:2113" is refused by the EventStoreDB client: .*esdb:\/\/ or esdb\+discover:\/\//);
    expect(problem({ EVENTSTORE_URL: 'esdb://n1:2113:7,n2:2113' })).to.match(/^EVENTSTORE_URL=.* is refused by the EventStoreDB client/);
    expect(problem({ EVENTSTORE_URL: 'esdb://localhost:2113?tls=maybe' })).to.contain('true or false');
    expect(problemsOf({ MONGODB_URL: 'mongodb://a,b/?directConnection=true' })[0]).to.match(
      /^MONGODB_URL=.* is refused by the MongoDB client: directConnection option requires exactly one host/,
    );
    expect(problemsOf({ MONGODB_URL: 'mongo://db' })[0]).to.contain('Invalid scheme');
    expect(problemsOf({ MONGODB_URL: 'mongodb://m1:70000' })[0]).to.match(/^MONGODB_URL=/);
    const secret = problemsOf({ MONGODB_URL: 'mongodb://chronicle:s3cret-pass@m1:27017/?replicaSet=rs0&bogus=1' })[0]!;
    expect(secret).to.contain('option bogus is not supported').and.to.contain('chronicle:***@m1').and.not.to.contain('s3cret-pass');
  });

  it('refuses a short or malformed METRICS_TOKEN without ever showing it', () => {
    for (const token of ['short-token', 'has spaces in it, which bearer tokens cannot', 'ümlaut-0123456789abcdef']) {
      const problems = problemsOf({ METRICS_TOKEN: token });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^METRICS_TOKEN \(value hidden\) must be at least 16 characters/);
      expect(problems[0]).not.to.contain(token);
    }
    expect(loadConfig({ METRICS_TOKEN: 'abcDEF0123456789-._~+/==' }).metricsToken).to.equal('abcDEF0123456789-._~+/==');
  });

  describe('SECRETS_KEY, SECRETS_KEY_FILE, SECRETS_KEY_PREVIOUS', () => {
    const bytes = randomBytes(32);
    const [hex, base64] = [bytes.toString('hex'), bytes.toString('base64')];

    it('takes 32 bytes in hex, base64 or base64url, as the same key, shown only by its id', () => {
      const ids = [hex, hex.toUpperCase(), base64, bytes.toString('base64url'), ` ${base64}\n`].map((text) => loadConfig({ SECRETS_KEY: text }).secrets.key!.id);
      expect(new Set(ids).size).to.equal(1);
      const key = loadConfig({ SECRETS_KEY: base64 }).secrets.key!;
      for (const shown of [String(key), JSON.stringify({ key }), inspect(key), inspect({ config: loadConfig({ SECRETS_KEY: base64 }) }, { depth: 9 })]) {
        expect(shown).to.include(key.id).and.not.include(base64).and.not.include(hex);
      }
    });

    it('refuses a key that is not 32 bytes, naming the variable and never showing the value', () => {
      for (const bad of [randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), 'correct horse battery staple', `${hex}0`]) {
        const problems = problemsOf({ SECRETS_KEY: bad });
        expect(problems).to.have.length(1);
        expect(problems[0]).to.match(/^SECRETS_KEY \(value hidden\) must be 32 bytes written as 64 hex digits or in base64/);
        expect(problems[0]).not.to.include(bad);
      }
      const previous = problemsOf({ SECRETS_KEY: hex, SECRETS_KEY_PREVIOUS: `${base64},nope` });
      expect(previous).to.deep.equal([
        'SECRETS_KEY_PREVIOUS (value hidden) key 2 of the list must be 32 bytes written as 64 hex digits or in base64, keys separated by commas',
      ]);
    });

    it('reads the key from SECRETS_KEY_FILE; an unreadable file or a bad key in it is named', () => {
      const dir = tempDir('chronicle-key-');
      try {
        const file = join(dir.path, 'secrets.key');
        writeFileSync(file, `${base64}\n`);
        expect(loadConfig({ SECRETS_KEY_FILE: file }).secrets.key!.id).to.equal(loadConfig({ SECRETS_KEY: hex }).secrets.key!.id);
        expect(problemsOf({ SECRETS_KEY_FILE: join(dir.path, 'missing') })[0]).to.match(/^SECRETS_KEY_FILE=".*missing" cannot be read \(ENOENT\)/);
        writeFileSync(file, 'short');
        const problem = problemsOf({ SECRETS_KEY_FILE: file })[0]!;
        expect(problem).to.match(/^SECRETS_KEY_FILE=".*" holds no valid key: it must be 32 bytes/);
        expect(problem).not.to.include('short');
      } finally {
        dir.dispose();
      }
    });

    it('takes previous keys beside a current one only, and the key one way only', () => {
      const other = randomBytes(32).toString('hex');
      const config = loadConfig({ SECRETS_KEY: hex, SECRETS_KEY_PREVIOUS: ` ${other} , ${randomBytes(32).toString('base64')}` });
      expect(config.secrets.previousKeys).to.have.length(2);
      expect(problemsOf({ SECRETS_KEY_PREVIOUS: other })).to.deep.equal([
        'SECRETS_KEY_PREVIOUS needs SECRETS_KEY (or SECRETS_KEY_FILE): previous keys only decrypt, the current one encrypts',
      ]);
      expect(problemsOf({ SECRETS_KEY: hex, SECRETS_KEY_FILE: '/etc/chronicle/secrets.key' })).to.include(
        'SECRETS_KEY and SECRETS_KEY_FILE cannot both be set: give the key one way',
      );
    });
  });

  it('bounds the shutdown and the readiness lag', () => {
    expect(problemsOf({ SHUTDOWN_TIMEOUT_MS: '50' })[0]).to.match(/^SHUTDOWN_TIMEOUT_MS="50" must be a whole number from 100 to 600000/);
    expect(problemsOf({ READY_MAX_LAG_MS: '-1' })[0]).to.match(/^READY_MAX_LAG_MS="-1"/);
    expect(loadConfig({ READY_MAX_LAG_MS: '0' }).readyMaxLagMs).to.equal(0);
  });

  it('keeps the webhook delivery log at least a day', () => {
    expect(problemsOf({ WEBHOOK_LOG_RETENTION_DAYS: '0' })[0]).to.match(/^WEBHOOK_LOG_RETENTION_DAYS="0" must be a whole number from 1 to 36500/);
    expect(loadConfig({ WEBHOOK_LOG_RETENTION_DAYS: '90' }).webhooks.logRetentionDays).to.equal(90);
    expect(problemsOf({ WEBHOOK_MAX_IN_FLIGHT: '8', WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY: '16' })).to.deep.equal([
      'WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY must not exceed WEBHOOK_MAX_IN_FLIGHT: a company gets a share of the dispatcher',
    ]);
    expect(problemsOf({ WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY: '0' })[0]).to.match(/^WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY="0" must be a whole number from 1/);
    expect(problemsOf({ WEBHOOK_PAUSE_DELAYS_MS: '1m' })[0]).to.match(/^WEBHOOK_PAUSE_DELAYS_MS="1m" must be a comma-separated list of milliseconds/);
  });

  it('sends HSTS for a year by default, none with a max-age of 0, and at most two years', () => {
    expect(loadConfig({ HSTS_MAX_AGE_SECONDS: '0' }).hsts).to.deep.equal({ maxAgeSeconds: 0, includeSubDomains: false });
    expect(loadConfig({ HSTS_MAX_AGE_SECONDS: '63072000', HSTS_INCLUDE_SUBDOMAINS: 'no' }).hsts).to.deep.equal({
      maxAgeSeconds: 63_072_000,
      includeSubDomains: false,
    });
    expect(problemsOf({ HSTS_MAX_AGE_SECONDS: '63072001', HSTS_INCLUDE_SUBDOMAINS: 'sometimes' })).to.deep.equal([
      'HSTS_MAX_AGE_SECONDS="63072001" must be a whole number from 0 to 63072000',
      'HSTS_INCLUDE_SUBDOMAINS="sometimes" must be true or false',
    ]);
    expect(problemsOf({ HSTS_MAX_AGE_SECONDS: '-1' })).to.deep.equal(['HSTS_MAX_AGE_SECONDS="-1" must be a whole number from 0 to 63072000']);
  });

  it('takes an erasure journal outside DATA_DIR, and refuses one inside it', () => {
    expect(loadConfig({ DATA_DIR: '/srv/chronicle/data', ERASURE_JOURNAL: '/srv/chronicle/erasures.jsonl' }).erasureJournal).to.equal('/srv/chronicle/erasures.jsonl');
    expect(loadConfig({ DATA_DIR: 'data', ERASURE_JOURNAL: 'data-erasures.jsonl' }).erasureJournal).to.equal('data-erasures.jsonl');
    const inside = ['ERASURE_JOURNAL must be outside DATA_DIR: a backup of DATA_DIR, restored, would take the journal back with the data'];
    expect(problemsOf({ DATA_DIR: '/srv/chronicle/data', ERASURE_JOURNAL: '/srv/chronicle/data/erasures.jsonl' })).to.deep.equal(inside);
    expect(problemsOf({ ERASURE_JOURNAL: './data/journal/erasures.jsonl' })).to.deep.equal(inside);
  });

  it('needs both TLS files or neither', () => {
    expect(problemsOf({ TLS_CERT_FILE: 'cert.pem' })).to.deep.equal(['TLS_CERT_FILE and TLS_KEY_FILE must be set together']);
  });

  it('refuses EventStoreDB without MongoDB: the outbox and webhook secrets would sit in a local SQLite file', () => {
    const problems = problemsOf({ EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false' });
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^EVENTSTORE_URL needs MONGODB_URL/);
    expect(() => loadConfig({ EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false', MONGODB_URL: 'mongodb://db' })).not.to.throw();
  });

  it('takes PostgreSQL alone: with EventStoreDB or MongoDB beside it, or read models in memory, it is refused', () => {
    const url = 'postgres://chronicle:s3cret@db.internal:5432/chronicle';
    expect(loadConfig({ POSTGRES_URL: url, POSTGRES_POOL_SIZE: '25' })).to.include({ postgresUrl: url, postgresPoolSize: 25 });
    expect(loadConfig({ POSTGRES_URL: 'postgresql://db/chronicle' }).postgresUrl).to.equal('postgresql://db/chronicle');
    expect(problemsOf({ POSTGRES_URL: url, EVENTSTORE_URL: 'esdb://es:2113?tls=false', MONGODB_URL: 'mongodb://db' })).to.deep.equal([
      'POSTGRES_URL keeps every store in PostgreSQL: unset EVENTSTORE_URL and MONGODB_URL (one engine at a time)',
    ]);
    expect(problemsOf({ POSTGRES_URL: url, MONGODB_URL: 'mongodb://db' })).to.deep.equal([
      'POSTGRES_URL keeps every store in PostgreSQL: unset MONGODB_URL (one engine at a time)',
    ]);
    expect(problemsOf({ POSTGRES_URL: url, READ_MODELS: 'memory' })).to.deep.equal([
      'READ_MODELS=memory is for the embedded mode: with POSTGRES_URL the read models are in PostgreSQL',
    ]);
    expect(problemsOf({ POSTGRES_POOL_SIZE: '0' })[0]).to.match(/^POSTGRES_POOL_SIZE="0" must be a whole number from 1 to 1000/);
  });

  it('takes a read replica beside POSTGRES_URL only, and never shows its URL', () => {
    const url = 'postgres://chronicle:s3cret@db.internal:5432/chronicle';
    const replica = 'postgres://chronicle:r3plica@db.internal:5001/chronicle';
    expect(loadConfig({ POSTGRES_URL: url, POSTGRES_READ_URL: replica, POSTGRES_READ_FALLBACK_MS: '250' })).to.include({
      postgresReadUrl: replica,
      postgresReadFallbackMs: 250,
    });
    expect(problemsOf({ POSTGRES_READ_URL: replica })).to.deep.equal([
      'POSTGRES_READ_URL names a replica of the database POSTGRES_URL names: set POSTGRES_URL too',
    ]);
    const bad = problemsOf({ POSTGRES_URL: url, POSTGRES_READ_URL: 'mysql://chronicle:r3plica@db/chronicle' });
    expect(bad).to.deep.equal(['POSTGRES_READ_URL (value hidden) must be a URL starting with postgres:// or postgresql://']);
    expect(problemsOf({ POSTGRES_URL: url, POSTGRES_READ_FALLBACK_MS: '-1' })[0]).to.match(/^POSTGRES_READ_FALLBACK_MS="-1" must be a whole number/);
  });

  it('never shows a bad POSTGRES_URL, which may hold a password', () => {
    const problems = problemsOf({ POSTGRES_URL: 'mysql://chronicle:s3cret@db/chronicle' });
    expect(problems).to.deep.equal(['POSTGRES_URL (value hidden) must be a URL starting with postgres:// or postgresql://']);
    expect(problems.join(' ')).not.to.include('s3cret');
  });

  it('takes an API without projections in either mode: the SQLite read models are a file other processes share', () => {
    expect(loadConfig({ RUN_PROJECTIONS: 'false' }).roles).to.deep.equal({ api: true, projections: false, webhooks: true });
    expect(() => loadConfig({ RUN_PROJECTIONS: 'false', MONGODB_URL: 'mongodb://db' })).not.to.throw();
  });

  it('keeps read models in memory only for one process that builds and serves them, embedded', () => {
    expect(loadConfig({ READ_MODELS: 'memory' }).readModels).to.equal('memory');
    expect(loadConfig({}).readModelThread, 'the batches on a thread by default').to.equal(true);
    expect(loadConfig({ READ_MODEL_THREAD: 'false' }).readModelThread).to.equal(false);
    expect(problemsOf({ READ_MODEL_THREAD: 'sometimes' })).to.have.length(1);
    expect(problemsOf({ READ_MODELS: 'disk' })).to.have.length(1);
    expect(problemsOf({ READ_MODELS: 'memory', RUN_PROJECTIONS: 'false' })).to.deep.equal([
      'READ_MODELS=memory needs RUN_API and RUN_PROJECTIONS in the same process: no other process can read them',
    ]);
    expect(problemsOf({ READ_MODELS: 'memory', API_WORKERS: '2' })).to.deep.equal(['READ_MODELS=memory needs API_WORKERS=1: no other process can read them']);
    expect(problemsOf({ READ_MODELS: 'memory', MONGODB_URL: 'mongodb://db' })).to.have.length(1);
  });

  it("takes a port for API_WORKERS' background process, other than PORT", () => {
    expect(loadConfig({ API_WORKERS: '4', BACKGROUND_PORT: '3001' })).to.include({ apiWorkers: 4, backgroundPort: 3001, port: 3000 });
    expect(loadConfig({ BACKGROUND_PORT: '0' }).backgroundPort).to.equal(0);
    expect(problemsOf({ BACKGROUND_PORT: '3000' })).to.deep.equal(['BACKGROUND_PORT must differ from PORT: the API workers listen on PORT']);
    expect(problemsOf({ BACKGROUND_PORT: '70000' })[0]).to.match(/^BACKGROUND_PORT="70000" must be a whole number from 0 to 65535/);
  });

  it('takes the console settings: who may frame it, the session ends, the public URL', () => {
    const set = loadConfig({
      CONSOLE_FRAME_ANCESTORS: "self  https://dashboard.example.com 'self' https://*.example.org:8443",
      CONSOLE_SESSION_IDLE_SECONDS: '60',
      CONSOLE_SESSION_MAX_SECONDS: '3600',
      CONSOLE_PUBLIC_URL: 'https://api.example.com/',
    }).console;
    expect(set).to.deep.equal({
      publicUrl: 'https://api.example.com',
      frameAncestors: ["'self'", 'https://dashboard.example.com', "'self'", 'https://*.example.org:8443'],
      session: { idleMs: 60_000, maxMs: 3_600_000 },
    });
    for (const bad of ["'none' https://a.example.com", 'https://a.example.com; script-src *', 'dashboard.example.com', '*']) {
      expect(problemsOf({ CONSOLE_FRAME_ANCESTORS: bad })[0], bad).to.match(/^CONSOLE_FRAME_ANCESTORS=.* must be 'none', or 'self' and origins/);
    }
    expect(problemsOf({ CONSOLE_SESSION_IDLE_SECONDS: '0' })).to.have.length(1);
    expect(problemsOf({ CONSOLE_PUBLIC_URL: 'ftp://x' })).to.have.length(1);
  });

  it('is fully listed in .env.example', () => {
    const example = readFileSync(new URL('../../../.env.example', import.meta.url), 'utf8');
    const listed = [...example.matchAll(/^#?\s*([A-Z_]+)=/gm)].map((m) => m[1]);
    expect([...listed].sort()).to.deep.equal([...configVariables].sort());
  });
});
