import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createDeliveryAgent } from '../../src/webhooks/deliveryAgent.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { DEFAULT_PAUSE_POLICY } from '../../src/webhooks/queueHealthPolicy.js';
import { isRefusedAddress } from '../../src/webhooks/targetUrlGuard.js';
import { captureLogger } from '../support/captureLogger.js';
import { eventually } from '../support/events.js';
import { fairnessLog } from '../unit/webhooks/delivery/support/fairnessLog.js';
import type { OutboxUnderTest } from './webhookOutbox.contract.js';

const HANGING = 60;
const CONCURRENCY = 16;
const PER_COMPANY = 4;

/** A receiver on 127.0.0.1: `/hang` accepts and never answers; anything else answers 200 and notes the delivery. */
const startReceiver = async () => {
  const sockets = new Set<Socket>();
  const arrivals = new Set<string>();
  let hanging = 0;
  let maxHanging = 0;
  let hangingSent = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/hang') {
        hanging += 1;
        hangingSent += 1;
        maxHanging = Math.max(maxHanging, hanging);
        res.once('close', () => (hanging -= 1));
        return;
      }
      arrivals.add(String(req.headers['webhook-id']));
      res.writeHead(200).end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    hanging: () => hanging,
    maxHanging: () => maxHanging,
    /** Attempts that reached `/hang`, ended or not. */
    hangingSent: () => hangingSent,
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/**
 * The dispatcher's fair sharing on an outbox adapter: another company's 60 hanging
 * subscriptions, a queued event for each, hold at most `perCompany` slots, and a
 * healthy subscription's deliveries arrive while those attempts still hang (they time
 * out after 30 s, as in production): it never waits for one of their slots.
 */
export const dispatcherFairnessContract = (name: string, make: () => Promise<OutboxUnderTest>): void => {
  describe(`Webhook dispatcher on ${name}: fair between companies`, function () {
    this.timeout(30_000);

    it(`another company's ${HANGING} hanging receivers hold ${PER_COMPANY} slots; a healthy subscription is delivered while they hang`, async () => {
      const { outbox, dispose } = await make();
      const receiver = await startReceiver();
      const agent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress, maxFreeSockets: CONCURRENCY });
      const secrets = new Map<string, string>();
      const dispatcher = new WebhookDispatcher({
        outbox,
        send: agent.send,
        secrets: { get: async (id) => secrets.get(id) ?? null },
        unsubscribe: async () => undefined,
        timeoutMs: 30_000,
        retryDelaysMs: [5000, 30_000, 120_000],
        concurrency: CONCURRENCY,
        perCompany: PER_COMPANY,
        pausing: DEFAULT_PAUSE_POLICY,
        logger: captureLogger(),
      });
      const { subscription, row, store } = fairnessLog({
        outbox,
        secrets,
        baseUrl: receiver.url,
        checkpoint: `fairness-${randomUUID()}`,
        wake: () => dispatcher.wake(),
      });
      try {
        const other = `co-${randomUUID()}`;
        const hangingSubs = Array.from({ length: HANGING }, () => subscription(other, '/hang'));
        const healthySub = subscription(`co-${randomUUID()}`, '/ok');
        await store([...hangingSubs, healthySub], hangingSubs.map(row));
        dispatcher.start();
        await eventually(() => receiver.hanging() === PER_COMPANY, 10_000, 10);

        // Each delivered before any hanging attempt ended (30 s): not in a slot one of them gave up
        // (how soon: `npm run bench:timings`).
        for (let i = 0; i < 5; i++) {
          const delivery = row(healthySub);
          await store([], [delivery]);
          await eventually(() => receiver.arrivals.has(delivery.eventId), 15_000, 5);
        }
        expect(receiver.hanging(), 'the hanging attempts still hang').to.equal(PER_COMPANY);
        expect(receiver.hangingSent(), 'no other hanging queue got a slot').to.equal(PER_COMPANY);
        expect(receiver.maxHanging()).to.equal(PER_COMPANY);
      } finally {
        await receiver.close();
        await dispatcher.stop();
        agent.close();
        await dispose();
      }
    });
  });
};
