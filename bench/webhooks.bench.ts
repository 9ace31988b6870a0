// npm run bench:webhooks — webhook delivery beside the raw HTTP client it is built on, in one run.
//
// A receiver (node:http on 127.0.0.1 answering 200) runs in this process. Chronicle (`chronicle serve`,
// its attempts on its delivery thread unless WEBHOOK_DELIVERY_THREAD says otherwise) and the raw client
// each run in a child process of their own, so both load the same receiver from outside it:
//
// - raw: the delivery agent's `send` (the dispatcher's client: keep-alive agent, same options) POSTing a
//   real contact.created envelope, signed per request, with 16 requests in flight (the dispatcher's
//   default concurrency): requests/s (while the burst's Chronicle sits idle, after a warm-up delivery);
// - burst: 100 subscriptions to contact.created (one path each), then N contacts: deliveries/s from the
//   first append to the receiver having every delivery, with per-subscription order, completeness and
//   signatures checked;
// - idle latency: one subscription (a fresh Chronicle), one contact every 50 ms: append (the event's
//   recorded_at) → receiver, p50 and p99.
//
// Beside the burst's figure: Chronicle's CPU (user/system) and bytes written per delivery (/proc), and
// what one durable commit costs where it keeps its data, to tell CPU from disk.
//
// BENCH_WEBHOOK_ENGINE (sqlite): where each Chronicle keeps its log and stores. `sqlite` is the embedded
// engine, in a temporary folder; its log and outbox are read from its file once it has stopped, and the
// durable commit is a synchronous=FULL one in that folder. `postgres` starts a private PostgreSQL cluster
// (scripts/postgres-test-cluster.sh, so a PostgreSQL server must be installed), gives each Chronicle a
// database of its own (POSTGRES_URL), reads its log_events and webhook_outbox tables with `pg`, counts
// the cluster's processes' CPU and writes beside Chronicle's, and the durable commit is a 1-row INSERT
// committed on the cluster (synchronous_commit on, one round trip over 127.0.0.1 included):
//
//   npx tsc -p tsconfig.json && BENCH_WEBHOOK_ENGINE=postgres node dist/bench/webhooks.bench.js
//
// BENCH_SECONDS (10): raw client and idle latency; BENCH_WEBHOOK_CONTACTS (1000), BENCH_WEBHOOK_SUBSCRIPTIONS
// (100), BENCH_WEBHOOK_LIMIT_SECONDS (180): the burst; BENCH_WEBHOOK_INTERVAL_MS (50): idle latency;
// BENCH_CPU_PROF_DIR: profile the Chronicle processes; BENCH_CHRONICLE_NODE_ARGS: extra node arguments for them.
//
// Not a test: it prints figures and ratios. Every phase is bounded in time or count.
// `node dist/bench/webhooks.bench.js raw-client` is the raw client's child process (BENCH_RAW holds its job).
import Database from 'better-sqlite3';
import pg from 'pg';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { createDeliveryAgent } from '../src/webhooks/deliveryAgent.js';
import { webhookEventId } from '../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { webhookHeaders } from '../src/webhooks/signing.js';
import { isRefusedAddress } from '../src/webhooks/targetUrlGuard.js';
import { embeddedDatabaseFile } from '../src/startup/adapters.js';
import { tempDir } from '../test/support/tempStore.js';
import { startCluster } from './support/postgresCluster.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Where each Chronicle keeps its data: `sqlite` (embedded) or `postgres` (a private cluster). */
const ENGINE = process.env.BENCH_WEBHOOK_ENGINE ?? 'sqlite';
const CONTACTS = Number(process.env.BENCH_WEBHOOK_CONTACTS ?? 1000);
const SUBSCRIPTIONS = Number(process.env.BENCH_WEBHOOK_SUBSCRIPTIONS ?? 100);
/** Longest wait for the burst's deliveries. */
const BURST_LIMIT_SECONDS = Number(process.env.BENCH_WEBHOOK_LIMIT_SECONDS ?? 180);
const INTERVAL_MS = Number(process.env.BENCH_WEBHOOK_INTERVAL_MS ?? 50);
/** When set, Chronicle runs with `--cpu-prof` and writes its profiles there. */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF_DIR;
/** Extra node arguments of the Chronicle processes only (space-separated), e.g. `--import=file:///tmp/patch.mjs`. */
const CHRONICLE_NODE_ARGS = (process.env.BENCH_CHRONICLE_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** The dispatcher's default concurrency (`WebhookDispatcherDeps.concurrency`). */
const IN_FLIGHT = 16;
const POST_CLIENTS = 50;
const CLI = fileURLToPath(new URL('../../bin/chronicle.js', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

/** Wall-clock milliseconds with sub-ms precision (comparable with another process's Date). */
const wallNow = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

interface ProcessUse {
  /** CPU seconds in user and in system mode. */
  readonly user: number;
  readonly system: number;
  /** Bytes the process caused to be written to storage. */
  readonly writtenBytes: number;
}

/** What a child process has used so far, from /proc (Linux; NaN elsewhere). */
const useOf = (pid: number | undefined): ProcessUse => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const written = /^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1];
    // utime, stime in clock ticks (USER_HZ = 100)
    return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100, writtenBytes: Number(written ?? NaN) };
  } catch {
    return { user: NaN, system: NaN, writtenBytes: NaN };
  }
};
const NOTHING_USED: ProcessUse = { user: 0, system: 0, writtenBytes: 0 };
/**
 * What the processes `pids` names (asked now and again at each call) have used since this call: each
 * counted from where it stood now, one started since from nothing; one gone by the call counts nothing.
 */
