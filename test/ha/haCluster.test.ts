import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { webhookEventId } from '../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';
import {
  haClusterUnavailable,
  linkNames,
  namespaceNames,
  postmasterPid,
  processesMentioning,
  processRuns,
  processUid,
  queryOnce,
  startHaCluster,
  type ClusterMember,
  type HaCluster,
} from '../support/haCluster.js';

// The HA cluster of scripts/ha-cluster.sh (Patroni, etcd, HAProxy; one test host per node), and
// Chronicle on it: two API processes, a projector and a webhook dispatcher, under a bounded write
// load, through faults of the primary. Asserted: no 500, every 201 readable through both API
// processes, the read models and the outbox holding every event of the final log in order and
// nothing else. How many requests failed, and for how long writes were refused, is printed, never
// asserted.

/** artifacts/ at the checkout's root (dist/test/ha/ is three folders down). */
const ARTIFACTS = fileURLToPath(new URL('../../../artifacts/', import.meta.url));

/** The postgres user's uid (Debian's postgresql package makes it). */
const postgresUid = (): number => Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());

/** An answer of Chronicle, or the error that stood for one (a refused or dropped connection). */
interface Answer {
  readonly at: number;
  /** How long it took, in ms. */
  readonly ms: number;
  readonly status: number | string;
  readonly retryAfter: string | null;
  /** X-Log-Position, on a write. */
  readonly position?: string | null;
  readonly body: any;
}

const ask = async (baseUrl: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
  const at = Date.now();
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    return { at, ms: Date.now() - at, status: res.status, retryAfter: res.headers.get('retry-after'), position: res.headers.get('x-log-position'), body: parsed };
  } catch (error) {
    return { at, ms: Date.now() - at, status: (error as Error).name === 'TimeoutError' ? 'timeout' : 'connection error', retryAfter: null, body: String(error) };
  }
};

/**
 * A client that honours Retry-After: a 503, 429 or 409 with Retry-After is sent again after that many
 * seconds (at most 5); a dropped connection or a 5xx again after a second (a POST carries an
 * Idempotency-Key, so sending it again is safe). Every answer is kept, the last one is the outcome.
 */
const askRetrying = async (
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  attempts = 40,
  extraHeaders: Record<string, string> = {},
): Promise<Answer[]> => {
  const headers: Record<string, string> = { ...(method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {}), ...extraHeaders };
  const answers: Answer[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const answer = await ask(baseUrl, key, method, path, body, headers);
    answers.push(answer);
    everyAnswer.push(answer);
    const status = answer.status;
    if (typeof status === 'number' && status < 500 && !(answer.retryAfter !== null && (status === 429 || status === 409))) return answers;
    const wait = answer.retryAfter !== null && /^\d+$/.test(answer.retryAfter) ? Math.min(Number(answer.retryAfter), 5) * 1000 : 1000;
    await sleep(wait);
  }
  return answers;
};

const tally = (answers: readonly Answer[]): string => {
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(String(answer.status), (counts.get(String(answer.status)) ?? 0) + 1);
  return [...counts.entries()].map(([status, count]) => `${status}×${count}`).join(', ') || 'none';
};

/** The distinct failures among answers (status, code and message), each with how many times it came. */
const describeFailures = (answers: readonly Answer[]): string[] => {
  const distinct = new Map<string, number>();
  for (const answer of answers) {
    if (answer.status === 200 || answer.status === 201) continue;
    const body = (typeof answer.body === 'object' && answer.body !== null ? `${answer.body.code ?? ''} ${answer.body.message ?? ''}`.trim() : String(answer.body).slice(0, 160)).replace(
      /request id \S+/,
      'request id …',
    );
    const said = `${answer.status}${answer.retryAfter ? ` (Retry-After ${answer.retryAfter})` : ''}: ${body}`;
    distinct.set(said, (distinct.get(said) ?? 0) + 1);
  }
  return [...distinct.entries()].map(([said, count]) => `${count}× ${said}`);
};

