// The production topology on PostgreSQL, spread over test hosts, with faults: one
// projector, one dispatcher and two API processes, each on a host of its own (a network
// namespace, where the machine allows) with a DATA_DIR of its own, sharing only the
// database. While a bounded load writes through both API processes and a receiver on
// this machine counts deliveries, PostgreSQL is restarted, the dispatcher and then the
// projector are killed with SIGKILL (and started again, as an orchestrator would), and
// one API host is cut off for a while. Afterwards every write answered 201 is readable
// through both API processes, each subscription got every event of the log in order with
// nothing skipped (repeats only as the same webhook-id, of events already delivered), and the processes that lost the
// database answer /ready again without having been restarted.
import { expect } from 'chai';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { PostgresEventStore } from '../../src/adapters/postgres/PostgresEventStore.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { eventually, sleep } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { postgresServerInstalled, startPostgresCluster, type TestCluster } from '../support/postgresCluster.js';
import { migratedLogPool } from '../support/postgresLog.js';
import { startServer, type ServerProcess } from '../support/runCli.js';
import { seedCompanyWithKeys } from '../support/seedCompany.js';
import { tempDir } from '../support/tempStore.js';
import { openTestNetwork, type TestHost, type TestNetwork } from '../support/testHosts.js';
import { startReceiver, type Receiver } from '../unit/webhooks/delivery/support/receiver.js';
import { deriveWebhookEvents } from '../support/webhookEvents.js';

/** The load's bounds: at most this many creates, for at most this long. */
const MAX_WRITES = 600;
const MAX_LOAD_MS = 60_000;
/** Writers per API process, each one request at a time. */
const WRITERS_PER_API = 2;
/** Acknowledged writes between two faults (each wait bounded too). */
const WRITES_BETWEEN_FAULTS = 15;
const CUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 4_000;
const DATABASE = 'chronicle';

type Role = 'projector' | 'dispatcher' | 'api-a' | 'api-b';

