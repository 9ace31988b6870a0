// Nothing lost: the webhook fan-out and dispatcher run in a child process (this
// same file, started with `child <sqlite file>`), the test appends a burst of
// events to the same SQLite file, kills the child with SIGKILL mid-burst while a
// delivery is being acknowledged, starts it again, and checks what a local
// receiver got.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteWebhookOutbox } from '../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { SqliteWebhookSecretStore } from '../../src/adapters/sqlite/SqliteWebhookSecretStore.js';
import { silentLogger } from '../../src/application/ports/Logger.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { createDeliveryAgent } from '../../src/webhooks/deliveryAgent.js';
import { subscriptionChange } from '../../src/features/webhooks/application/subscriptionChange.js';
import type { DerivedWebhookEvent } from '../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { toEnvelope } from '../../src/features/webhookEvents/domain/envelope.js';
import { WebhookFanOut } from '../../src/webhooks/fanOut.js';
import { isRefusedAddress } from '../../src/webhooks/targetUrlGuard.js';
import { deriveWebhookEvents, matchesFilters } from '../support/webhookEvents.js';

const thisFile = fileURLToPath(import.meta.url);

/** The child: fan-out + dispatcher on the SQLite file, until killed (at most a minute). */
const runChild = async (file: string): Promise<void> => {
  setTimeout(() => process.exit(3), 60_000).unref();
  const eventStore = SqliteEventStore.open(file, { pollIntervalMs: 10 });
  const outbox = new SqliteWebhookOutbox(eventStore.db);
  const agent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress });
  const dispatcher = new WebhookDispatcher({
    outbox,
    send: agent.send,
    secrets: new SqliteWebhookSecretStore(eventStore.db),
    unsubscribe: async () => undefined,
    timeoutMs: 2000,
    retryDelaysMs: [20, 40, 80],
    logger: silentLogger,
  });
  const fanOut = new WebhookFanOut<DerivedWebhookEvent>({
    eventStore,
    outbox,
    derive: deriveWebhookEvents,
    subscriptionChange,
    matches: matchesFilters,
    toEnvelope,
    logger: silentLogger,
    onEnqueued: () => dispatcher.wake(),
    maxBatchSize: 25,
  });
  dispatcher.start();
  await fanOut.start();
  process.stdout.write('ready\n');
  // Kept alive by the subscription's timers until killed.
};