const useSince = (pids: () => number[]): (() => ProcessUse) => {
  const before = new Map(pids().map((pid) => [pid, useOf(pid)]));
  return () =>
    pids().reduce((sum, pid) => {
      const now = useOf(pid);
      const was = before.get(pid) ?? NOTHING_USED;
      if (Number.isNaN(now.user) || Number.isNaN(was.user)) return sum;
      return {
        user: sum.user + now.user - was.user,
        system: sum.system + now.system - was.system,
        writtenBytes: sum.writtenBytes + now.writtenBytes - was.writtenBytes,
      };
    }, NOTHING_USED);
};
const percentile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

// ---------------------------------------------------------------------------------------------
// The raw client (child process)

interface RawJob {
  readonly url: string;
  readonly body: string;
  readonly secret: string;
  readonly id: string;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly inFlight: number;
}

interface RawResult {
  readonly count: number;
  readonly errors: number;
  readonly ms: number;
}

const rawClient = async (): Promise<void> => {
  const job = JSON.parse(process.env.BENCH_RAW ?? '') as RawJob;
  // The same client as Chronicle's dispatcher, configured as src/startup/webhooks.ts does (as many idle sockets as in flight: 16).
  const agent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress, maxFreeSockets: IN_FLIGHT });
  const measureFrom = performance.now() + job.warmupSeconds * 1000;
  const deadline = measureFrom + job.seconds * 1000;
  let count = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: job.inFlight }, async () => {
      while (performance.now() < deadline) {
        // Signed per request, as the dispatcher signs each attempt.
        const headers = webhookHeaders({ id: job.id, timestamp: new Date(), body: job.body, secret: job.secret });
        try {
          const response = await agent.send({ url: job.url, headers, body: job.body }, new AbortController().signal);
          if (performance.now() >= measureFrom) {
            if (response.status === 200) count++;
            else errors++;
          }
        } catch {
          errors++;
        }
      }
    }),
  );
  const result: RawResult = { count, errors, ms: performance.now() - measureFrom };
  agent.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
};

const runRawClient = (job: RawJob): Promise<RawResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, 'raw-client'], { env: { ...process.env, BENCH_RAW: JSON.stringify(job) } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), (job.seconds + job.warmupSeconds + 30) * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code === 0 && line) resolve(JSON.parse(line) as RawResult);
      else reject(new Error(`raw client exited with ${code}:\n${out}`));
    });
  });

// ---------------------------------------------------------------------------------------------
// The receiver (this process)

interface PathLog {
  /** `webhook-id` of each delivery, in arrival order. */
  readonly ids: string[];
  /** Arrival, wall-clock ms, same index. */
  readonly at: number[];
  first: { readonly headers: IncomingHttpHeaders; readonly body: string } | null;
}

