import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { eventually } from '../support/events.js';
import { LEFT_RUNNING, runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';
import { seedCompanyWithKeys } from '../support/seedCompany.js';
import { valueOf } from '../support/prometheusText.js';
import { listeningPorts } from '../support/listeningPorts.js';
import { freePort } from '../support/freePort.js';

/** A port nothing listens on right now. */
/** A company with two full-permission keys, and another company with one, written into the log before any process starts. */
const seedKeys = async (dataDir: string): Promise<[string, string, string]> => {
  const store = SqliteEventStore.open(embeddedDatabaseFile(dataDir));
  try {
    const { keys } = await seedCompanyWithKeys(store, 2);
    const other = await seedCompanyWithKeys(store, 1);
    return [keys[0]!, keys[1]!, other.keys[0]!];
  } finally {
    await store.close();
  }
};

const call = (baseUrl: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });

/**
 * The processes whose request log lines (JSON, with their pid) contain `marker`: which workers
 * answered. Request lines reach stdout in blocks, a little after they are logged: looked for
 * until `expected` processes are seen (or 10 s passed).
 */
const answeredBy = async (server: ServerProcess, marker = '"msg":"request"', expected = 2): Promise<Set<number>> => {
  const pids = () =>
    new Set(
      server
        .output()
        .split('\n')
        .slice(0, -1) // whole lines only
        .filter((line) => line.includes('"msg":"request"') && line.includes(marker))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
  await eventually(() => pids().size >= expected, 10_000, 20).catch(() => undefined);
  return pids();
};

const ready = async (baseUrl: string): Promise<number> => (await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(5000) })).status;

// Long enough that a read runs out of it only waiting for a projector that is stopped, never for a busy one.
const READ_YOUR_WRITES_TIMEOUT_MS = 3_000;
const READY_MAX_LAG_MS = 600;
const HOURLY_LIMIT = 400;

/**
 * The production topology on one machine: one projector, one dispatcher and two
 * API processes (RUN_PROJECTIONS=false) on one DATA_DIR, each a real
 * `chronicle serve`.
 */
