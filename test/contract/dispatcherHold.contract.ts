import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FannedOutSubscription, NewDelivery, WebhookOutbox } from '../../src/application/ports/WebhookOutbox.js';
import { HEALTHY } from '../../src/application/ports/WebhookOutbox.js';
import { createDeliveryAgent } from '../../src/webhooks/deliveryAgent.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { isRefusedAddress } from '../../src/webhooks/targetUrlGuard.js';
import { captureLogger } from '../support/captureLogger.js';
import { eventually } from '../support/events.js';
import { aSecret } from '../unit/webhooks/delivery/support/events.js';
import type { OutboxUnderTest } from './webhookOutbox.contract.js';

/** A receiver on 127.0.0.1 that answers 200 and keeps the `webhook-id` of each request, in the order they came. */
const startReceiver = async () => {
  const arrivals: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(String(req.headers['webhook-id']));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/**
 * The dispatcher's hold of a suspended company's deliveries, on an outbox adapter:
 * its rows are neither attempted nor dropped (pending, no attempt, the queue's health
 * untouched, never pruned by retention) while another company's go out; once the
 * company is no longer held they go out in queue order.
 */
export const dispatcherHoldContract = (name: string, make: () => Promise<OutboxUnderTest>): void => {
  describe(`Webhook dispatcher on ${name}: a held company's deliveries`, function () {
    this.timeout(30_000);

    it('are kept pending with no attempt while held, and delivered in order once released', async () => {
      const { outbox: inner, dispose } = await make();
      const receiver = await startReceiver();
      const agent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress });
      const secrets = new Map<string, string>();
      let reads = 0;
      // Counts the dispatcher's reads of the due queues: the hold is seen to last over several of them.
      const outbox: WebhookOutbox = Object.create(inner) as WebhookOutbox;
      outbox.dueQueues = (...args) => {
        reads += 1;
        return inner.dueQueues(...args);
      };
      const held = new Set<string>(['co-held']);
      const dispatcher = new WebhookDispatcher({
        outbox,
        send: agent.send,
        secrets: { get: async (id) => secrets.get(id) ?? null },
        unsubscribe: async () => undefined,
        timeoutMs: 10_000,
        retryDelaysMs: [20, 40, 80],
        pausing: { pauseDelaysMs: [50], disableAfterMs: 200 },
        logger: captureLogger(),
        pollIntervalMs: 50,
        heldCompanies: async () => new Set(held),
      });
      let position = 0;
      const subscribe = async (companyId: string, count: number) => {
        const sub: FannedOutSubscription = {
          subscriptionId: `sub-${randomUUID()}`,
          companyId,
          event: 'contact.created',
          targetUrl: receiver.url,
          filters: null,
          subscribedAt: String(++position),
          unsubscribedAt: null,
        };
        secrets.set(sub.subscriptionId, aSecret());
        const rows: NewDelivery[] = Array.from({ length: count }, (_, n) => ({
          subscriptionId: sub.subscriptionId,
          companyId,
          eventId: randomUUID(),
          eventType: 'contact.created',
          position: String(++position),
          ordinal: 0,
          occurredAt: new Date().toISOString(),
          envelope: JSON.stringify({ event: 'contact.created', data: { n } }),
        }));
        await inner.commitFanOut('hold-test', { position: String(position), subscriptions: [sub], deliveries: rows }, new Date());
        return { subscriptionId: sub.subscriptionId, eventIds: rows.map((row) => row.eventId) };
      };
      try {
        const heldSub = await subscribe('co-held', 3);
        const other = await subscribe('co-other', 2);
        dispatcher.start();
        dispatcher.wake();
        await eventually(() => other.eventIds.every((id) => receiver.arrivals.includes(id)), 10_000);
        // Several more reads of the outbox, each leaving the held company out.
        const after = reads;
        await eventually(() => reads >= after + 5, 10_000);
        expect(receiver.arrivals.filter((id) => heldSub.eventIds.includes(id)), 'nothing sent while held').to.deep.equal([]);
        for (const eventId of heldSub.eventIds) {
          const row = await inner.get(heldSub.subscriptionId, eventId);
          expect(row, eventId).to.deep.include({ state: 'pending', attempts: [], roundAttempts: 0, completedAt: null, failureReason: null });
        }
        expect(await inner.health(heldSub.subscriptionId), 'no pause or disable rule tripped').to.deep.equal(HEALTHY);
        // Retention prunes final rows only: the held rows stay, however old.
        await inner.pruneCompleted(new Date(Date.now() + 365 * 86_400_000), 1_000);
        expect((await inner.pendingRows(heldSub.subscriptionId, 10)).map((row) => row.eventId)).to.deep.equal(heldSub.eventIds);

        held.clear();
        await eventually(() => heldSub.eventIds.every((id) => receiver.arrivals.includes(id)), 10_000);
        expect(receiver.arrivals.filter((id) => heldSub.eventIds.includes(id)), 'in queue order, each once').to.deep.equal(heldSub.eventIds);
        await eventually(async () => (await inner.get(heldSub.subscriptionId, heldSub.eventIds[2]!))?.state === 'delivered', 10_000);
      } finally {
        await dispatcher.stop();
        agent.close();
        await receiver.close();
        await dispose();
      }
    });
  });
};
