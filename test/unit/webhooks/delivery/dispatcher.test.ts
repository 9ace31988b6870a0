import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { eventually, sleep } from '../../../support/events.js';
import { dispatcherHarness } from './support/dispatcherHarness.js';
import { FakeTime } from './support/fakeTime.js';
import { startReceiver, type Receiver } from './support/receiver.js';

for (const thread of [false, true]) describe(`Webhook dispatcher, attempts ${thread ? 'on the delivery thread' : 'on the event loop'}`, function () {
  this.timeout(10_000);
  let receiver: Receiver;
  let harness: ReturnType<typeof dispatcherHarness> | null;

  beforeEach(async () => {
    receiver = await startReceiver();
    harness = null;
  });
  afterEach(async () => {
    await harness?.dispose();
    await receiver.close();
  });

  const start = (options: Parameters<typeof dispatcherHarness>[0] = {}) => {
    harness = dispatcherHarness({ thread, ...options });
    harness.dispatcher.start();
    return harness;
  };

  describe('given receivers that answer 200', () => {
    it('delivers a queue in log order, signed so that standardwebhooks verifies every request', async () => {
      const h = start();
      const sub = await h.subscribe(`${receiver.url}/a`, 5);
      await eventually(() => receiver.requests.length === 5);
      expect(receiver.ids('/a')).to.deep.equal(sub.eventIds);
      for (const request of receiver.requests) {
        const verified = new Webhook(sub.secret).verify(request.body, request.headers as Record<string, string>) as {
          metadata: { eventId: string };
        };
        expect(verified.metadata.eventId).to.equal(request.headers['webhook-id']);
      }
      await eventually(async () => (await h.outbox.head(sub.subscriptionId)) === null);
      const delivered = await h.outbox.get(sub.subscriptionId, sub.eventIds[4]!);
      expect(delivered).to.include({ state: 'delivered', roundAttempts: 1 });
      expect(delivered?.attempts[0]).to.include({ statusCode: 200, error: null });
    });

    it('delivers rows enqueued later (woken by the fan-out, or found by polling)', async () => {
      const h = start();
      const first = await h.subscribe(`${receiver.url}/a`, 1);
      await eventually(() => receiver.requests.length === 1);
      const second = await h.subscribe(`${receiver.url}/b`, 2);
      await eventually(() => receiver.requests.length === 3);
      expect(receiver.ids('/a')).to.deep.equal(first.eventIds);
      expect(receiver.ids('/b')).to.deep.equal(second.eventIds);
    });
  });

  describe('given a receiver that fails the first attempts of one event', () => {
    it('retries that event after the configured delays and sends nothing after it until it is acknowledged', async () => {
      const h = start();
      let failuresLeft = 2;
      const sub = await (async () => {
        receiver.on('/a', (request, res) => {
          const n = (JSON.parse(request.body) as { data: { n: number } }).data.n;
          if (n === 1 && failuresLeft > 0) {
            failuresLeft -= 1;
            res.writeHead(500).end();
          } else res.writeHead(200).end();
        });
        return h.subscribe(`${receiver.url}/a`, 5);
      })();
      await eventually(() => receiver.requests.length === 7);
      const [e0, e1, e2, e3, e4] = sub.eventIds;
      expect(receiver.ids('/a')).to.deep.equal([e0, e1, e1, e1, e2, e3, e4]);
      const gaps = [receiver.requests[2]!.at - receiver.requests[1]!.at, receiver.requests[3]!.at - receiver.requests[2]!.at];
      expect(gaps[0]).to.be.at.least(18); // 20 ms (jitter fixed at 0 here)
      expect(gaps[1]).to.be.at.least(38); // 40 ms
      // On the thread, the 200 comes back with the rest of its turn: recorded a little later.
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, e1!))?.state === 'delivered');
      const retried = await h.outbox.get(sub.subscriptionId, e1!);
      expect(retried?.attempts.map((a) => a.statusCode)).to.deep.equal([500, 500, 200]);
      expect(retried?.state).to.equal('delivered');
    });

    it('marks the event failed after the last retry, and the queue moves on (telling each outcome)', async () => {
      const outcomes: string[] = [];
      const h = start({ onAttempt: (outcome) => outcomes.push(outcome) });
      receiver.on('/a', (request, res) => {
        const n = (JSON.parse(request.body) as { data: { n: number } }).data.n;
        res.writeHead(n === 0 ? 503 : 200).end();
      });
      const sub = await h.subscribe(`${receiver.url}/a`, 2);
      await eventually(() => receiver.requests.length === 5);
      const [e0, e1] = sub.eventIds;
      expect(receiver.ids('/a')).to.deep.equal([e0, e0, e0, e0, e1]);
      const failed = await h.outbox.get(sub.subscriptionId, e0!);
      expect(failed).to.include({ state: 'failed', failureReason: 'retries_exhausted', roundAttempts: 4 });
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, e1!))?.state === 'delivered');
      expect(outcomes).to.deep.equal(['retry', 'retry', 'retry', 'failed', 'delivered']);
    });
  });

  describe('given a receiver that hangs', () => {
    it('gives each attempt timeoutMs, counts it as a failure, and moves on after the last retry', async () => {
      // Long enough that the row after the hanging one, answered at once, is never cut off by its own timeout.
      const h = start({ timeoutMs: 1_000 });
      receiver.on('/a', (request, res) => {
        if ((JSON.parse(request.body) as { data: { n: number } }).data.n === 0) return; // never answers
        res.writeHead(200).end();
      });
      const sub = await h.subscribe(`${receiver.url}/a`, 2);
      // In order: the next row delivered once the hanging one failed (an attempt may be cut off before its request
      // even reached the receiver, so the outbox's records are what is counted).
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[1]!))?.state === 'delivered', 8_000);
      const hung = await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!);
      expect(hung?.state).to.equal('failed');
      expect(hung?.attempts).to.have.length(4);
      for (const attempt of hung!.attempts) {
        expect(attempt.statusCode).to.equal(null);
        expect(attempt.error).to.match(/within 1000 ms/);
        // Ended by the timeout: not before it.
        expect(attempt.latencyMs).to.be.at.least(990);
      }
      // The next row, tried in the same turn as the last timed-out attempt, is not cut short by that timeout.
      expect((await h.outbox.get(sub.subscriptionId, sub.eventIds[1]!))?.attempts).to.have.length(1);
    });
  });

  describe('given a receiver that answers 410 Gone', () => {
    it('unsubscribes the subscription and stops its queue', async () => {
      const h = start();
      receiver.on('/gone', (_request, res) => res.writeHead(410).end());
      const sub = await h.subscribe(`${receiver.url}/gone`, 3);
      await eventually(() => h.unsubscribed.length === 1);
      expect(h.unsubscribed).to.deep.equal([{ subscriptionId: sub.subscriptionId, companyId: sub.companyId }]);
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[2]!))?.state === 'failed');
      const rows = await Promise.all(sub.eventIds.map((id) => h.outbox.get(sub.subscriptionId, id)));
      expect(rows.map((r) => [r?.state, r?.failureReason])).to.deep.equal([
        ['failed', 'gone'],
        ['failed', 'gone'],
        ['failed', 'gone'],
      ]);
      expect(rows[0]?.attempts.map((a) => a.statusCode)).to.deep.equal([410]);
      await sleep(150);
      expect(receiver.requests).to.have.length(1);
    });

    it('tries again when the unsubscription fails, and stops once it succeeds', async () => {
      let refusals = 1;
      const calls: string[] = [];
      const h = start({
        unsubscribe: async (subscriptionId) => {
          calls.push(subscriptionId);
          if (refusals-- > 0) throw new Error('event store unavailable');
        },
      });
      receiver.on('/gone', (_request, res) => res.writeHead(410).end());
      const sub = await h.subscribe(`${receiver.url}/gone`, 2);
      await eventually(() => calls.length === 2);
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'failed');
      const head = await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!);
      expect(head?.attempts.map((a) => a.statusCode)).to.deep.equal([410, 410]);
      expect(head?.failureReason).to.equal('gone');
      await sleep(100);
      expect(receiver.requests).to.have.length(2);
    });
  });

  describe('given a receiver that asks to slow down (Retry-After)', () => {
    it('waits as long as asked on 429, within 10 minutes, and never less than the configured delay', async () => {
      const time = new FakeTime();
      const t0 = time.now().getTime();
      const h = start({ clock: time, sleep: time.sleep });
      let answers = [
        (res: ServerResponse) => res.writeHead(429, { 'retry-after': '120' }).end(),
        (res: ServerResponse) => res.writeHead(503, { 'retry-after': '86400' }).end(),
      ];
      receiver.on('/slow', (_request, res) => {
        const answer = answers.shift();
        if (answer) answer(res);
        else res.writeHead(200).end();
      });
      const sub = await h.subscribe(`${receiver.url}/slow`, 1);
      const id = sub.eventIds[0]!;
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, id))?.roundAttempts === 1);
      expect((await h.outbox.get(sub.subscriptionId, id))?.nextAttemptAt).to.equal(new Date(t0 + 120_000).toISOString());

      time.advance(119_000);
      await sleep(100);
      expect(receiver.requests).to.have.length(1);
      time.advance(1_000);
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, id))?.roundAttempts === 2);
      // 503 with a day's Retry-After: capped at 10 minutes.
      expect((await h.outbox.get(sub.subscriptionId, id))?.nextAttemptAt).to.equal(
        new Date(t0 + 120_000 + 600_000).toISOString(),
      );
      time.advance(600_000);
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, id))?.state === 'delivered');
      expect(receiver.requests).to.have.length(3);
      answers = [];
    });
  });

  describe('given a receiver that redirects', () => {
    it('does not follow the redirect: the event fails after its retries and the other URL is never called', async () => {
      const h = start();
      receiver.on('/moved', (_request, res) => res.writeHead(302, { location: `${receiver.url}/elsewhere` }).end());
      const sub = await h.subscribe(`${receiver.url}/moved`, 1);
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'failed');
      const row = await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!);
      expect(row?.attempts.map((a) => a.statusCode)).to.deep.equal([302, 302, 302, 302]);
      expect(receiver.requests.map((r) => r.path)).to.deep.equal(['/moved', '/moved', '/moved', '/moved']);
    });
  });

  describe('given two subscriptions, one with a slow receiver', () => {
    it('delivers the other one’s queue without waiting for the slow one', async () => {
      // The slow receiver answers nothing, and its attempt outlasts the test: only a queue that does not wait for it is delivered.
      const h = start({ timeoutMs: 60_000 });
      receiver.on('/slow', () => undefined);
      const slow = await h.subscribe(`${receiver.url}/slow`, 3);
      await eventually(() => receiver.ids('/slow').length === 1);
      const fast = await h.subscribe(`${receiver.url}/fast`, 20);
      await eventually(() => receiver.ids('/fast').length === 20, 8_000);
      expect(receiver.ids('/fast')).to.deep.equal(fast.eventIds);
      // The slow queue is still on its first attempt of its first event.
      expect(receiver.ids('/slow')).to.deep.equal([slow.eventIds[0]]);
      expect((await h.outbox.get(slow.subscriptionId, slow.eventIds[0]!))?.roundAttempts).to.equal(0);
    });

    it('lets a queue with a long backlog give its slot up after a turn when others wait', async () => {
      const h = start({ concurrency: 1, turnSize: 5 });
      receiver.on('/a', (_request, res) => void setTimeout(() => res.writeHead(200).end(), 5));
      await h.subscribe(`${receiver.url}/a`, 20);
      await eventually(() => receiver.requests.length >= 1);
      await h.subscribe(`${receiver.url}/b`, 1);
      await eventually(() => receiver.requests.length === 21);
      expect(receiver.requests.findIndex((r) => r.path === '/b')).to.be.within(1, 10);
    });

    it('works on at most `concurrency` queues at once', async () => {
      // Each attempt is held until another is in flight beside it, then both fail (500, no retry): the queues
      // go two by two, and a third attempt at once would show in the receiver's most in flight.
      const h = start({ concurrency: 2, timeoutMs: 30_000, retryDelaysMs: [] });
      const held: ServerResponse[] = [];
      receiver.on('/held', (_request, res) => {
        held.push(res);
        if (held.length === 2) for (const response of held.splice(0)) response.writeHead(500).end();
      });
      const subs: Awaited<ReturnType<typeof h.subscribe>>[] = [];
      for (let i = 0; i < 6; i++) subs.push(await h.subscribe(`${receiver.url}/held`, 1));
      await eventually(async () => {
        const rows = await Promise.all(subs.map((s) => h.outbox.get(s.subscriptionId, s.eventIds[0]!)));
        return rows.every((r) => r?.state === 'failed');
      }, 8_000);
      expect(receiver.requests).to.have.length(6);
      expect(receiver.maxInFlight()).to.equal(2);
    });
  });

  describe('reading the outbox', () => {
    it('reads a turn’s rows and its secret once, not once per delivery', async () => {
      const h = start({ turnSize: 20 });
      const sub = await h.subscribe(`${receiver.url}/a`, 12);
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[11]!))?.state === 'delivered');
      expect(receiver.ids('/a')).to.deep.equal(sub.eventIds);
      expect(h.calls.get('pendingRows')).to.equal(1);
      expect(h.calls.get('secrets.get')).to.equal(1);
      expect(h.calls.get('head') ?? 0).to.equal(0);
      expect(h.calls.get('recordAttempt')).to.equal(12);
    });

    it('serves several slots from one read of the due queues', async () => {
      const h = (harness = dispatcherHarness({ concurrency: 1, pollIntervalMs: 60_000 }));
      const subs: Awaited<ReturnType<typeof h.subscribe>>[] = [];
      for (let i = 0; i < 10; i++) subs.push(await h.subscribe(`${receiver.url}/q${i}`, 1));
      h.dispatcher.start();
      await eventually(() => receiver.requests.length === 10);
      for (const [i, sub] of subs.entries()) expect(receiver.ids(`/q${i}`)).to.deep.equal(sub.eventIds);
      // One read per four turns (4 × concurrency candidates), rather than one per turn.
      await eventually(() => h.dispatcher.busy === 0);
      expect(h.calls.get('dueQueues')).to.be.at.most(5);
    });

    it('under a per-company cap, keeps one company’s backlog moving turn after turn without a read per turn, never past the cap', async () => {
      const h = (harness = dispatcherHarness({ concurrency: 8, perCompany: 2, turnSize: 5, pollIntervalMs: 60_000 }));
      receiver.on('/a', (_request, res) => void setTimeout(() => res.writeHead(200).end(), 2));
      const companyId = 'co-backlog';
      const subs: Awaited<ReturnType<typeof h.subscribe>>[] = [];
      for (let i = 0; i < 6; i++) subs.push(await h.subscribe(`${receiver.url}/a`, 25, companyId));
      h.dispatcher.start();
      await eventually(() => receiver.requests.length === 150, 8000);
      for (const sub of subs) expect(receiver.requests.filter((r) => sub.eventIds.includes(String(r.headers['webhook-id']))).map((r) => r.headers['webhook-id'])).to.deep.equal(sub.eventIds);
      expect(receiver.maxInFlight()).to.equal(2);
      // 30 turns of 5 deliveries; the outbox is read far less often than once a turn.
      expect(h.calls.get('dueQueues')).to.be.at.most(10);
    });

    it(`ends a turn at a row that stopped being pending (the subscription ended): ${thread ? 'nothing after the rows the thread had sent' : 'nothing more is sent'}`, async () => {
      const h = start({ turnSize: 20 });
      let sub: Awaited<ReturnType<typeof h.subscribe>> | null = null;
      receiver.on('/a', (_request, res) => {
        // The fan-out folds the unsubscription while the turn's first attempt is in flight.
        const { secret: _secret, eventIds: _ids, ...subscription } = sub!;
        void h.outbox
          .commitFanOut('test', { position: '999999', subscriptions: [{ ...subscription, unsubscribedAt: '999999' }], deliveries: [] }, new Date())
          .then(() => res.writeHead(200).end());
      });
      sub = await h.subscribe(`${receiver.url}/a`, 5);
      await eventually(() => receiver.requests.length >= 1);
      await eventually(() => h.dispatcher.busy === 0);
      await sleep(100);
      // On the thread, the rows of the turn go out before the first one's record finds the
      // row cancelled: at most the turn, in order, and nothing after the loop learnt of it.
      if (thread) expect(receiver.ids('/a')).to.deep.equal(sub.eventIds.slice(0, receiver.requests.length));
      else expect(receiver.requests).to.have.length(1);
      const sent = receiver.requests.length;
      await sleep(200);
      expect(receiver.requests).to.have.length(sent);
      const rows = await Promise.all(sub.eventIds.map((id) => h.outbox.get(sub!.subscriptionId, id)));
      expect(rows.map((r) => [r?.state, r?.failureReason])).to.deep.equal(sub.eventIds.map(() => ['failed', 'unsubscribed']));
    });
  });

  describe('signing secrets', () => {
    it('sends nothing unsigned: without a secret the attempt fails without a request', async () => {
      // The secret is changed before the dispatcher starts.
      const h = (harness = dispatcherHarness({ thread, retryDelaysMs: [10] }));
      const sub = await h.subscribe(`${receiver.url}/a`, 1);
      h.secrets.delete(sub.subscriptionId);
      h.dispatcher.start();
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'failed');
      const row = await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!);
      expect(row?.attempts.map((a) => a.error)).to.deep.equal([
        'The subscription has no signing secret',
        'The subscription has no signing secret',
      ]);
      expect(receiver.requests).to.have.length(0);
    });

    it('sends nothing signed with a secret that does not decode; the error names no secret', async () => {
      // The secret is changed before the dispatcher starts.
      const h = (harness = dispatcherHarness({ thread, retryDelaysMs: [10] }));
      const sub = await h.subscribe(`${receiver.url}/a`, 1);
      h.secrets.set(sub.subscriptionId, 'whsec_not base64!');
      h.dispatcher.start();
      await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'failed');
      const row = await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!);
      expect(row?.attempts.map((a) => a.error)).to.deep.equal([
        'A webhook secret must be "whsec_" followed by base64',
        'A webhook secret must be "whsec_" followed by base64',
      ]);
      expect(receiver.requests).to.have.length(0);
    });
  });

  describe('redelivery and shutdown', () => {
    it('sends a requeued event again with the same id', async () => {
      const h = start();
      const sub = await h.subscribe(`${receiver.url}/a`, 2);
      await eventually(() => receiver.requests.length === 2);
      await eventually(async () => (await h.outbox.head(sub.subscriptionId)) === null);
      expect(await h.outbox.redeliver(sub.subscriptionId, sub.eventIds[0]!, new Date())).to.equal('requeued');
      await eventually(() => receiver.requests.length === 3); // found by polling (50 ms here)
      expect(receiver.ids('/a')).to.deep.equal([...sub.eventIds, sub.eventIds[0]]);
      expect(receiver.requests[2]?.body).to.equal(receiver.requests[0]?.body);
    });

    it('stop(graceMs) lets an attempt in flight finish and records it, then stops', async () => {
      const h = start({ timeoutMs: 5000 });
      receiver.on('/a', (_request, res) => {
        setTimeout(() => res.writeHead(200).end(), 300);
      });
      const sub = await h.subscribe(`${receiver.url}/a`, 2);
      await eventually(() => receiver.requests.length === 1);
      expect(await h.dispatcher.stop(2000)).to.equal(true);
      expect(await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!)).to.include({ state: 'delivered', roundAttempts: 1 });
      // Nothing after the one in flight.
      await sleep(100);
      expect(receiver.requests.length).to.equal(1);
      expect(await h.outbox.get(sub.subscriptionId, sub.eventIds[1]!)).to.include({ state: 'pending' });
    });

    it('stop() cuts an attempt in flight short without recording it; it is sent again after a restart', async () => {
      // An attempt that only the stop can end: waiting for its timeout would outlast the test.
      const h = start({ timeoutMs: 60_000 });
      let hang = true;
      receiver.on('/a', (_request, res) => {
        if (!hang) res.writeHead(200).end();
      });
      const sub = await h.subscribe(`${receiver.url}/a`, 1);
      await eventually(() => receiver.requests.length === 1);
      expect(await h.dispatcher.stop()).to.equal(false);
      // Its connection was cut, unanswered.
      await eventually(() => receiver.inFlight() === 0, 5_000);
      expect(await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!)).to.include({ state: 'pending', roundAttempts: 0 });

      hang = false;
      const { WebhookDispatcher } = await import('../../../../src/webhooks/dispatcher.js');
      const agent = (await import('../../../../src/webhooks/deliveryAgent.js')).createDeliveryAgent({
        allowPrivateTargets: true,
        isRefusedAddress: () => true,
      });
      const again = new WebhookDispatcher({
        outbox: h.outbox,
        send: agent.send,
        secrets: { get: async (id) => h.secrets.get(id) ?? null },
        unsubscribe: async () => undefined,
        timeoutMs: 1000,
        retryDelaysMs: [20],
        logger: h.logger,
      });
      again.start();
      try {
        await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'delivered');
        expect(receiver.ids('/a')).to.deep.equal([sub.eventIds[0], sub.eventIds[0]]);
      } finally {
        await again.stop();
        agent.close();
      }
    });
  });
});