const ROLE_ENV: Record<Role, NodeJS.ProcessEnv> = {
  projector: { RUN_API: 'false', RUN_WEBHOOKS: 'false' },
  dispatcher: { RUN_API: 'false', RUN_PROJECTIONS: 'false' },
  'api-a': { RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' },
  'api-b': { RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' },
};

interface Acknowledged {
  readonly contactId: string;
  readonly position: bigint;
}

interface Subscription {
  readonly id: string;
  readonly path: string;
  readonly secret: string;
}

/** First occurrences, in arrival order. */
const dedupe = (ids: readonly string[]): string[] => {
  const seen = new Set<string>();
  return ids.filter((id) => (seen.has(id) ? false : (seen.add(id), true)));
};

/** The webhook events a subscription must receive: its type's derived events after its WebhookSubscribed, in log order. */
const expectedFor = (log: readonly RecordedEvent[], sub: Subscription): Array<{ eventId: string; contactId: string }> => {
  const subscribed = log.find((e) => e.type === 'WebhookSubscribed' && (e.data as { subscriptionId: string }).subscriptionId === sub.id);
  if (!subscribed) throw new Error(`no WebhookSubscribed for ${sub.id}`);
  return log
    .filter((e) => BigInt(e.position) > BigInt(subscribed.position))
    .flatMap((e) => deriveWebhookEvents(e))
    .filter((d) => d.type === 'contact.created')
    .map((d) => ({ eventId: d.eventId, contactId: (d.data as { id: string }).id }));
};

const fetchWithin = (url: string, init: RequestInit = {}, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Response> =>
  fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });

const readyStatus = async (server: ServerProcess): Promise<number> => {
  try {
    return (await fetchWithin(`${server.baseUrl}/ready`, {}, 3_000)).status;
  } catch {
    return 0;
  }
};

/** What /ready answers (status and body), for a failure's message. */
const readyAnswer = async (server: ServerProcess): Promise<string> => {
  const { exitCode, signalCode } = server.child;
  if (exitCode !== null || signalCode !== null) return `exited (${exitCode ?? signalCode}):\n${server.output().slice(-3000)}`;
  try {
    const res = await fetchWithin(`${server.baseUrl}/ready`, {}, 3_000);
    return `${res.status} ${await res.text()}`;
  } catch (error) {
    return String(error);
  }
};

/** Waits until every one answers /ready with 200, or `ms` have passed; answers whether they did. */
const waitForReady = async (servers: readonly ServerProcess[], ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  do {
    if ((await Promise.all(servers.map(readyStatus))).every((status) => status === 200)) return true;
    await sleep(100);
  } while (Date.now() < deadline);
  return false;
};

/** Waits until `condition` holds or `ms` have passed; answers whether it held. */
const waitFor = async (condition: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await sleep(20);
  return condition();
};

if (!postgresTestUrl()) {
  skipLine('PostgreSQL topology across test hosts, with faults', 'POSTGRES_TEST_URL');
} else if (!postgresServerInstalled()) {
  console.log('  skipped: PostgreSQL topology across test hosts, with faults (no PostgreSQL server under /usr/lib/postgresql to restart)');
} else {
  describe('PostgreSQL topology across test hosts: projector, dispatcher, two API processes; PostgreSQL restarted, kill -9, a host cut off', function () {
    this.timeout(150_000);
    let network: TestNetwork | null = null;
    let cluster: TestCluster | null = null;
    let receiver: Receiver | null = null;
    const hosts = new Map<Role, TestHost>();
    const servers = new Map<Role, ServerProcess>();
    const started: ServerProcess[] = [];
    const dataDirs = new Map<Role, ReturnType<typeof tempDir>>();

    const envFor = (role: Role): NodeJS.ProcessEnv => {
      const host = hosts.get(role)!;
      return {
        ...ROLE_ENV[role],
        POSTGRES_URL: `postgres://postgres@${host.postgresAt.host}:${host.postgresAt.port}/${DATABASE}`,
        POSTGRES_POOL_SIZE: '4',
        DATA_DIR: dataDirs.get(role)!.path,
        HOST: host.address,
        LOG_LEVEL: 'warn',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '5000',
        WEBHOOK_RETRY_DELAYS_MS: '100,200,400,800,1600',
        READ_YOUR_WRITES_TIMEOUT_MS: '1000',
        READY_MAX_LAG_MS: '3000',
        RATE_LIMIT_HOURLY: '1000000',
        RATE_LIMIT_DAILY: '1000000',
        RATE_LIMIT_CONCURRENT: '100',
      };
    };

    /** Starts (or starts again, as an orchestrator would) a role's process on its host. */
    const start = async (role: Role): Promise<ServerProcess> => {
      const server = await startServer(envFor(role), { prefix: hosts.get(role)!.prefix });
      started.push(server);
      servers.set(role, server);
      return server;
    };

    const kill9 = async (role: Role): Promise<void> => {
      const server = servers.get(role)!;
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGKILL');
      await exited;
    };

    before(async function () {
      this.timeout(60_000);
      network = openTestNetwork();
      console.log(
        network.mode === 'namespaces'
          ? `      test hosts: network namespaces on ${network.network}, PostgreSQL and the receiver on ${network.gateway}`
          : `      test hosts: processes on loopback (${network.reason}); a cut stops a host's database proxy`,
      );
      cluster = await startPostgresCluster(network.mode === 'namespaces' ? { listen: [network.gateway], trust: network.network! } : {});
      const admin = new pg.Client({ connectionString: cluster.url() });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${DATABASE}`).finally(() => admin.end());
      for (const role of Object.keys(ROLE_ENV) as Role[]) {
        hosts.set(role, await network.addHost(role, cluster.port));
        dataDirs.set(role, tempDir(`chronicle-${role}-`));
      }
      receiver = await startReceiver(network.gateway);
    });

    after(async function () {
      this.timeout(60_000);
      // Every step on its own, whatever failed before it; a host cut off is joined again first, so that its processes can end their connections.
      await network?.restoreAll().catch(() => undefined);
      await Promise.all(
        started.map(async (server) => {
          if (server.child.exitCode !== null || server.child.signalCode !== null) return;
          const exited = new Promise((resolve) => server.child.once('exit', resolve));
          server.child.kill('SIGTERM');
          if (!(await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]))) {
            server.child.kill('SIGKILL');
            await exited;
          }
        }),
      );
      await receiver?.close().catch(() => undefined);
      await network?.dispose().catch((error: unknown) => console.log(`      test network not removed: ${String(error)}`));
      await cluster?.stop().catch((error: unknown) => console.log(`      test cluster not stopped: ${String(error)}`));
      dataDirs.forEach((dir) => dir.dispose());
    });

    it('keeps every acknowledged write readable everywhere and every event delivered in order, and the processes recover by themselves', async () => {
      const began = Date.now();
      const logPool = await migratedLogPool(cluster!.url('127.0.0.1', DATABASE), 2);
      const log = new PostgresEventStore(logPool, { ownsPool: true });
      let stopLoad = false;
      try {
        const { keys } = await seedCompanyWithKeys(log, 1);
        const key = keys[0]!;
        await Promise.all((Object.keys(ROLE_ENV) as Role[]).map((role) => start(role)));
        const [a, b] = [servers.get('api-a')!, servers.get('api-b')!];
        const apiPids = [a.child.pid, b.child.pid];
        const call = (server: ServerProcess, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
          fetchWithin(`${server.baseUrl}${path}`, {
            method,
            headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
        // The key is known to both API processes once the projector applied the seeded log.
        await eventually(async () => (await call(a, 'GET', '/test').catch(() => null))?.status === 200 && (await call(b, 'GET', '/test').catch(() => null))?.status === 200, 20_000, 50);

        const subscriptions: Subscription[] = [];
        for (const path of ['/first', '/second']) {
          const res = await call(a, 'POST', '/webhooks/subscribe', { event: 'contact.created', target_url: `${receiver!.url}${path}` });
          const body = (await res.json()) as { data: { id: string; secret: string } };
          expect(res.status, JSON.stringify(body)).to.equal(201);
          subscriptions.push({ id: body.data.id, path, secret: body.data.secret });
        }

        // The load: writers through both API processes, bounded in count and time.
        const acknowledged: Acknowledged[] = [];
        const refused = new Map<string, number>();
        let attempts = 0;
        const loadDeadline = Date.now() + MAX_LOAD_MS;
        const writer = async (server: () => ServerProcess, w: number) => {
          for (let i = 0; !stopLoad && attempts < MAX_WRITES && Date.now() < loadDeadline; i++) {
            attempts += 1;
            const outcome = await call(server(), 'POST', '/contacts', { name: `Load ${w}-${i}`, phoneNumber: `+49 30 ${w}${String(i).padStart(6, '0')}` }).then(
              async (res) => ({ status: res.status, body: (await res.json().catch(() => null)) as { data?: { id: string } } | null, position: res.headers.get('x-log-position') }),
              (error: Error) => ({ status: error.name, body: null, position: null }),
            );
            if (outcome.status === 201) acknowledged.push({ contactId: outcome.body!.data!.id, position: BigInt(outcome.position!) });
            else {
              refused.set(String(outcome.status), (refused.get(String(outcome.status)) ?? 0) + 1);
              await sleep(200);
            }
          }
        };
        const apis = [() => servers.get('api-a')!, () => servers.get('api-b')!];
        const load = Promise.all(apis.flatMap((api, n) => Array.from({ length: WRITERS_PER_API }, (_, k) => writer(api, n * WRITERS_PER_API + k + 1))));
        const someMoreWrites = async () => {
          const from = acknowledged.length;
          await waitFor(() => acknowledged.length >= from + WRITES_BETWEEN_FAULTS, 10_000);
        };
        const allReady = async (roles: readonly Role[], ms: number, when: string) => {
          if (await waitForReady(roles.map((role) => servers.get(role)!), ms)) return;
          const answers = await Promise.all(roles.map(async (role) => `${role}: ${await readyAnswer(servers.get(role)!)}`));
          expect.fail(`not ready within ${ms} ms ${when}:\n${answers.join('\n')}`);
        };
        const everyRole = Object.keys(ROLE_ENV) as Role[];

        // 1. PostgreSQL restarts (every session cut): every process gets over it by itself.
        await someMoreWrites();
        await cluster!.restart();
        await allReady(everyRole, 30_000, 'after PostgreSQL restarted');
        // 2. The dispatcher, then the projector, killed and started again on their hosts.
        await someMoreWrites();
        await kill9('dispatcher');
        await start('dispatcher');
        await someMoreWrites();
        await kill9('projector');
        await start('projector');
        // 3. One API host cut off for a while, then back.
        await someMoreWrites();
        const hostB = hosts.get('api-b')!;
        await network!.cut(hostB);
        await sleep(1_000);
        if (network!.mode === 'namespaces') {
          const reached = await fetchWithin(`${b.baseUrl}/health`, {}, 1_500).then(() => true, () => false);
          expect(reached, 'the cut host is unreachable').to.equal(false);
        } else {
          expect(await readyStatus(b), 'the cut host is not ready').to.equal(503);
        }
        await sleep(CUT_MS - 1_000);
        await network!.restore(hostB);
        await someMoreWrites();
        stopLoad = true;
        await load;

        // The processes that lost the database (all four at the restart, B at the cut) are ready again, A and B never restarted.
        await allReady(everyRole, 30_000, 'after the faults');
        expect([servers.get('api-a')!.child.pid, servers.get('api-b')!.child.pid]).to.deep.equal(apiPids);
        expect(acknowledged.length, 'writes acknowledged').to.be.greaterThan(4 * WRITES_BETWEEN_FAULTS);

        // Every 201 is readable through both API processes.
        const last = acknowledged.reduce((max, w) => (w.position > max ? w.position : max), 0n);
        for (const server of [a, b]) {
          for (let i = 0; i < acknowledged.length; i += 20) {
            const statuses = await Promise.all(
              acknowledged.slice(i, i + 20).map(async ({ contactId }) => (await call(server, 'GET', `/contacts/${contactId}`, undefined, { 'X-Min-Log-Position': String(last) })).status),
            );
            expect(statuses.every((status) => status === 200), `through ${server.baseUrl}: ${statuses.join(',')}`).to.equal(true);
          }
        }

        // Every event of the log reaches each subscription, in log order, nothing skipped; repeats only as the same webhook-id.
        const events = await log.readAll();
        let repeats = 0;
        for (const sub of subscriptions) {
          const expected = expectedFor(events, sub);
          const delivered = new Set(expected.map((e) => e.contactId));
          for (const { contactId } of acknowledged) expect(delivered.has(contactId), `acknowledged ${contactId} in ${sub.path}'s events`).to.equal(true);
          await eventually(() => dedupe(receiver!.ids(sub.path)).length >= expected.length, 30_000, 50);
          const arrivals = receiver!.ids(sub.path);
          expect(dedupe(arrivals), `${sub.path}: every event once, in log order`).to.deep.equal(expected.map((e) => e.eventId));
          // Every arrival that goes back is a repeat of an event already delivered: the delivery
          // thread sends a turn's rows ahead of their records, and those not recorded when the
          // dispatcher was killed or lost the database are sent again (decision 203).
          const order = new Map(expected.map((e, i) => [e.eventId, i]));
          const seen = new Set<string>();
          arrivals.forEach((id, i) => {
            if (i > 0 && order.get(id)! < order.get(arrivals[i - 1]!)!) expect(seen.has(id), `${sub.path}: arrival ${i} goes back to an event not delivered before`).to.equal(true);
            seen.add(id);
          });
          repeats += arrivals.length - expected.length;
          const verifier = new Webhook(sub.secret);
          for (const request of receiver!.requests.filter((r) => r.path === sub.path)) {
            const envelope = verifier.verify(request.body, request.headers as Record<string, string>) as { metadata: { eventId: string } };
            expect(envelope.metadata.eventId).to.equal(request.headers['webhook-id']);
          }
        }
        console.log(
          `      ${network!.mode}: ${acknowledged.length} writes acknowledged of ${attempts} (refused: ${JSON.stringify(Object.fromEntries(refused))}), ` +
            `${receiver!.requests.length} deliveries (${repeats} repeats), ${((Date.now() - began) / 1000).toFixed(1)} s`,
        );
      } finally {
        // A failure ends the load too.
        stopLoad = true;
        await log.close();
      }
    });
  });
}