describe('topology on one machine: projector, dispatcher and two API processes on one DATA_DIR', function () {
  this.timeout(60_000);
  const dir = tempDir('chronicle-topology-');
  const common = { DATA_DIR: dir.path, READ_YOUR_WRITES_TIMEOUT_MS: String(READ_YOUR_WRITES_TIMEOUT_MS), READY_MAX_LAG_MS: String(READY_MAX_LAG_MS) };
  const projectorEnv = { ...common, RUN_API: 'false', RUN_WEBHOOKS: 'false' };
  const apiEnv = { ...common, RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false', RATE_LIMIT_HOURLY: String(HOURLY_LIMIT) };
  let key: string;
  let limitedKey: string;
  /** Another company's key. */
  let otherKey: string;
  let projector: ServerProcess;
  let dispatcher: ServerProcess;
  let a: ServerProcess;
  let b: ServerProcess;

  before(async () => {
    [key, limitedKey, otherKey] = await seedKeys(dir.path);
    projector = await startServer(projectorEnv);
    dispatcher = await startServer({ ...common, RUN_API: 'false', RUN_PROJECTIONS: 'false' });
    a = await startServer(apiEnv);
    b = await startServer(apiEnv);
    // The keys are known to both API processes once the projector has applied the seeded log.
    await eventually(async () => (await call(a.baseUrl, key, 'GET', '/test')).status === 200 && (await call(b.baseUrl, key, 'GET', '/test')).status === 200, 10_000, 50);
  });

  after(async () => {
    const codes = await Promise.all([a, b, dispatcher, projector].filter(Boolean).map((p) => p.stop()));
    dir.dispose();
    expect(codes, 'every process stops cleanly on SIGTERM').to.deep.equal([0, 0, 0, 0]);
  });

  it('a contact created through one API process is read through the other', async () => {
    const created = await call(a.baseUrl, key, 'POST', '/contacts', { name: 'Ada', phoneNumber: '+44 20 7946 0000' });
    expect(created.status).to.equal(201);
    const position = created.headers.get('x-log-position');
    expect(position).to.be.a('string');
    const { data } = (await created.json()) as { data: { id: string } };
    // The write was answered once the projector's checkpoint had passed it: readable at once, here and there.
    expect((await call(a.baseUrl, key, 'GET', `/contacts/${data.id}`)).status).to.equal(200);
    const there = await call(b.baseUrl, key, 'GET', `/contacts/${data.id}`, undefined, { 'X-Min-Log-Position': position! });
    expect(there.status).to.equal(200);
    expect(((await there.json()) as { data: { name: string } }).data.name).to.equal('Ada');
  });

  it("shares a key's hourly limit between the API processes", async () => {
    const remaining = async (p: ServerProcess) => {
      const res = await call(p.baseUrl, limitedKey, 'GET', '/test');
      return {
        status: res.status,
        remaining: Number(res.headers.get('x-ratelimit-hourly-remaining')),
        window: res.headers.get('x-ratelimit-hourly-reset'),
      };
    };
    // At most twice: a run that crosses the top of a UTC hour (the count restarts) is run again in the new hour.
    for (let run = 1; run <= 2; run += 1) {
      const first = await remaining(a);
      const second = await remaining(b);
      // Use up the hour alternately through both (bounded: the limit plus a few).
      let refusedAt = -1;
      for (let i = 0; i < HOURLY_LIMIT + 5 && refusedAt < 0; i += 1) {
        const { status } = await remaining(i % 2 === 0 ? a : b);
        if (status === 429) refusedAt = i;
      }
      const [lastA, lastB] = [await remaining(a), await remaining(b)];
      if (run === 1 && lastB.window !== first.window) continue;
      expect(first.status).to.equal(200);
      expect(second.remaining, 'B counts on from A').to.equal(first.remaining - 1);
      expect(refusedAt, 'refused once the shared count passed the limit').to.equal(second.remaining);
      expect(lastA.status).to.equal(429);
      expect(lastB.status).to.equal(429);
      return;
    }
  });

  it('with the projector stopped, a create answers at once, the next read of its company waits READ_YOUR_WRITES_TIMEOUT_MS once and says so, /ready fails within the lag bound; all recover when it restarts', async () => {
    const before = await call(a.baseUrl, key, 'POST', '/contacts', { name: 'Margaret', phoneNumber: '+1 555 0199' });
    const { data: margaret } = (await before.json()) as { data: { id: string } };
    expect((await call(a.baseUrl, key, 'GET', `/contacts/${margaret.id}`)).status, 'projected before the stop').to.equal(200);
    expect(await projector.stop()).to.equal(0);
    // Nothing below waits for the stopped projector but the one read that must: a wait for it would run out, and say so.
    const created = await call(a.baseUrl, key, 'POST', '/contacts', { name: 'Grace', phoneNumber: '+1 555 0100' });
    expect(created.status).to.equal(201);
    expect(created.headers.get('x-read-your-writes'), 'a create answers once durable, without waiting for the read models').to.equal(null);
    const { data } = (await created.json()) as { data: { id: string } };
    // Another company's reads on the same instance never wait for this company's creates.
    const otherCompany = await call(a.baseUrl, otherKey, 'GET', '/contacts');
    expect(otherCompany.status).to.equal(200);
    expect(otherCompany.headers.get('x-read-your-writes')).to.equal(null);
    // A contact that exists, and the new one's history (read from the log), are answered at once: no create changes them (decision 88).
    const existing = await call(a.baseUrl, key, 'GET', `/contacts/${margaret.id}`);
    expect(existing.status).to.equal(200);
    expect(existing.headers.get('x-read-your-writes')).to.equal(null);
    const history = await call(a.baseUrl, key, 'GET', `/contacts/${data.id}/history`);
    expect(history.status, 'the log holds the create').to.equal(200);
    expect(history.headers.get('x-read-your-writes')).to.equal(null);
    // The next read of the company on the instance that answered the create waits for it, at most the bound, and says it ran out.
    const readAt = Date.now();
    const first = await call(a.baseUrl, key, 'GET', `/contacts/${data.id}`);
    const waitedMs = Date.now() - readAt;
    expect(first.status, 'not projected yet').to.equal(404);
    expect(first.headers.get('x-read-your-writes')).to.equal('timeout');
    expect(waitedMs, 'not before the bound').to.be.at.least(READ_YOUR_WRITES_TIMEOUT_MS - 50);
    // The company's next reads still say so (one wait per write, not one per read: test/unit/subscriptions/answeredWrites.test.ts).
    const second = await call(a.baseUrl, key, 'GET', '/contacts');
    expect(second.headers.get('x-read-your-writes')).to.equal('timeout');
    // The write is the oldest unapplied event: /ready fails on both API processes once it is older than the bound.
    await eventually(async () => (await ready(a.baseUrl)) === 503 && (await ready(b.baseUrl)) === 503, READY_MAX_LAG_MS + 3_000, 50);
    const other = await call(b.baseUrl, key, 'GET', `/contacts/${data.id}`);
    expect(other.status, 'not projected yet').to.equal(404);
    expect(other.headers.get('x-read-your-writes'), 'b answered no write: it has nothing to wait for').to.equal(null);

    projector = await startServer(projectorEnv);
    await eventually(async () => (await ready(a.baseUrl)) === 200 && (await ready(b.baseUrl)) === 200, 10_000, 50);
    const projected = await call(a.baseUrl, key, 'GET', `/contacts/${data.id}`);
    expect(projected.status).to.equal(200);
    expect(projected.headers.get('x-read-your-writes')).to.equal(null);
    const next = await call(b.baseUrl, key, 'POST', '/contacts', { name: 'Linus', phoneNumber: '+358 9 1234567' });
    expect(next.status).to.equal(201);
    const { data: linus } = (await next.json()) as { data: { id: string } };
    // Read through the instance that answered the create, without a header: it waits for the projector, which is back.
    const own = await call(b.baseUrl, key, 'GET', `/contacts/${linus.id}`);
    expect(own.status).to.equal(200);
    expect(own.headers.get('x-read-your-writes'), 'the wait ended with the projector, not at the bound').to.equal(null);
    expect((await call(a.baseUrl, key, 'GET', `/contacts/${linus.id}`, undefined, { 'X-Min-Log-Position': next.headers.get('x-log-position')! })).status).to.equal(200);
  });
});

describe('API_WORKERS: one `chronicle serve` runs API workers on one port beside one projector and dispatcher', function () {
  this.timeout(60_000);

  it('two workers answer on one port; a contact written through one is read through the other; SIGTERM stops them all', async () => {
    const dir = tempDir('chronicle-workers-');
    const [key] = await seedKeys(dir.path);
    const server = await startServer({ DATA_DIR: dir.path, API_WORKERS: '2', LOG_LEVEL: 'info' });
    try {
      const background = /\(2 API workers; projections and webhooks in process (\d+), listening on no port \(BACKGROUND_PORT unset\)\)/.exec(server.output());
      expect(background, server.output()).not.to.equal(null);
      // Without BACKGROUND_PORT the projections-and-webhooks process opens no port at all; the supervisor holds PORT.
      const port = Number(new URL(server.baseUrl).port);
      const supervisorPorts = listeningPorts(server.child.pid!);
      if (supervisorPorts !== null) {
        expect(supervisorPorts).to.include(port);
        expect(listeningPorts(Number(background![1]))).to.deep.equal([]);
      }
      await eventually(async () => (await call(server.baseUrl, key, 'GET', '/test')).status === 200, 10_000, 50);
      // The workers' /ready follows the projector's lag.
      const readiness = (await (await fetch(`${server.baseUrl}/ready`)).json()) as { data: { checks: Record<string, { status: string }> } };
      expect(readiness.data.checks.projections?.status).to.equal('ok');
      // Each request on a new connection: the primary hands connections to the workers in turn.
      const ids: string[] = [];
      for (let i = 0; i < 6; i += 1) {
        const res = await call(server.baseUrl, key, 'POST', '/contacts', { name: `C${i}`, phoneNumber: `+1 555 010${i}` }, { connection: 'close' });
        expect(res.status).to.equal(201);
        ids.push(((await res.json()) as { data: { id: string } }).data.id);
      }
      // Which worker answered each request, from the request logs (pid per line).
      const served = await answeredBy(server);
      expect(served.size, 'both workers answered').to.equal(2);
      // Each create's commit was signalled to the projector, and its batches to the workers, through the
      // supervisor (the workers' figures added up): what lets a write skip the polls.
      const scraped = await (await fetch(`${server.baseUrl}/metrics`)).text();
      const signals = (signal: string, direction: string) =>
        valueOf(scraped, `chronicle_progress_signals_total{signal="${signal}",direction="${direction}"}`) ?? 0;
      expect(signals('log-appended', 'sent'), scraped).to.be.at.least(ids.length);
      expect(signals('read-models-applied', 'received'), scraped).to.be.at.least(1);
      expect(signals('log-appended', 'received'), 'the workers run no subscription: not relayed to them').to.equal(0);
      // Every contact, whichever worker wrote it, is read by both (round-robin spreads these reads over both).
      for (const id of ids) {
        expect((await call(server.baseUrl, key, 'GET', `/contacts/${id}`, undefined, { connection: 'close' })).status).to.equal(200);
      }

      // A worker that dies is started again; the port keeps answering meanwhile.
      const [victim] = [...served];
      process.kill(victim!, 'SIGKILL');
      await eventually(() => server.output().includes('process started again'), 10_000, 50);
      for (let i = 0; i < 4; i += 1) expect((await call(server.baseUrl, key, 'GET', '/test', undefined, { connection: 'close' })).status).to.equal(200);
    } finally {
      const code = await server.stop();
      const left = server.output();
      dir.dispose();
      expect(code, left).to.equal(0);
      expect(left.match(/"msg":"stopped"/g) ?? [], 'three processes stopped gracefully').to.have.length(3);
    }
  });

  it('the workers count a key\'s hourly limit together, with their supervisor; an admin token\'s too, with its own limit', async () => {
    const dir = tempDir('chronicle-workers-');
    const [key] = await seedKeys(dir.path);
    const admin = await runCli(['admin-tokens', 'create', '--name', 'workers', '--json'], { DATA_DIR: dir.path });
    expect(admin.code, admin.stderr).to.equal(0);
    const { token } = JSON.parse(admin.stdout) as { token: string };
    const server = await startServer({ DATA_DIR: dir.path, API_WORKERS: '2', LOG_LEVEL: 'info', RATE_LIMIT_HOURLY: '8', ADMIN_RATE_LIMIT_HOURLY: '4' });
    try {
      await eventually(async () => (await fetch(`${server.baseUrl}/ready`)).status === 200, 10_000, 50);
      const remaining: number[] = [];
      for (let i = 0; i < 8; i += 1) {
        const res = await call(server.baseUrl, key, 'GET', '/test', undefined, { connection: 'close' });
        expect(res.status).to.equal(200);
        remaining.push(Number(res.headers.get('x-ratelimit-hourly-remaining')));
      }
      // One count across both workers: 7 down to 0, whichever worker answered.
      expect(remaining).to.deep.equal([7, 6, 5, 4, 3, 2, 1, 0]);
      expect((await answeredBy(server)).size, 'both workers answered').to.equal(2);
      expect((await call(server.baseUrl, key, 'GET', '/test', undefined, { connection: 'close' })).status).to.equal(429);
      expect((await call(server.baseUrl, key, 'GET', '/test', undefined, { connection: 'close' })).status).to.equal(429);
      // The admin token: one count across the workers too, judged by the supervisor with the admin limit.
      const adminRemaining: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        const res = await call(server.baseUrl, token, 'GET', '/admin/companies', undefined, { connection: 'close' });
        expect([res.status, res.headers.get('x-ratelimit-hourly-limit')]).to.deep.equal([200, '4']);
        adminRemaining.push(Number(res.headers.get('x-ratelimit-hourly-remaining')));
      }
      expect(adminRemaining).to.deep.equal([3, 2, 1, 0]);
      expect((await call(server.baseUrl, token, 'GET', '/admin/companies', undefined, { connection: 'close' })).status).to.equal(429);
      expect((await call(server.baseUrl, token, 'GET', '/admin/companies', undefined, { connection: 'close' })).status).to.equal(429);
      // Counted by the supervisor, in its memory: no worker opened the shared counters' file.
      expect(existsSync(join(dir.path, 'rate-limits.sqlite'))).to.equal(false);
    } finally {
      const code = await server.stop();
      dir.dispose();
      expect(code).to.equal(0);
    }
  });

  it("GET /metrics on PORT counts every worker's requests, whichever worker answers the scrape", async () => {
    const dir = tempDir('chronicle-workers-');
    const [key] = await seedKeys(dir.path);
    const server = await startServer({ DATA_DIR: dir.path, API_WORKERS: '2', LOG_LEVEL: 'info' });
    try {
      await eventually(async () => (await fetch(`${server.baseUrl}/ready`)).status === 200, 10_000, 50);
      const REQUESTS = 12;
      for (let i = 0; i < REQUESTS; i += 1) {
        expect((await call(server.baseUrl, key, 'GET', '/test', undefined, { connection: 'close' })).status).to.equal(200);
      }
      expect((await answeredBy(server, '"path":"/test"')).size, 'both workers answered').to.equal(2);
      const log = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
      const head = Number(await log.headPosition());
      await log.close();
      const series = 'chronicle_http_requests_total{method="GET",route="/test",status="200"}';
      for (let i = 0; i < 6; i += 1) {
        const scrape = await fetch(`${server.baseUrl}/metrics`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(5000) });
        expect(scrape.status).to.equal(200);
        const text = await scrape.text();
        // The requests of both workers, added up, at every scrape.
        expect(valueOf(text, series)).to.equal(REQUESTS);
        expect(text).to.match(/^chronicle_http_request_duration_seconds_count\{method="GET",route="\/test",status="200"\} 12$/m);
        // Every worker reads the same log: its head once, not the sum.
        expect(text).to.match(new RegExp(`^chronicle_log_head_position ${head}$`, 'm'));
      }
      expect((await answeredBy(server, '"path":"/metrics"')).size, 'both workers answered scrapes').to.equal(2);
    } finally {
      const code = await server.stop();
      dir.dispose();
      expect(code).to.equal(0);
    }
  });

  it('with BACKGROUND_PORT, the projections-and-webhooks process serves its /health, /ready and /metrics there, and nothing else', async () => {
    const dir = tempDir('chronicle-workers-');
    const backgroundPort = await freePort();
    const server = await startServer({ DATA_DIR: dir.path, API_WORKERS: '2', BACKGROUND_PORT: String(backgroundPort) });
    try {
      const background = new RegExp(`projections and webhooks in process (\\d+), its probes and metrics on port ${backgroundPort}\\)`).exec(server.output());
      expect(background, server.output()).not.to.equal(null);
      const probes = `http://127.0.0.1:${backgroundPort}`;
      expect((await fetch(`${probes}/health`)).status).to.equal(200);
      expect((await fetch(`${probes}/ready`)).status).to.equal(200);
      const metrics = await (await fetch(`${probes}/metrics`)).text();
      expect(metrics).to.contain('chronicle_projection_caught_up{subscription="read-models"} 1');
      expect(metrics).to.contain('chronicle_webhook_outbox_rows{state="pending"} 0');
      expect((await fetch(`${probes}/contacts`)).status, 'no resource routes').to.equal(404);
      const ports = listeningPorts(Number(background![1]));
      if (ports !== null) expect(ports).to.deep.equal([backgroundPort]);
    } finally {
      const code = await server.stop();
      dir.dispose();
      expect(code).to.equal(0);
    }
  });

  it('a start that fails exits non-zero and leaves nothing running', async () => {
    const dir = tempDir('chronicle-workers-');
    try {
      // The API worker fails to read the TLS files (the background process, listening on no port, reads none);
      // `close` comes only once every process holding the output has exited.
      const run = await runCli(['serve'], { DATA_DIR: dir.path, PORT: '0', API_WORKERS: '2', TLS_CERT_FILE: `${dir.path}/none.pem`, TLS_KEY_FILE: `${dir.path}/none.key` });
      expect(run.code).to.equal(1);
      expect(run.stderr).to.contain('api-1 exited with code 2 before its start completed');
      // Every process ended by itself (the worker's IPC channel to the supervisor does not keep it alive), none at the CLI's bound.
      expect(run.stderr).not.to.contain(LEFT_RUNNING);
    } finally {
      dir.dispose();
    }
  });
});