interface Receiver {
  readonly url: string;
  readonly paths: Map<string, PathLog>;
  /** Deliveries and connections since the last `reset`. */
  readonly counts: { deliveries: number; connections: number; lastAt: number };
  reset(): void;
  /** Resolves true once `done()` holds, false after `timeoutMs`. */
  until(done: () => boolean, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const startReceiver = async (): Promise<Receiver> => {
  const paths = new Map<string, PathLog>();
  const counts = { deliveries: 0, connections: 0, lastAt: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = wallNow();
      const path = req.url ?? '';
      let log = paths.get(path);
      if (!log) paths.set(path, (log = { ids: [], at: [], first: null }));
      log.ids.push(String(req.headers['webhook-id']));
      log.at.push(at);
      log.first ??= { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      counts.deliveries++;
      counts.lastAt = at;
      res.writeHead(200).end();
    });
  });
  server.on('connection', () => counts.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    counts,
    reset: () => {
      paths.clear();
      counts.deliveries = 0;
      counts.connections = 0;
      counts.lastAt = 0;
    },
    until: async (done, timeoutMs) => {
      const deadline = performance.now() + timeoutMs;
      while (!done()) {
        if (performance.now() > deadline) return false;
        await sleep(5);
      }
      return true;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};

// ---------------------------------------------------------------------------------------------
// Where Chronicle keeps its data, and how this process reads it once Chronicle has stopped

interface ContactEvent {
  readonly position: number;
  /** The event's recorded_at, wall-clock ms. */
  readonly recordedAt: number;
  readonly contactId: string;
}

interface OutboxSummary {
  /** When the fan-out enqueued its last row, wall-clock ms. */
  readonly lastEnqueuedAt: number;
  /** Rows by state. */
  readonly states: Record<string, number>;
}

/** One Chronicle's log and stores, on either engine; read only once that Chronicle has stopped. */
interface ChronicleStorage {
  /** What the Chronicle process gets beside its DATA_DIR. */
  readonly env: Record<string, string>;
  /** ContactCreated events of its log, by the `webhook-id` of their contact.created. */
  contactEvents(): Promise<Map<string, ContactEvent>>;
  /** When the fan-out enqueued its last row and how the rows ended, from its outbox. */
  outboxSummary(): Promise<OutboxSummary>;
  /** Context: median wall time (ms) of a 1-row INSERT committed durably where it keeps its data. 500 commits or 3 s at most. */
  durableCommitMs(): Promise<number>;
  /** Removes what the storage holds beyond Chronicle's folder. */
  dispose(): Promise<void>;
}

interface Engine {
  /** `SQLite`, `PostgreSQL`. */
  readonly name: string;
  /** What `durableCommitMs` measures, for the figures. */
  readonly commit: string;
  /** The storage of a fresh Chronicle named `name` whose data folder is `dataDir`. */
  storage(name: string, dataDir: string): Promise<ChronicleStorage>;
  /** The database server's processes now, whose CPU and writes the burst counts beside Chronicle's (none when embedded). */
  readonly serverPids: () => number[];
  close(): Promise<void>;
}

/** Median of `once()`'s wall time, 500 times or for 3 s, whichever ends first. */
const medianOf = async (once: () => unknown): Promise<number> => {
  const times: number[] = [];
  const deadline = performance.now() + 3000;
  while (times.length < 500 && performance.now() < deadline) {
    const start = performance.now();
    await once();
    times.push(performance.now() - start);
  }
  return percentile(times.sort((a, b) => a - b), 0.5);
};

const PROBE_BODY = 'x'.repeat(600);

/** The embedded engine: Chronicle's SQLite file, read with better-sqlite3. */
const sqliteEngine = (): Engine => ({
  name: 'SQLite',
  commit: 'one synchronous=FULL commit in its folder',
  serverPids: () => [],
  close: async () => {},
  storage: async (_name, dataDir) => {
    const file = embeddedDatabaseFile(dataDir);
    const read = <T>(use: (db: Database.Database) => T): T => {
      const db = new Database(file, { readonly: true });
      try {
        return use(db);
      } finally {
        db.close();
      }
    };
    return {
      env: {},
      contactEvents: async () =>
        read((db) => {
          const rows = db
            .prepare("SELECT id, position, recorded_at, data FROM events WHERE type = 'ContactCreated' ORDER BY position")
            .all() as { id: string; position: number; recorded_at: string; data: string }[];
          return new Map(
            rows.map((r) => [
              webhookEventId(r.id, 'contact.created'),
              { position: r.position, recordedAt: Date.parse(r.recorded_at), contactId: (JSON.parse(r.data) as { contactId: string }).contactId },
            ]),
          );
        }),
      outboxSummary: async () =>
        read((db) => {
          const last = db.prepare('SELECT MAX(created_at) AS at FROM webhook_outbox').get() as { at: string | null };
          const states = db.prepare('SELECT state, COUNT(*) AS n FROM webhook_outbox GROUP BY state').all() as { state: string; n: number }[];
          return { lastEnqueuedAt: last.at ? Date.parse(last.at) : NaN, states: Object.fromEntries(states.map((s) => [s.state, s.n])) };
        }),
      // synchronous=FULL in WAL mode, as the store opens its file, beside it: one fsync on this disk.
      durableCommitMs: async () => {
        const db = new Database(join(dirname(file), 'commit-probe.sqlite'));
        try {
          db.pragma('journal_mode = WAL');
          db.pragma('synchronous = FULL');
          db.exec('CREATE TABLE probe (id INTEGER PRIMARY KEY, body TEXT)');
          const insert = db.prepare('INSERT INTO probe (body) VALUES (?)');
          const once = db.transaction(() => insert.run(PROBE_BODY));
          return await medianOf(() => once.immediate());
        } finally {
          db.close();
        }
      },
      dispose: async () => {},
    };
  },
});

/** Every statement on the cluster gives up after this long, so that no phase waits on it for ever. */
const PG_TIMEOUT_MS = 60_000;

/** A connection to `url` for `use`, closed after it. */
const withClient = async <T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PG_TIMEOUT_MS, query_timeout: PG_TIMEOUT_MS });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
};