if (process.argv[1] === thisFile && process.argv[2] === 'child') {
  await runChild(process.argv[3]!);
} else {
  const { expect } = await import('chai');
  const { Webhook } = await import('standardwebhooks');
  const { tempDir } = await import('../support/tempStore.js');
  const { eventually, sleep } = await import('../support/events.js');
  const { startReceiver } = await import('../unit/webhooks/delivery/support/receiver.js');
  const { aSecret, contactCreated, webhookSubscribed } = await import('../unit/webhooks/delivery/support/events.js');

  const startChild = async (file: string): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [thisFile, 'child', file], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the child was not ready within 20 s')), 20_000);
      const lines = createInterface({ input: child.stdout! });
      lines.once('line', () => {
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it was ready`)));
    });
    return child;
  };
  /** The signal that ended the child (bounded: 20 s). */
  const killed = (child: ChildProcess): Promise<NodeJS.Signals | null> =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve(child.signalCode)
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('the child did not end within 20 s')), 20_000);
          child.once('exit', (_code, signal) => {
            clearTimeout(timer);
            resolve(signal);
          });
        });

  describe('webhooks under kill -9', function () {
    this.timeout(60_000);

    it('delivers every derived event at least once, in order per subscription, repeating only the same event id', async () => {
      const dir = tempDir('chronicle-webhooks-crash-');
      const file = join(dir.path, 'chronicle.sqlite');
      const receiver = await startReceiver();
      const store = SqliteEventStore.open(file);
      const secretStore = new SqliteWebhookSecretStore(store.db);
      const children: ChildProcess[] = [];
      try {
        // Three subscriptions: two of company A (one filtered on a tag), one of company B.
        const subs = [
          { id: `all-a-${randomUUID()}`, company: 'co-a', filters: null },
          { id: `vip-a-${randomUUID()}`, company: 'co-a', filters: { tags: ['vip'] } },
          { id: `all-b-${randomUUID()}`, company: 'co-b', filters: null },
        ];
        const secrets = new Map<string, string>();
        for (const sub of subs) {
          const secret = aSecret();
          secrets.set(sub.id, secret);
          await secretStore.put(sub.id, secret);
          await store.append(
            `webhook-${sub.id}`,
            [webhookSubscribed(sub.id, sub.company, `${receiver.url}/${sub.id}`, 'contact.created', sub.filters)],
            'no_stream',
          );
        }

        // The receiver checks every signature, fails the first attempt of one event in ten, and
        // acknowledges the 40th request just as the child is killed.
        const verified: string[] = [];
        const failedOnce = new Set<string>();
        let child = await startChild(file);
        children.push(child);
        let killedAt: number | null = null;
        let appended = 0;
        let appendedAtKill: number | null = null;
        for (const sub of subs) {
          receiver.on(`/${sub.id}`, (request, res) => {
            const id = String(request.headers['webhook-id']);
            new Webhook(secrets.get(sub.id)!).verify(request.body, request.headers as Record<string, string>);
            verified.push(id);
            if (parseInt(id.slice(-2), 16) % 10 === 0 && !failedOnce.has(id)) {
              failedOnce.add(id);
              res.writeHead(500).end();
            } else {
              res.writeHead(200).end();
            }
            if (receiver.requests.length >= 40 && killedAt === null) {
              killedAt = receiver.requests.length;
              appendedAtKill = appended;
              child.kill('SIGKILL');
            }
          });
        }

        // The burst: chunks of 10 contacts every 20 ms, going on for 10 chunks after the kill (100 at most).
        const burst = (async () => {
          for (let chunk = 0, afterKill = 0; chunk < 100 && afterKill < 10; chunk++) {
            await Promise.all(
              Array.from({ length: 10 }, (_, i) => {
                const n = chunk * 10 + i;
                const company = n % 2 === 0 ? 'co-a' : 'co-b';
                return store.append(`contact-${randomUUID()}`, [contactCreated(company, `c${n}`, n % 3 === 0 ? ['vip'] : [])], 'no_stream');
              }),
            );
            appended += 10;
            if (appendedAtKill !== null) afterKill += 1;
            await sleep(20);
          }
        })();

        expect(await killed(child)).to.equal('SIGKILL');
        const deliveredBeforeKill = receiver.requests.length;
        child = await startChild(file);
        children.push(child);
        await burst;
        // Killed mid-burst: events were appended before and after the kill.
        expect(appendedAtKill).to.be.greaterThan(0);
        expect(appended).to.be.greaterThan(appendedAtKill!);

        // What each subscription must get: the derived events of its company's contacts after its
        // subscription, through its filters, in log order.
        const log: RecordedEvent[] = await store.readAll();
        const expected = new Map<string, string[]>(subs.map((s) => [s.id, []]));
        for (const event of log) {
          for (const derived of deriveWebhookEvents(event)) {
            for (const sub of subs) {
              if (derived.companyId === sub.company && matchesFilters(sub.filters, derived)) expected.get(sub.id)!.push(derived.eventId);
            }
          }
        }
        const total = [...expected.values()].reduce((sum, ids) => sum + ids.length, 0);
        expect(total).to.be.greaterThan(80);
        expect(deliveredBeforeKill).to.be.below(total);

        await eventually(
          () => subs.every((sub) => new Set(receiver.ids(`/${sub.id}`)).size === expected.get(sub.id)!.length),
          30_000,
          20,
        );
        for (const sub of subs) {
          const received = receiver.ids(`/${sub.id}`);
          // Consecutive repeats are the same event sent again (a retry, or the one acknowledged
          // as the child died); without them, exactly the expected sequence.
          const collapsed = received.filter((id, i) => id !== received[i - 1]);
          expect(collapsed, sub.id).to.deep.equal(expected.get(sub.id));
        }
        expect(verified.length).to.equal(receiver.requests.length);
      } finally {
        for (const child of children) {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGKILL');
            await killed(child);
          }
        }
        await store.close();
        await receiver.close();
        dir.dispose();
      }
    });
  });
}