/** The distinct messages of the warnings and errors a server logged (pino's JSON lines) in `output`. */
const loggedProblems = (output: string): string[] => {
  const distinct = new Map<string, number>();
  for (const text of output.split('\n')) {
    try {
      const entry = JSON.parse(text) as { level?: number; msg?: string; method?: string; path?: string; err?: { message?: string; stack?: string } };
      if ((entry.level ?? 0) < 40) continue;
      // Where an unexpected error came from: the request, and the first frame of Chronicle's own code.
      const request = entry.method && entry.path && entry.level! >= 50 ? ` ${entry.method} ${entry.path}` : '';
      const frames = [...(entry.err?.stack ?? '').matchAll(/at .*?(\/src\/\S+?:\d+)/g)].map((match) => match[1]!);
      const frame = entry.level! >= 50 ? (frames.find((found) => !/\/postgres(Pool|Errors)\.js/.test(found)) ?? frames[0]) : undefined;
      const said = `${entry.level === 40 ? 'warn' : 'error'}:${request} ${entry.msg ?? ''}${entry.err?.message ? ` (${entry.err.message.slice(0, 120)})` : ''}${frame ? ` at ${frame}` : ''}`;
      distinct.set(said, (distinct.get(said) ?? 0) + 1);
    } catch {
      // Not a log line.
    }
  }
  return [...distinct.entries()].map(([said, count]) => `${count}× ${said}`);
};

/** Each load's contacts get phone numbers of their own (they are unique within a company). */
let loadSerial = 0;

/** Every answer Chronicle gave in the suite, for the check that none was a 500. */
const everyAnswer: Answer[] = [];

/** A bounded write load on Chronicle: one POST /contacts at a time, every `everyMs`, each sent once, to each API process in turn; `stop` ends it. */
const writeLoad = (baseUrls: readonly string[], key: string, everyMs = 100) => {
  const answers: (Answer & { name: string })[] = [];
  let running = true;
  const done = (async () => {
    while (running && answers.length < 3000) {
      const name = `Load ${randomUUID().slice(0, 8)}`;
      const answer = await ask(baseUrls[answers.length % baseUrls.length]!, key, 'POST', '/contacts', {
        name,
        phoneNumber: `+1 555 ${String(loadSerial++).padStart(7, '0')}`,
      });
      answers.push({ ...answer, name });
      everyAnswer.push(answer);
      await sleep(everyMs);
    }
  })();
  return {
    answers,
    stop: async () => {
      running = false;
      await done;
    },
  };
};

/** From `from` (else the first refused write) to the first write accepted after the last refused one, in ms (0: none refused). */
const refusedFor = (answers: readonly Answer[], from?: number): { refused: number; window: number } => {
  const first = answers.findIndex((answer) => answer.status !== 201);
  if (first < 0) return { refused: 0, window: 0 };
  let lastRefused = first;
  answers.forEach((answer, index) => {
    if (answer.status !== 201) lastRefused = index;
  });
  const next = answers[lastRefused + 1];
  return { refused: answers.filter((answer) => answer.status !== 201).length, window: (next?.at ?? Date.now()) - (from ?? answers[first]!.at) };
};