/** PostgreSQL: a private cluster, a database of its own for each Chronicle, read with `pg`. */
const postgresEngine = async (): Promise<Engine> => {
  const cluster = await startCluster();
  const admin = cluster.url.replace(/\/crud$/, '/postgres');
  return {
    name: 'PostgreSQL',
    commit: 'one commit of a 1-row INSERT on its cluster (synchronous_commit on)',
    serverPids: cluster.pids,
    close: async () => cluster.stop(),
    storage: async (name) => {
      const database = `chronicle_webhooks_${name}`;
      const url = await cluster.createDatabase(database);
      return {
        env: { POSTGRES_URL: url },
        contactEvents: () =>
          withClient(url, async (client) => {
            const { rows } = await client.query<{ id: string; position: string; recorded_at: Date; contact_id: string }>(
              "SELECT id, position, recorded_at, data->>'contactId' AS contact_id FROM log_events WHERE type = 'ContactCreated' ORDER BY position",
            );
            return new Map(
              rows.map((r) => [
                webhookEventId(r.id, 'contact.created'),
                { position: Number(r.position), recordedAt: r.recorded_at.getTime(), contactId: r.contact_id },
              ]),
            );
          }),
        outboxSummary: () =>
          withClient(url, async (client) => {
            const last = await client.query<{ at: Date | null }>('SELECT max(created_at) AS at FROM webhook_outbox');
            const states = await client.query<{ state: string; n: string }>('SELECT state, count(*) AS n FROM webhook_outbox GROUP BY state');
            const at = last.rows[0]?.at;
            return { lastEnqueuedAt: at ? at.getTime() : NaN, states: Object.fromEntries(states.rows.map((s) => [s.state, Number(s.n)])) };
          }),
        // Each INSERT its own transaction, committed (a WAL flush) before the answer: the round trip included.
        durableCommitMs: () =>
          withClient(url, async (client) => {
            await client.query('SET synchronous_commit = on');
            await client.query('CREATE TABLE commit_probe (id bigserial PRIMARY KEY, body text NOT NULL)');
            try {
              return await medianOf(() => client.query('INSERT INTO commit_probe (body) VALUES ($1)', [PROBE_BODY]));
            } finally {
              await client.query('DROP TABLE commit_probe');
            }
          }),
        // So that the next phase's Chronicle shares the cluster with no leftover (autovacuum of this one's tables).
        dispose: () => withClient(admin, (client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`)).then(() => {}),
      };
    },
  };
};

const ENGINES: Record<string, () => Promise<Engine>> = { sqlite: async () => sqliteEngine(), postgres: postgresEngine };

// ---------------------------------------------------------------------------------------------
// Chronicle (child process)

interface Chronicle {
  readonly url: string;
  readonly key: string;
  /** Its log and stores, to read once it has stopped. */
  readonly storage: ChronicleStorage;
  readonly pid: number | undefined;
  readonly output: () => string;
  stop(): Promise<void>;
  /** Removes its folder and what its storage holds; after `stop`. */
  dispose(): Promise<void>;
}

const startChronicle = async (engine: Engine, name: string, timeoutMs = 120_000): Promise<Chronicle> => {
  const dir = tempDir(`chronicle-webhookbench-${name}-`);
  let storage: ChronicleStorage | null = null;
  let disposed: Promise<void> | null = null;
  const dispose = (): Promise<void> =>
    (disposed ??= (async () => {
      try {
        await storage?.dispose();
      } finally {
        dir.dispose();
      }
    })());
  try {
    storage = await engine.storage(name, dir.path);
    const onStorage = storage;
    const nodeArgs = [
      ...CHRONICLE_NODE_ARGS,
      ...(CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR, '--cpu-prof-name', `chronicle-${name}.cpuprofile`] : []),
    ];
    // The engine's choice only: no POSTGRES_URL of this shell's.
    const inherited = { ...process.env };
    delete inherited.POSTGRES_URL;
    const child: ChildProcess = spawn(process.execPath, [...nodeArgs, CLI, 'serve'], {
      env: {
        ...inherited,
        DATA_DIR: dir.path,
        PORT: '0',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_HOURLY: '100000000',
        RATE_LIMIT_DAILY: '100000000',
        RATE_LIMIT_CONCURRENT: '1000',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        ...onStorage.env,
      },
    });
    let exited = false;
    const exit = new Promise<void>((done) => child.once('exit', () => ((exited = true), done())));
    const stop = async (): Promise<void> => {
      if (exited) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exit;
      clearTimeout(killer);
    };
    return await new Promise<Chronicle>((resolve, reject) => {
      let output = '';
      const fail = (error: Error): void => {
        clearTimeout(timer);
        void stop().then(() => reject(error));
      };
      const timer = setTimeout(() => fail(new Error(`no "listening" line within ${timeoutMs} ms:\n${output}`)), timeoutMs);
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        const url = /listening on (https?:\/\/[^\s]+)/.exec(output)?.[1];
        const key = /(chr_[A-Za-z0-9]+)/.exec(output)?.[1];
        if (url && key) {
          clearTimeout(timer);
          resolve({ url: url.replace('localhost', '127.0.0.1'), key, storage: onStorage, pid: child.pid, output: () => output, stop, dispose });
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => fail(new Error(`exited with ${code}:\n${output}`)));
    });
  } catch (error) {
    await dispose();
    throw error;
  }
};

const api = async (chronicle: Chronicle, method: string, path: string, body: unknown, expected: number): Promise<any> => {
  const response = await fetch(`${chronicle.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${chronicle.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
};

interface Subscription {
  readonly id: string;
  readonly secret: string;
  readonly path: string;
}

const subscribe = async (chronicle: Chronicle, receiver: Receiver, path: string): Promise<Subscription> => {
  const body = await api(chronicle, 'POST', '/webhooks/subscribe', { event: 'contact.created', target_url: `${receiver.url}${path}` }, 201);
  return { id: body.data.id as string, secret: body.data.secret as string, path };
};

const contactBody = (n: number) => ({
  name: `Hooked ${n} ${n % 7 === 0 ? 'Müller' : 'Smith'}`,
  phoneNumber: `+1777${String(n).padStart(8, '0')}`,
  email: `hooked${n}@example.com`,
  tags: n % 2 ? ['odd', 'customer'] : ['even', 'customer'],
});

interface Timed {
  /** Wall-clock ms when the POST was sent and when its 201 arrived. */
  readonly sentAt: number;
  readonly answeredAt: number;
}

const createContact = async (chronicle: Chronicle, n: number): Promise<Timed> => {
  const sentAt = wallNow();
  await api(chronicle, 'POST', '/contacts', contactBody(n), 201);
  return { sentAt, answeredAt: wallNow() };
};

// ---------------------------------------------------------------------------------------------
// The phases

interface Burst {
  readonly raw: RawResult & { readonly rates: readonly number[]; readonly bodyBytes: number; readonly connections: number };
  readonly delivered: number;
  readonly expected: number;
  readonly complete: boolean;
  readonly ms: number;
  readonly appendsDoneMs: number;
  readonly fanOutDoneMs: number;
  readonly connections: number;
  readonly outOfOrder: number;
  readonly missing: number;
  readonly duplicates: number;
  readonly unknown: number;
  readonly verified: number;
  readonly states: Record<string, number>;
  /** Share of one core used during the burst by Chronicle and by this process (receiver and API client). */
  readonly cpu: {
    readonly chronicleUser: number;
    readonly chronicleSystem: number;
    readonly writtenBytes: number;
    readonly receiver: number;
    /** The database server's processes (PostgreSQL; none when embedded): share of one core, bytes written. */
    readonly serverUser: number;
    readonly serverSystem: number;
    readonly serverWrittenBytes: number;
    /** CPU seconds (user + system) used during the burst by Chronicle, and by the database server. */
    readonly chronicleSeconds: number;
    readonly serverSeconds: number;
  };
  /** One durable commit where Chronicle keeps its data (the engine's `commit`), ms (median). */
  readonly commitMs: number;
}

/** Raw client, then 100 subscriptions and a burst of contacts, on one Chronicle. */
const burstPhase = async (receiver: Receiver, engine: Engine): Promise<Burst> => {
  const chronicle = await startChronicle(engine, 'burst');
  try {
    const subs: Subscription[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i += 10) {
      const batch = Array.from({ length: Math.min(10, SUBSCRIPTIONS - i) }, (_, j) => subscribe(chronicle, receiver, `/hook/${i + j}`));
      subs.push(...(await Promise.all(batch)));
    }

    // Warm-up: one contact to every subscription (connections opened, code compiled); gives a real envelope.
    receiver.reset();
    await createContact(chronicle, 0);
    if (!(await receiver.until(() => receiver.counts.deliveries >= SUBSCRIPTIONS, 30_000))) {
      throw new Error(`warm-up: ${receiver.counts.deliveries}/${SUBSCRIPTIONS} deliveries in 30 s\n${chronicle.output()}`);
    }
    const sample = receiver.paths.get(subs[0]!.path)!.first!;

    // Raw client against the same receiver, while this Chronicle sits idle.
    receiver.reset();
    console.log(`raw client: ${IN_FLIGHT} in flight for ${SECONDS} s (1 s warm-up), ${Buffer.byteLength(sample.body)}-byte envelope…`);
    const rawJob = {
      url: `${receiver.url}/raw`,
      body: sample.body,
      secret: subs[0]!.secret,
      id: String(sample.headers['webhook-id']),
      seconds: SECONDS,
      warmupSeconds: 1,
      inFlight: IN_FLIGHT,
    };
    const rawBefore = await runRawClient(rawJob);
    const rawConnections = receiver.counts.connections;

    // The burst.
    receiver.reset();
    const expected = CONTACTS * SUBSCRIPTIONS;
    console.log(`burst: ${CONTACTS} contacts × ${SUBSCRIPTIONS} subscriptions = ${fmt(expected)} deliveries (at most ${BURST_LIMIT_SECONDS} s)…`);
    const cpuBefore = { chronicle: useOf(chronicle.pid), receiver: process.cpuUsage(), server: useSince(engine.serverPids) };
    const wallBefore = performance.now();
    let next = 1;
    let appendsDoneAt = 0;
    const appends = Promise.all(
      Array.from({ length: POST_CLIENTS }, async () => {
        while (next <= CONTACTS) await createContact(chronicle, next++);
      }),
    ).then(() => (appendsDoneAt = wallNow()));
    const complete = await receiver.until(() => receiver.counts.deliveries >= expected, BURST_LIMIT_SECONDS * 1000);
    await appends;
    const lastAt = receiver.counts.lastAt;
    const wallSeconds = (performance.now() - wallBefore) / 1000;
    const receiverCpu = process.cpuUsage(cpuBefore.receiver);
    const used = useOf(chronicle.pid);
    const server = cpuBefore.server();
    const cpu = {
      chronicleUser: (used.user - cpuBefore.chronicle.user) / wallSeconds,
      chronicleSystem: (used.system - cpuBefore.chronicle.system) / wallSeconds,
      writtenBytes: used.writtenBytes - cpuBefore.chronicle.writtenBytes,
      receiver: (receiverCpu.user + receiverCpu.system) / 1e6 / wallSeconds,
      serverUser: server.user / wallSeconds,
      serverSystem: server.system / wallSeconds,
      serverWrittenBytes: server.writtenBytes,
      chronicleSeconds: used.user - cpuBefore.chronicle.user + used.system - cpuBefore.chronicle.system,
      serverSeconds: server.user + server.system,
    };
    const delivered = receiver.counts.deliveries;
    const connections = receiver.counts.connections;
    await chronicle.stop();

    // Checks, against the log: each subscription got every burst contact once, in log order, signed.
    const events = await chronicle.storage.contactEvents();
    const warmupIds = new Set([String(sample.headers['webhook-id'])]);
    const burstEvents = [...events.entries()].filter(([id]) => !warmupIds.has(id));
    const firstAppend = Math.min(...burstEvents.map(([, e]) => e.recordedAt));
    let outOfOrder = 0;
    let missing = 0;
    let duplicates = 0;
    let unknown = 0;
    let verified = 0;
    for (const sub of subs) {
      const log = receiver.paths.get(sub.path) ?? { ids: [], at: [], first: null };
      const seen = new Set<string>();
      let previous = -1;
      for (const id of log.ids) {
        const event = events.get(id);
        if (!event || warmupIds.has(id)) {
          unknown++;
          continue;
        }
        if (seen.has(id)) duplicates++;
        seen.add(id);
        if (event.position <= previous) outOfOrder++;
        previous = event.position;
      }
      missing += burstEvents.length - seen.size;
      if (log.first) {
        try {
          new Webhook(sub.secret).verify(log.first.body, log.first.headers as Record<string, string>);
          verified++;
        } catch {
          // counted as not verified
        }
      }
    }
    const outbox = await chronicle.storage.outboxSummary();
    const commitMs = await chronicle.storage.durableCommitMs();
    await chronicle.dispose();
    // The raw rate again, once Chronicle has stopped: this machine's speed drifts within
    // minutes, so the ratio takes the mean of a measurement before and one after the burst.
    receiver.reset();
    console.log(`raw client again, after the burst…`);
    const rawAfter = await runRawClient(rawJob);
    const raw: RawResult = {
      count: rawBefore.count + rawAfter.count,
      errors: rawBefore.errors + rawAfter.errors,
      ms: rawBefore.ms + rawAfter.ms,
    };
    const rawRates = [rawBefore, rawAfter].map((r) => (r.count * 1000) / r.ms);
    return {
      raw: { ...raw, rates: rawRates, bodyBytes: Buffer.byteLength(sample.body), connections: rawConnections },
      delivered,
      expected,
      complete: complete && burstEvents.length === CONTACTS,
      ms: lastAt - firstAppend,
      appendsDoneMs: appendsDoneAt - firstAppend,
      fanOutDoneMs: outbox.lastEnqueuedAt - firstAppend,
      connections,
      outOfOrder,
      missing,
      duplicates,
      unknown,
      verified,
      states: outbox.states,
      cpu,
      commitMs,
    };
  } finally {
    await chronicle.stop();
    await chronicle.dispose();
  }
};

interface Latency {
  readonly sent: number;
  readonly received: number;
  /** recorded_at → receiver, ms, sorted. */
  readonly fromAppend: number[];
  /** The POST's 201 → receiver, ms, sorted (negative: delivered before the 201 came back). */
  readonly from201: number[];
}

/** One subscription on a fresh Chronicle, one contact every INTERVAL_MS for SECONDS. */
const latencyPhase = async (receiver: Receiver, engine: Engine): Promise<Latency> => {
  const chronicle = await startChronicle(engine, 'latency');
  try {
    const sub = await subscribe(chronicle, receiver, '/latency');
    receiver.reset();
    // Warm-up, not counted: a few deliveries one at a time.
    for (let n = 0; n < 5; n++) {
      await createContact(chronicle, n);
      await receiver.until(() => receiver.counts.deliveries >= n + 1, 5000);
    }
    const warmupIds = new Set(receiver.paths.get(sub.path)?.ids ?? []);
    receiver.reset();

    console.log(`idle latency: 1 subscription, 1 contact every ${INTERVAL_MS} ms for ${SECONDS} s…`);
    const count = Math.max(1, Math.floor((SECONDS * 1000) / INTERVAL_MS));
    const timings: Timed[] = [];
    const start = performance.now();
    for (let n = 0; n < count; n++) {
      await sleep(start + n * INTERVAL_MS - performance.now());
      timings.push(await createContact(chronicle, 1000 + n));
    }
    await receiver.until(() => receiver.counts.deliveries >= count, 10_000);
    await chronicle.stop();

    const events = await chronicle.storage.contactEvents();
    const log = receiver.paths.get(sub.path) ?? { ids: [], at: [], first: null };
    // Log order is POST order here (one at a time), so the n-th measured contact is the n-th after the warm-up.
    const measured = [...events.entries()].filter(([id]) => !warmupIds.has(id)).map(([id, e]) => ({ id, ...e }));
    const arrival = new Map(log.ids.map((id, i) => [id, log.at[i]!]));
    const fromAppend: number[] = [];
    const from201: number[] = [];
    measured.forEach((event, n) => {
      const at = arrival.get(event.id);
      if (at === undefined) return;
      fromAppend.push(at - event.recordedAt);
      const timed = timings[n];
      if (timed) from201.push(at - timed.answeredAt);
    });
    fromAppend.sort((a, b) => a - b);
    from201.sort((a, b) => a - b);
    return { sent: count, received: fromAppend.length, fromAppend, from201 };
  } finally {
    await chronicle.stop();
    await chronicle.dispose();
  }
};

const main = async (): Promise<void> => {
  const makeEngine = Object.hasOwn(ENGINES, ENGINE) ? ENGINES[ENGINE] : undefined;
  if (!makeEngine) throw new Error(`BENCH_WEBHOOK_ENGINE is ${Object.keys(ENGINES).join(' or ')}, not ${ENGINE}`);
  const engine = await makeEngine();
  const receiver = await startReceiver();
  try {
    console.log(
      `Webhook delivery benchmark: Chronicle on ${engine.name}, ${SUBSCRIPTIONS} subscriptions × ${CONTACTS} contacts, ` +
        `dispatcher and raw client ${IN_FLIGHT} in flight, receiver node:http on 127.0.0.1\n`,
    );
    const burst = await burstPhase(receiver, engine);
    const latency = await latencyPhase(receiver, engine);

    const rawRate = (burst.raw.count * 1000) / burst.raw.ms;
    const rate = (burst.delivered * 1000) / burst.ms;
    const ratio = rate / rawRate;
    const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
    const ms = (v: number): string => `${v.toFixed(1)} ms`;
    console.log('');
    console.log(
      `${'raw client: send() of a signed envelope, 16 in flight'.padEnd(62)} ${fmt(rawRate).padStart(8)} POST/s` +
        `  (before the burst ${fmt(burst.raw.rates[0]!)}, after it ${fmt(burst.raw.rates[1]!)}; ` +
        `${burst.raw.bodyBytes}-byte body, ${burst.raw.connections} connections${burst.raw.errors ? `, ${burst.raw.errors} errors!` : ''})`,
    );
    console.log(
      `${`deliveries across ${SUBSCRIPTIONS} subscriptions`.padEnd(62)} ${fmt(rate).padStart(8)} /s      ` +
        `${(ratio * 100).toFixed(0)}% of raw  (${fmt(burst.delivered)}/${fmt(burst.expected)} in ${s(burst.ms)}; ` +
        `appends done at +${s(burst.appendsDoneMs)}, fan-out at +${s(burst.fanOutDoneMs)}; ${burst.connections} connections)`,
    );
    console.log(
      `  during the burst: Chronicle ${((burst.cpu.chronicleUser + burst.cpu.chronicleSystem) * 100).toFixed(0)}% of a core ` +
        `(${(burst.cpu.chronicleSystem * 100).toFixed(0)}% system), wrote ${(burst.cpu.writtenBytes / 1024 / burst.delivered).toFixed(1)} KiB per delivery; ` +
        (engine.serverPids().length > 0
          ? `${engine.name}'s processes ${((burst.cpu.serverUser + burst.cpu.serverSystem) * 100).toFixed(0)}% ` +
            `(${(burst.cpu.serverSystem * 100).toFixed(0)}% system), wrote ${(burst.cpu.serverWrittenBytes / 1024 / burst.delivered).toFixed(1)} KiB per delivery; `
          : '') +
        `this process (receiver, API client) ${(burst.cpu.receiver * 100).toFixed(0)}%; ` +
        `${engine.commit} takes ${burst.commitMs.toFixed(2)} ms (≤ ${fmt(1000 / burst.commitMs)} commits/s, one thread)`,
    );
    console.log(
      `  CPU per delivery: Chronicle ${fmt((burst.cpu.chronicleSeconds * 1e6) / burst.delivered)} µs` +
        (engine.serverPids().length > 0
          ? `, ${engine.name} ${fmt((burst.cpu.serverSeconds * 1e6) / burst.delivered)} µs, ` +
            `together ${fmt(((burst.cpu.chronicleSeconds + burst.cpu.serverSeconds) * 1e6) / burst.delivered)} µs`
          : ''),
    );
    const orderOk = burst.complete && burst.outOfOrder + burst.missing + burst.duplicates + burst.unknown === 0;
    console.log(
      `  check: ${orderOk ? 'ok' : 'FAILED'}: ${burst.outOfOrder} out of log order, ${burst.missing} missing, ${burst.duplicates} duplicates, ` +
        `${burst.unknown} unexpected; first delivery of ${burst.verified}/${SUBSCRIPTIONS} subscriptions verifies (standardwebhooks); ` +
        `outbox ${JSON.stringify(burst.states)}`,
    );
    const p99 = percentile(latency.fromAppend, 0.99);
    console.log(
      `${`append → receiver, idle, 1 subscription (1 per ${INTERVAL_MS} ms)`.padEnd(62)} p50 ${ms(percentile(latency.fromAppend, 0.5))}  ` +
        `p99 ${ms(p99)}  max ${ms(latency.fromAppend[latency.fromAppend.length - 1] ?? NaN)}  (${latency.received}/${latency.sent} received)`,
    );
    console.log(
      `${'  from the POST’s 201 instead of recorded_at'.padEnd(62)} p50 ${ms(percentile(latency.from201, 0.5))}  ` +
        `p99 ${ms(percentile(latency.from201, 0.99))}  (${latency.from201.filter((v) => v < 0).length} delivered before the 201)`,
    );
    console.log('');
    console.log(
      `target: deliveries/s ≥ 50% of raw client POST/s across ${SUBSCRIPTIONS} subscriptions → ${(ratio * 100).toFixed(0)}% ` +
        `${ratio >= 0.5 && orderOk ? 'met' : 'NOT met'}`,
    );
    console.log(
      `target: append → receiver p99 ≤ 50 ms when idle                  → ${ms(p99)} ` +
        `${p99 <= 50 && latency.received === latency.sent ? 'met' : 'NOT met'}`,
    );
  } finally {
    await receiver.close();
    await engine.close();
  }
};

if (process.argv[2] === 'raw-client') await rawClient();
else await main();
