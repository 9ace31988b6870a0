import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openSqliteDatabase, type SqliteDatabase } from '../../../../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteWebhookOutbox } from '../../../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import type { FannedOutSubscription, NewDelivery } from '../../../../../src/application/ports/WebhookOutbox.js';
import type { Clock } from '../../../../../src/shared/Clock.js';
import { createDeliveryAgent, type DeliveryAgent } from '../../../../../src/webhooks/deliveryAgent.js';
import { startDeliveryThread } from '../../../../../src/webhooks/deliveryThread.js';
import { WebhookDispatcher, type Sleep, type WebhookDispatcherDeps } from '../../../../../src/webhooks/dispatcher.js';
import { isRefusedAddress } from '../../../../../src/webhooks/targetUrlGuard.js';
import { captureLogger } from '../../../../support/captureLogger.js';
import { tempDir } from '../../../../support/tempStore.js';
import { aSecret } from './events.js';

let positions = 0;

/**
 * A dispatcher on a real SQLite outbox and a real HTTP agent (loopback allowed): on this
 * event loop, or with `thread`, on the delivery thread (`WEBHOOK_DELIVERY_THREAD`).
 */
export const dispatcherHarness = (options: Partial<WebhookDispatcherDeps> & { clock?: Clock; sleep?: Sleep; thread?: boolean } = {}) => {
  const dir = tempDir('chronicle-dispatch-');
  const db: SqliteDatabase = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
  const outbox = new SqliteWebhookOutbox(db);
  const agent: DeliveryAgent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress });
  const secrets = new Map<string, string>();
  const unsubscribed: { subscriptionId: string; companyId: string }[] = [];
  const logger = captureLogger();
  const thread = options.thread ? startDeliveryThread({ allowPrivateTargets: true, maxFreeSockets: 16, logger }) : null;
  /** How often the dispatcher called each outbox method, and `secrets.get`. */
  const calls = new Map<string, number>();
  const count = (name: string): void => void calls.set(name, (calls.get(name) ?? 0) + 1);
  const countedOutbox = new Proxy(outbox, {
    get: (target, property, receiver) => {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        count(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const dispatcher = new WebhookDispatcher({
    outbox: countedOutbox,
    send: agent.send,
    secrets: {
      get: async (id) => {
        count('secrets.get');
        return secrets.get(id) ?? null;
      },
    },
    unsubscribe: async (subscriptionId, companyId) => void unsubscribed.push({ subscriptionId, companyId }),
    // Long enough that only a receiver that hangs times out, however busy the machine.
    timeoutMs: 10_000,
    retryDelaysMs: [20, 40, 80],
    logger,
    random: () => 0.5,
    pollIntervalMs: 50,
    ...(thread ? { sendTurn: thread.sendTurn } : {}),
    ...options,
  });
  const clock = options.clock ?? { now: () => new Date() };

  /** A subscription (with a secret, of a new company unless given) and `count` queued events for it; answers the event ids in order. */
  const subscribe = async (targetUrl: string, count: number, companyId = `co-${randomUUID()}`) => {
    const sub: FannedOutSubscription = {
      subscriptionId: `sub-${randomUUID()}`,
      companyId,
      event: 'contact.created',
      targetUrl,
      filters: null,
      subscribedAt: String(++positions),
      unsubscribedAt: null,
    };
    const secret = aSecret();
    secrets.set(sub.subscriptionId, secret);
    const rows: NewDelivery[] = Array.from({ length: count }, (_, n) => {
      const eventId = randomUUID();
      return {
        subscriptionId: sub.subscriptionId,
        companyId: sub.companyId,
        eventId,
        eventType: 'contact.created',
        position: String(++positions),
        ordinal: 0,
        occurredAt: clock.now().toISOString(),
        envelope: JSON.stringify({ event: 'contact.created', data: { n }, metadata: { eventId, companyId: sub.companyId } }),
      };
    });
    await outbox.commitFanOut('test', { position: String(positions), subscriptions: [sub], deliveries: rows }, clock.now());
    dispatcher.wake();
    return { ...sub, secret, eventIds: rows.map((r) => r.eventId) };
  };

  return {
    outbox,
    dispatcher,
    secrets,
    unsubscribed,
    logger,
    calls,
    subscribe,
    dispose: async () => {
      await dispatcher.stop();
      agent.close();
      await thread?.close();
      db.close();
      dir.dispose();
    },
  };
};