const waitFor = async <T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== null) return value;
    } catch (error) {
      last = error;
    }
    await sleep(200);
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000}s${last ? ` (last error: ${String(last)})` : ''}`);
};

/** The address of the server a URL's connections reach, and whether it is a replica. */
const serverBehind = async (url: string): Promise<{ address: string; inRecovery: boolean }> => {
  const [row] = await queryOnce<{ address: string; in_recovery: boolean }>(url, 'SELECT host(inet_server_addr()) AS address, pg_is_in_recovery() AS in_recovery');
  return { address: row!.address, inRecovery: row!.in_recovery };
};

const leaderOf = (members: readonly ClusterMember[]): ClusterMember | undefined => members.find((member) => member.role === 'leader' && member.state === 'running');

const unavailable = haClusterUnavailable();
if (unavailable !== null) {
  console.log(`  skipped: the HA cluster suite (${unavailable}; see docs/operators/high-availability.md)`);
} else {
  describe('the HA cluster (scripts/ha-cluster.sh): Patroni, etcd and HAProxy, and Chronicle on it', function () {
    this.timeout(240_000);
    let cluster: HaCluster;
    /** API process 1 (it made the demo key), and the others: API process 2, the projector, the dispatcher. */
    let server: ServerProcess | null = null;
    const others: { readonly name: string; readonly process: ServerProcess }[] = [];
    const apiUrls = (): string[] => [server!.baseUrl, ...others.filter((other) => other.name === 'api-2').map((other) => other.process.baseUrl)];
    /** Where each process's output stands now, for what they logged from then on. */
    const outputMark = (): number[] => [server!.output().length, ...others.map((other) => other.process.output().length)];
    const outputSince = (mark: readonly number[]): string =>
      [server!.output().slice(mark[0]), ...others.map((other, i) => other.process.output().slice(mark[i + 1] ?? 0))].join('\n');
    /** The local webhook receiver: every delivery's webhook-id (the event's id). */
    const received: string[] = [];
    let receiver: Server | null = null;
    let key = '';
    const dataDir = tempDir('chronicle-ha-data-');
    /** The other processes' data folders (API process 2, the projector, the dispatcher). */
    const folders = ['api-2', 'projector', 'dispatcher'].map((name) => ({ name, dir: tempDir(`chronicle-ha-${name}-`) }));
    /** Every contact Chronicle answered 201 for, by id: each must stay readable. */
    const acknowledged = new Map<string, string>();

    /** The leader and its synchronous standby, once both run (a node that just rejoined may not be one yet). */
    const leaderAndStandby = () =>
      waitFor('a leader with a synchronous standby', 60_000, async () => {
        const members = await cluster.members();
        const [leader, standby] = [leaderOf(members), members.find((member) => member.role === 'sync_standby' && member.state === 'running')];
        return leader && standby ? { leader, standby } : null;
      });

    before(async function () {
      this.timeout(360_000);
      const started = Date.now();
      cluster = await startHaCluster();
      console.log(`      cluster started in ${((Date.now() - started) / 1000).toFixed(1)} s (${cluster.dir})`);
    });

    /** Where the daemons' logs and Chronicle's output are kept after the suite (CI keeps artifacts/). */
    const saveLogs = () => {
      if (!cluster) return;
      const dest = join(ARTIFACTS, 'ha');
      cluster.saveLogs(dest);
      if (server) writeFileSync(join(dest, 'chronicle.log'), server.output());
      for (const other of others) writeFileSync(join(dest, `chronicle-${other.name}.log`), other.process.output());
      console.log(`      the cluster's and Chronicle's logs: ${dest}`);
    };

    after(async function () {
      this.timeout(180_000);
      saveLogs();
      if (server) await server.stop();
      for (const other of others.splice(0)) await other.process.stop();
      receiver?.close();
      await cluster?.stop();
      dataDir.dispose();
      for (const folder of folders) folder.dir.dispose();
    });

    it('prints a write URL, a read URL and three nodes, each a Patroni running as postgres with a REST API reachable from here', async () => {
      expect(cluster.writeUrl).to.match(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      expect(cluster.readUrl).to.match(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      expect(cluster.readUrl).not.to.equal(cluster.writeUrl);
      expect(cluster.nodes.map((node) => node.name)).to.deep.equal(['n1', 'n2', 'n3']);
      expect(cluster.namespaces).to.have.length(3);
      for (const node of cluster.nodes) {
        expect(processRuns(node.patroniPid), `${node.name}'s Patroni runs`).to.equal(true);
        expect(processUid(node.patroniPid), `${node.name}'s Patroni runs as postgres`).to.equal(postgresUid());
        const postmaster = postmasterPid(node.dataDir);
        expect(postmaster, `${node.name} has a postmaster`).to.be.a('number');
        expect(processUid(postmaster!), `${node.name}'s postmaster runs as postgres`).to.equal(postgresUid());
        const res = await fetch(`${node.restUrl}/patroni`, { signal: AbortSignal.timeout(3_000) });
        expect(res.status).to.be.oneOf([200, 503]);
        expect(((await res.json()) as { state: string }).state).to.equal('running');
      }
      const members = await cluster.members();
      expect(members.filter((member) => member.role === 'leader')).to.have.length(1);
      expect(members.filter((member) => member.role === 'sync_standby'), 'synchronous_mode: one synchronous standby').to.have.length(1);
    });

    it('writes through POSTGRES_URL land on the leader, synchronously replicated; reads through POSTGRES_READ_URL come from replicas', async () => {
      const leader = leaderOf(await cluster.members())!;
      const writer = await serverBehind(cluster.writeUrl);
      expect(writer).to.deep.equal({ address: leader.host, inRecovery: false });
      const [sync] = await queryOnce<{ sync_state: string }>(cluster.writeUrl, "SELECT sync_state FROM pg_stat_replication WHERE sync_state = 'sync'");
      expect(sync, 'the primary has a synchronous standby').to.deep.equal({ sync_state: 'sync' });

      const marker = randomUUID();
      await queryOnce(cluster.writeUrl, 'CREATE TABLE IF NOT EXISTS ha_probe (marker text PRIMARY KEY)');
      await queryOnce(cluster.writeUrl, 'INSERT INTO ha_probe (marker) VALUES ($1)', [marker]);
      const seenOn = new Set<string>();
      // Round-robin over both replicas: each is asked until both have shown the row.
      await waitFor('the row on both replicas', 20_000, async () => {
        const [row] = await queryOnce<{ address: string; in_recovery: boolean; found: boolean }>(
          cluster.readUrl,
          'SELECT host(inet_server_addr()) AS address, pg_is_in_recovery() AS in_recovery, EXISTS (SELECT 1 FROM ha_probe WHERE marker = $1) AS found',
          [marker],
        );
        expect(row!.in_recovery, 'the read port reaches replicas only').to.equal(true);
        expect(row!.address).not.to.equal(leader.host);
        if (row!.found) seenOn.add(row!.address);
        return seenOn.size === 2 ? true : null;
      });
      const refused = await queryOnce(cluster.readUrl, 'INSERT INTO ha_probe (marker) VALUES ($1)', [randomUUID()]).then(
        () => 'written',
        (error: Error) => error.message,
      );
      expect(refused).to.match(/read-only transaction/);
    });

    it('a planned switchover moves the primary to the synchronous standby, and the write port follows', async () => {
      const { leader, standby: candidate } = await leaderAndStandby();
      const started = Date.now();
      const said = await cluster.switchover(leader.name, candidate.name);
      expect(said).to.match(/Successfully switched over/);
      const switched = Date.now();
      await waitFor('the write port on the new primary', 60_000, async () => {
        const writer = await serverBehind(cluster.writeUrl);
        return writer.address === candidate.host && !writer.inRecovery ? writer : null;
      });
      const following = Date.now();
      await queryOnce(cluster.writeUrl, 'INSERT INTO ha_probe (marker) VALUES ($1)', [randomUUID()]);
      expect(leaderOf(await cluster.members())?.name).to.equal(candidate.name);
      console.log(
        `      switchover ${leader.name} → ${candidate.name}: patronictl took ${((switched - started) / 1000).toFixed(1)} s, the write port followed ${((following - switched) / 1000).toFixed(1)} s later`,
      );
      // The old primary comes back as a replica.
      await waitFor(`${leader.name} a running replica`, 90_000, async () =>
        (await cluster.members()).some((member) => member.name === leader.name && member.role !== 'leader' && member.state === 'running') ? true : null,
      );
    });

    it('Chronicle on the cluster serves POST and GET /contacts before, during and after a switchover (printed: what it answered meanwhile)', async () => {
      receiver = createServer((req, res) => {
        const id = req.headers['webhook-id'];
        if (typeof id === 'string') received.push(id);
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
      });
      await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
      const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
      const env = (role: 'api' | 'projector' | 'dispatcher', folder: string) => ({
        POSTGRES_URL: cluster.writeUrl,
        POSTGRES_POOL_SIZE: '4',
        DATA_DIR: folder,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        // An attempt that fails while the primary moves (its record cannot be written) is tried again soon.
        WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,4000',
        WEBHOOK_PAUSE_DELAYS_MS: '1000',
        // The suite's loads and reads are far more than an hour's default quota of one key.
        RATE_LIMIT_HOURLY: '1000000',
        RATE_LIMIT_DAILY: '1000000',
        RUN_API: String(role === 'api'),
        RUN_PROJECTIONS: String(role === 'projector'),
        RUN_WEBHOOKS: String(role === 'dispatcher'),
      });
      // The projector and the first API process together (the API process makes the demo key; the projector applies it).
      const [projector, first] = await Promise.all([startServer(env('projector', folders[1]!.dir.path)), startServer(env('api', dataDir.path))]);
      server = first;
      others.push({ name: 'projector', process: projector });
      // The second API process reads its GETs from the replicas (HAProxy's read port).
      others.push({ name: 'api-2', process: await startServer({ ...env('api', folders[0]!.dir.path), POSTGRES_READ_URL: cluster.readUrl }) });
      others.push({ name: 'dispatcher', process: await startServer(env('dispatcher', folders[2]!.dir.path)) });
      key = /API key (chr_\S+)/.exec(server.output())?.[1] ?? '';
      expect(key, server.output()).to.match(/^chr_/);
      const subscribed = await askRetrying(server.baseUrl, key, 'POST', '/webhooks/subscribe', { event: 'contact.created', target_url: receiverUrl });
      expect(subscribed.at(-1)!.status, JSON.stringify(subscribed.at(-1)!.body)).to.equal(201);

      const create = async (name: string, phoneNumber: string) => {
        const answers = await askRetrying(server!.baseUrl, key, 'POST', '/contacts', { name, phoneNumber });
        const last = answers.at(-1)!;
        expect(last.status, `POST /contacts: ${tally(answers)}\n${describeFailures(answers).join('\n')}`).to.equal(201);
        acknowledged.set(last.body.data.id, name);
        return { id: last.body.data.id as string, answers };
      };
      const read = async (id: string) => {
        const answers = await askRetrying(server!.baseUrl, key, 'GET', `/contacts/${id}`);
        return { last: answers.at(-1)!, answers };
      };

      const before = await create('Before Switchover', '+44 20 7946 1000');
      expect((await read(before.id)).last.body.data.name).to.equal('Before Switchover');

      // A Retry-After client keeps writing and reading through the switch.
      const { leader, standby: candidate } = await leaderAndStandby();
      const during: Answer[][] = [];
      let writing = true;
      const client = (async () => {
        for (let n = 0; writing && n < 200; n++) {
          const api = apiUrls()[n % 2]!;
          const created = await askRetrying(api, key, 'POST', '/contacts', { name: `During ${n}`, phoneNumber: `+44 20 7946 ${String(2000 + n)}` });
          during.push(created);
          const last = created.at(-1)!;
          if (last.status === 201) {
            acknowledged.set(last.body.data.id, `During ${n}`);
            during.push(await askRetrying(api, key, 'GET', `/contacts/${last.body.data.id}`));
          }
          await sleep(100);
        }
      })();
      await sleep(1_000);
      const logged = outputMark();
      const switchStarted = Date.now();
      await cluster.switchover(leader.name, candidate.name);
      await waitFor('the write port on the new primary', 60_000, async () => ((await serverBehind(cluster.writeUrl)).address === candidate.host ? true : null));
      await sleep(3_000);
      writing = false;
      await client;
      const inSwitch = during.filter((answers) => answers.at(-1)!.at >= switchStarted);
      const succeeded = inSwitch.filter((answers) => [200, 201].includes(answers.at(-1)!.status as number)).length;
      console.log(`      switchover ${leader.name} → ${candidate.name} with a Retry-After client writing and reading through Chronicle:`);
      console.log(`        ${succeeded} of ${inSwitch.length} requests succeeded in the end; every answer, retries included: ${tally(inSwitch.flat())}`);
      const { window } = refusedFor(
        inSwitch
          .flat()
          .filter((answer) => answer.status !== 200)
          .sort((a, b) => a.at - b.at),
      );
      console.log(`        from the first refused answer to the next 201: ${(window / 1000).toFixed(1)} s`);
      for (const failure of describeFailures(inSwitch.flat())) console.log(`        ${failure}`);
      for (const problem of loggedProblems(outputSince(logged))) console.log(`        logged ${problem}`);

      expect(succeeded, 'every request of a client that honours Retry-After succeeds through a planned switchover').to.equal(inSwitch.length);
      const after = await create('After Switchover', '+44 20 7946 3000');
      expect((await read(after.id)).last.body.data.name).to.equal('After Switchover');
      await expectNothingLost('the switchover');
    });

    /**
     * Runs a fault on the primary under a bounded load of Chronicle writes; waits for a new leader, a write
     * accepted through POSTGRES_URL, and Chronicle accepting writes again for 3 s; prints what it saw.
     */
    const primaryLost = async (label: string, fault: (leader: ClusterMember) => Promise<void>, { inPlace = false } = {}) => {
      const { leader, standby } = await leaderAndStandby();
      const load = writeLoad(apiUrls(), key);
      await sleep(1_500);
      const logged = outputMark();
      const faultAt = Date.now();
      await fault(leader);

      // Writes straight through HAProxy's write port, each on a new connection, until one is accepted.
      const accepted = await waitFor('a write accepted through POSTGRES_URL', 90_000, async () => {
        await queryOnce(cluster.writeUrl, 'INSERT INTO ha_probe (marker) VALUES ($1)', [randomUUID()]);
        return Date.now();
      });
      const newLeader = await waitFor(inPlace ? 'a leader' : 'a new leader', 30_000, async () => {
        const found = leaderOf(await cluster.members());
        return found && (inPlace || found.name !== leader.name) ? found : null;
      });
      // The load goes on until Chronicle has accepted every write for 3 s (at most 60 s more).
      await waitFor('Chronicle accepting writes for 3 s', 60_000, async () => {
        const recent = load.answers.filter((answer) => answer.at > Date.now() - 3_000);
        return Date.now() - faultAt > 5_000 && recent.length >= 5 && recent.every((answer) => answer.status === 201) ? true : null;
      }).catch((error: Error) => console.log(`      ${error.message}`));
      await load.stop();

      // Every answer that came after the fault (a request sent before it may have waited through it).
      const afterFault = load.answers.filter((answer) => answer.at + answer.ms >= faultAt);
      const accepted201 = load.answers.filter((answer) => answer.status === 201).map((answer) => answer.at + answer.ms);
      const gap = accepted201.reduce(
        (widest, end, i) => (i > 0 && end >= faultAt ? Math.max(widest, end - Math.max(accepted201[i - 1]!, faultAt)) : widest),
        0,
      );
      const { refused, window } = refusedFor(afterFault, faultAt);
      console.log(`      ${label} (${leader.name}); ${newLeader.name === leader.name ? `${leader.name} leads again` : `${newLeader.name} took over`}`);
      console.log(`        a write through POSTGRES_URL was accepted again ${((accepted - faultAt) / 1000).toFixed(1)} s after`);
      console.log(`        Chronicle under a bounded load (one POST /contacts at a time, 100 ms apart), from then on: ${tally(afterFault)}`);
      console.log(`        Chronicle refused ${refused} writes; its first write accepted after the last refused one came ${(window / 1000).toFixed(1)} s after the fault`);
      const slowest = afterFault.reduce((most, answer) => Math.max(most, answer.ms), 0);
      console.log(
        `        no write was accepted for ${(gap / 1000).toFixed(1)} s from the fault (refused, or waiting); the slowest answer took ${(slowest / 1000).toFixed(1)} s`,
      );
      for (const failure of describeFailures(afterFault)) console.log(`        ${failure}`);
      for (const problem of loggedProblems(outputSince(logged))) console.log(`        logged ${problem}`);
      for (const answer of load.answers) if (answer.status === 201) acknowledged.set(answer.body.data.id, answer.name);
      return { leader, standby, newLeader };
    };

    /** Every contact Chronicle acknowledged reads back, with its name, through both API processes. */
    const expectNothingLost = async (after: string) => {
      const lost: string[] = [];
      // Read as a client that wrote through another process reads its writes: with their position (here the log's head,
      // which covers them all). The second API process reads from the replicas, which may trail the new primary.
      const [head] = await queryOnce<{ position: string }>(cluster.writeUrl, 'SELECT max(position)::text AS position FROM log_events');
      const readYourWrites: Record<string, string> = head?.position ? { 'X-Min-Log-Position': head.position } : {};
      for (const [id, name] of acknowledged) {
        for (const api of apiUrls()) {
          const answers = await askRetrying(api, key, 'GET', `/contacts/${id}`, undefined, 40, readYourWrites);
          if (answers.at(-1)!.status === 200 && answers.at(-1)!.body.data.name === name) continue;
          // In the log (a read model behind), or not (a write lost)?
          const [inLog] = await queryOnce<{ count: string }>(cluster.writeUrl, 'SELECT count(*) AS count FROM log_events WHERE stream LIKE $1', [`%${id}%`]).catch(() => [
            { count: '?' },
          ]);
          lost.push(`${name} (${id}, its events in the log: ${inLog!.count}) through ${api}: ${tally(answers)}`);
        }
      }
      expect(lost, `acknowledged contacts unreadable after ${after} (of ${acknowledged.size})`).to.deep.equal([]);
      console.log(`        all ${acknowledged.size} acknowledged contacts readable through both API processes after ${after}`);
    };

    it('kill -9 of the primary’s postmaster: Patroni starts it again in place, and Chronicle rides through (printed: what it answered)', async () => {
      await primaryLost(
        "killed the primary's postmaster (kill -9)",
        async (leader) => {
          const node = cluster.nodes.find((candidate) => candidate.name === leader.name)!;
          const postmaster = postmasterPid(node.dataDir)!;
          expect(processRuns(postmaster), 'the primary’s postmaster runs').to.equal(true);
          process.kill(postmaster, 'SIGKILL');
        },
        { inPlace: true },
      );
      await expectNothingLost('the postmaster’s restart');
    });

    it('the primary cut off the network: a replica takes over, the write port follows; joined again, the old primary comes back as a replica', async () => {
      const { leader, standby, newLeader } = await primaryLost('cut the primary off the network', (leader) => cluster.cut(leader.name));
      expect(newLeader.name, 'in synchronous_mode, only the synchronous standby may take over').to.equal(standby.name);
      await cluster.restore(leader.name);
      await waitFor(`${leader.name} a running replica again`, 120_000, async () =>
        (await cluster.members()).some((member) => member.name === leader.name && member.role !== 'leader' && member.state === 'running') ? true : null,
      );
      await expectNothingLost('the partition');
    });

    /** API process 2's `chronicle_replica_reads_total`, by where its GETs read. */
    const replicaReads = async (): Promise<Record<string, number>> => {
      const api2 = others.find((other) => other.name === 'api-2')!.process;
      const text = await (await fetch(`${api2.baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
      const counts: Record<string, number> = {};
      for (const match of text.matchAll(/^chronicle_replica_reads_total\{read_from="(\w+)"\} (\d+)/gm)) counts[match[1]!] = Number(match[2]);
      return counts;
    };

    it('kill -9 of a replica’s postmaster: Patroni starts it again, and the API process reading from the replicas answers every read meanwhile (printed: where its reads went)', async () => {
      const members = await waitFor('an asynchronous replica running', 120_000, async () => {
        const found = await cluster.members();
        return found.some((member) => member.role === 'replica' && member.state === 'running') ? found : null;
      });
      const replica = members.find((member) => member.role === 'replica' && member.state === 'running')!;
      const node = cluster.nodes.find((candidate) => candidate.name === replica.name)!;
      const api2 = others.find((other) => other.name === 'api-2')!.process;
      const ids = [...acknowledged.keys()].slice(-20);
      const before = await replicaReads();
      const load = writeLoad(apiUrls(), key);
      const postmaster = postmasterPid(node.dataDir)!;
      expect(processRuns(postmaster), 'the replica’s postmaster runs').to.equal(true);
      const killedAt = Date.now();
      process.kill(postmaster, 'SIGKILL');
      // Reads through API process 2 while the replica is away and until Patroni has it running again.
      const reads: Answer[] = [];
      let back = false;
      const reading = (async () => {
        for (let n = 0; !back && n < 2000; n++) {
          reads.push(...(await askRetrying(api2.baseUrl, key, 'GET', `/contacts/${ids[n % ids.length]}`)));
          reads.push(...(await askRetrying(api2.baseUrl, key, 'GET', '/contacts?limit=5')));
          await sleep(50);
        }
      })();
      await waitFor(`${replica.name} running again`, 120_000, async () =>
        (await cluster.members()).some((member) => member.name === replica.name && member.state === 'running' && processRuns(postmasterPid(node.dataDir) ?? -1)) ? true : null,
      );
      const runningAgain = Date.now();
      await sleep(3_000);
      back = true;
      await reading;
      await load.stop();
      for (const answer of load.answers) if (answer.status === 201) acknowledged.set(answer.body.data.id, answer.name);
      const after = await replicaReads();
      const moved = (label: string) => (after[label] ?? 0) - (before[label] ?? 0);
      console.log(`      killed ${replica.name}'s postmaster (kill -9); Patroni had it running again ${((runningAgain - killedAt) / 1000).toFixed(1)} s after`);
      console.log(`        reads through API process 2 meanwhile: ${tally(reads)}; its GETs read from the replicas ${moved('replica')}, from the primary ${moved('primary_unavailable')} (a replica failed) and ${moved('primary_lag')} (one was behind)`);
      console.log(`        writes meanwhile: ${tally(load.answers)}`);
      expect(reads.filter((answer) => answer.status !== 200), 'every read through the API process reading from the replicas answered 200').to.deep.equal([]);
      expect(load.answers.filter((answer) => answer.status !== 201).map((answer) => `${answer.status}`), 'a replica’s loss refuses no write').to.deep.equal([]);
      await expectNothingLost('a replica’s restart');
    });

    it('kill -9 of the primary’s Patroni and postmaster: the synchronous standby takes over, writes are accepted again, nothing acknowledged is lost (printed: what Chronicle answered)', async () => {
      const { standby, newLeader } = await primaryLost("killed the primary's Patroni and postmaster (kill -9)", async (leader) => {
        const node = cluster.nodes.find((candidate) => candidate.name === leader.name)!;
        const postmaster = postmasterPid(node.dataDir)!;
        expect(processRuns(node.patroniPid) && processRuns(postmaster), 'the primary’s Patroni and postmaster run').to.equal(true);
        process.kill(node.patroniPid, 'SIGKILL');
        process.kill(postmaster, 'SIGKILL');
      });
      expect(newLeader.name, 'in synchronous_mode, only the synchronous standby may take over').to.equal(standby.name);
      await expectNothingLost('the failover');
    });

    it('after every fault: no request got a 500; the read models and the outbox hold every event of the final log in order, and no event it lacks', async () => {
      const errors = everyAnswer.filter((answer) => answer.status === 500);
      expect(errors.map((answer) => JSON.stringify(answer.body)), `${everyAnswer.length} answers`).to.deep.equal([]);
      const [head] = await queryOnce<{ position: string; id: string }>(cluster.writeUrl, 'SELECT position, id FROM log_events ORDER BY position DESC LIMIT 1');
      // The read models reach the log's head, and their checkpoint names the event the log holds there.
      const readModels = await waitFor('the read models at the head of the log', 60_000, async () => {
        const rows = await queryOnce<{ position: string; event_id: string | null; held: string | null }>(
          cluster.writeUrl,
          "SELECT c.position, c.event_id, (SELECT id FROM log_events WHERE position = c.position::bigint) AS held FROM read_models.checkpoints c WHERE c.name = 'read-models'",
        );
        return rows[0] && BigInt(rows[0].position) >= BigInt(head!.position) ? rows[0] : null;
      });
      expect(readModels.event_id, 'the read models’ checkpoint names the log’s event at its position').to.equal(readModels.held);
      // Every delivery settled, then: the subscription's outbox rows are exactly the log's contacts created since it subscribed, each at its event's position.
      await waitFor('every delivery settled', 90_000, async () => {
        const [row] = await queryOnce<{ pending: string }>(cluster.writeUrl, "SELECT count(*) AS pending FROM webhook_outbox WHERE state = 'pending'");
        return row!.pending === '0' ? true : null;
      });
      // The outbox's rows name the webhook event (an id derived from the stored event's): each must be one of the final log's contacts created, at its position.
      const created = await queryOnce<{ id: string; position: string }>(cluster.writeUrl, "SELECT id, position::text AS position FROM log_events WHERE type = 'ContactCreated'");
      const expected = new Map(created.map((row) => [webhookEventId(row.id, 'contact.created'), row.position]));
      const rows = await queryOnce<{ event_id: string; position: string }>(cluster.writeUrl, 'SELECT event_id, position::text AS position FROM webhook_outbox');
      const phantoms = rows.filter((row) => expected.get(row.event_id) !== row.position);
      expect(phantoms, 'outbox rows whose event the final log does not hold at their position').to.deep.equal([]);
      const [subscription] = await queryOnce<{ subscribed_at: string }>(cluster.writeUrl, 'SELECT subscribed_at::text AS subscribed_at FROM webhook_fan_out_subscriptions');
      const stored = new Set(rows.map((row) => row.event_id));
      const skipped = [...expected].filter(([id, position]) => BigInt(position) > BigInt(subscription!.subscribed_at) && !stored.has(id));
      expect(skipped, 'contacts created in the log after the subscription with no delivery').to.deep.equal([]);
      const [{ delivered, failed }] = (await queryOnce<{ delivered: string; failed: string }>(
        cluster.writeUrl,
        "SELECT count(*) FILTER (WHERE state = 'delivered') AS delivered, count(*) FILTER (WHERE state = 'failed') AS failed FROM webhook_outbox",
      )) as [{ delivered: string; failed: string }];
      const missing = [...new Set(received)].filter((id) => !expected.has(id));
      expect(missing, 'deliveries whose event id the final log lacks').to.deep.equal([]);
      console.log(
        `      ${everyAnswer.length} answers, none a 500; log head ${head!.position}; outbox: ${rows.length} rows (${delivered} delivered, ${failed} failed), none skipped, none of an event the log lacks; the receiver got ${received.length} deliveries of ${new Set(received).size} events (${received.length - new Set(received).size} again, as the same event id)`,
      );
    });

    it('stop leaves no process, namespace or link behind, and removes its folder', async () => {
      saveLogs();
      if (server) {
        await server.stop();
        server = null;
      }
      for (const other of others.splice(0)) await other.process.stop();
      const patronis = cluster.nodes.map((node) => node.patroniPid);
      await cluster.stop();
      expect(patronis.filter(processRuns), 'Patroni still running').to.deep.equal([]);
      expect(processesMentioning(cluster.dir), 'processes of the cluster still running').to.deep.equal([]);
      const namespaces = namespaceNames();
      expect(cluster.namespaces.filter((name) => namespaces.includes(name))).to.deep.equal([]);
      const links = linkNames();
      expect(cluster.links.filter((name) => links.includes(name))).to.deep.equal([]);
      expect(processesMentioning(cluster.dir)).to.deep.equal([]);
      expect(existsSync(cluster.dir)).to.equal(false);
    });
  });
}
