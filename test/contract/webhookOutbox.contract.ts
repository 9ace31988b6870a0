import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  HEALTHY,
  type DeliveryAttempt,
  type FannedOutSubscription,
  type NewDelivery,
  type WebhookOutbox,
} from '../../src/application/ports/WebhookOutbox.js';

export interface OutboxUnderTest {
  readonly outbox: WebhookOutbox;
  readonly dispose: () => Promise<void>;
}

const T0 = new Date('2026-03-04T10:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);

const aSubscription = (overrides: Partial<FannedOutSubscription> = {}): FannedOutSubscription => ({
  subscriptionId: `sub-${randomUUID()}`,
  companyId: `co-${randomUUID()}`,
  event: 'deal.won',
  targetUrl: 'https://receiver.example/hook',
  filters: null,
  subscribedAt: '1',
  unsubscribedAt: null,
  ...overrides,
});

const aDelivery = (sub: FannedOutSubscription, position: string, overrides: Partial<NewDelivery> = {}): NewDelivery => ({
  subscriptionId: sub.subscriptionId,
  companyId: sub.companyId,
  eventId: `evt-${randomUUID()}`,
  eventType: sub.event,
  position,
  ordinal: 0,
  occurredAt: T0.toISOString(),
  envelope: JSON.stringify({ event: sub.event, position }),
  ...overrides,
});

const anAttempt = (statusCode: number | null, when = T0, error: string | null = null): DeliveryAttempt => ({
  at: when.toISOString(),
  statusCode,
  error,
  latencyMs: 12,
});

/**
 * The WebhookOutbox contract, run for every adapter. Subscriptions, event ids and
 * checkpoint names are unique per test, so a shared store is fine.
 */
export const webhookOutboxContract = (name: string, make: () => Promise<OutboxUnderTest>): void => {
  describe(`WebhookOutbox: ${name}`, () => {
    let outbox: WebhookOutbox;
    let dispose: () => Promise<void>;
    let checkpoint: string;

    beforeEach(async () => {
      ({ outbox, dispose } = await make());
      checkpoint = `fan-out-${randomUUID()}`;
    });
    afterEach(async () => dispose());

    /** Stores subscriptions and rows the way the fan-out does. */
    const commit = (position: string, subscriptions: FannedOutSubscription[], deliveries: NewDelivery[], now = T0) =>
      outbox.commitFanOut(checkpoint, { position, subscriptions, deliveries }, now);

    describe('the fan-out state', () => {
      it('starts empty: no checkpoint, no subscriptions', async () => {
        expect(await outbox.loadFanOut(checkpoint)).to.deep.equal({ position: null, subscriptions: [] });
      });

      it('stores a batch (subscriptions, rows, checkpoint) and gives it back', async () => {
        const sub = aSubscription({ filters: { tags: ['vip'] }, subscribedAt: '12' });
        const row = aDelivery(sub, '15');
        await commit('20', [sub], [row]);
        const state = await outbox.loadFanOut(checkpoint);
        expect(state.position).to.equal('20');
        expect(state.subscriptions).to.deep.equal([sub]);
        expect(await outbox.head(sub.subscriptionId)).to.include({ eventId: row.eventId, state: 'pending' });
      });

      it('leaves out subscriptions that ended before the checkpoint, keeps those that end after it', async () => {
        const ended = aSubscription({ subscribedAt: '2', unsubscribedAt: '5' });
        const later = aSubscription({ subscribedAt: '3', unsubscribedAt: '40' });
        const active = aSubscription({ subscribedAt: '4' });
        await commit('30', [ended, later, active], []);
        const ids = (await outbox.loadFanOut(checkpoint)).subscriptions.map((s) => s.subscriptionId);
        expect(ids).to.have.members([later.subscriptionId, active.subscriptionId]);
        // Another checkpoint still before the end of `ended` sees it.
        await outbox.commitFanOut(`${checkpoint}-early`, { position: '4', subscriptions: [], deliveries: [] }, T0);
        const early = (await outbox.loadFanOut(`${checkpoint}-early`)).subscriptions.map((s) => s.subscriptionId);
        expect(early).to.include.members([ended.subscriptionId, later.subscriptionId, active.subscriptionId]);
      });

      it('never clears an unsubscription (a replayed subscribe after it changes nothing)', async () => {
        const sub = aSubscription({ subscribedAt: '2' });
        await commit('3', [{ ...sub, unsubscribedAt: '3' }], []);
        await commit('4', [sub], []);
        const state = await outbox.loadFanOut(`${checkpoint}-none`);
        expect(state.subscriptions.find((s) => s.subscriptionId === sub.subscriptionId)?.unsubscribedAt).to.equal('3');
      });

      it('marks the pending rows of a subscription that ends failed (unsubscribed), and keeps the others', async () => {
        const sub = aSubscription();
        const delivered = aDelivery(sub, '5');
        const pending = aDelivery(sub, '6');
        await commit('6', [sub], [delivered, pending]);
        await outbox.recordAttempt(sub.subscriptionId, delivered.eventId, anAttempt(200), { state: 'delivered' });
        await commit('9', [{ ...sub, unsubscribedAt: '9' }], [], at(1000));
        expect(await outbox.get(sub.subscriptionId, delivered.eventId)).to.include({ state: 'delivered' });
        expect(await outbox.get(sub.subscriptionId, pending.eventId)).to.include({
          state: 'failed',
          failureReason: 'unsubscribed',
          completedAt: at(1000).toISOString(),
          nextAttemptAt: null,
        });
        expect(await outbox.head(sub.subscriptionId)).to.equal(null);
      });
    });

    describe('enqueue', () => {
      it('is idempotent per (subscription, event id) and leaves a stored row as it is', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '7');
        await commit('7', [sub], [row]);
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(500), { state: 'pending', nextAttemptAt: at(5000) });
        expect(await outbox.enqueue([row, { ...row, envelope: '{"changed":true}' }], at(10))).to.equal(0);
        const stored = await outbox.get(sub.subscriptionId, row.eventId);
        expect(stored).to.include({ envelope: row.envelope, roundAttempts: 1, nextAttemptAt: at(5000).toISOString() });
        expect((await outbox.listDeliveries(sub.subscriptionId, { page: 1, limit: 10 })).total).to.equal(1);
      });

      it('takes the same event id for two subscriptions, one row each', async () => {
        const a = aSubscription();
        const b = aSubscription({ companyId: a.companyId });
        const eventId = `evt-${randomUUID()}`;
        expect(await outbox.enqueue([aDelivery(a, '3', { eventId }), aDelivery(b, '3', { eventId })], T0)).to.equal(2);
        expect(await outbox.get(a.subscriptionId, eventId)).to.include({ subscriptionId: a.subscriptionId });
        expect(await outbox.get(b.subscriptionId, eventId)).to.include({ subscriptionId: b.subscriptionId });
      });

      it('keeps every field of the row', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '123456789012345678901234567890', { ordinal: 2, occurredAt: '2026-01-02T03:04:05.678Z' });
        await outbox.enqueue([row], T0);
        expect(await outbox.get(sub.subscriptionId, row.eventId)).to.deep.equal({
          ...row,
          state: 'pending',
          attempts: [],
          roundAttempts: 0,
          nextAttemptAt: T0.toISOString(),
          completedAt: null,
          failureReason: null,
          createdAt: T0.toISOString(),
        });
      });
    });

    describe('the head of a queue', () => {
      it('is the oldest pending row by log position (numerically), then ordinal, whatever the insertion order', async () => {
        const sub = aSubscription();
        const rows = [
          aDelivery(sub, '100'),
          aDelivery(sub, '99', { ordinal: 1 }),
          aDelivery(sub, '99', { ordinal: 0 }),
          aDelivery(sub, '1000'),
        ];
        await outbox.enqueue(rows, T0);
        const order: string[] = [];
        for (let head = await outbox.head(sub.subscriptionId); head; head = await outbox.head(sub.subscriptionId)) {
          order.push(`${head.position}.${head.ordinal}`);
          await outbox.recordAttempt(sub.subscriptionId, head.eventId, anAttempt(200), { state: 'delivered' });
        }
        expect(order).to.deep.equal(['99.0', '99.1', '100.0', '1000.0']);
      });

      it('stays on a row that is waiting for its retry, and moves on once it has failed', async () => {
        const sub = aSubscription();
        const [first, second] = [aDelivery(sub, '1'), aDelivery(sub, '2')];
        await outbox.enqueue([first!, second!], T0);
        await outbox.recordAttempt(sub.subscriptionId, first!.eventId, anAttempt(500), { state: 'pending', nextAttemptAt: at(60_000) });
        expect((await outbox.head(sub.subscriptionId))?.eventId).to.equal(first!.eventId);
        await outbox.recordAttempt(sub.subscriptionId, first!.eventId, anAttempt(null, at(60_000), 'timeout'), {
          state: 'failed',
          reason: 'retries_exhausted',
        });
        expect((await outbox.head(sub.subscriptionId))?.eventId).to.equal(second!.eventId);
      });
    });

    describe('a turn’s pending rows', () => {
      it('are the queue’s pending rows in queue order, the head first, at most `limit`', async () => {
        const sub = aSubscription();
        const other = aSubscription({ companyId: sub.companyId });
        const rows = [
          aDelivery(sub, '30'),
          aDelivery(sub, '4', { ordinal: 1 }),
          aDelivery(sub, '4', { ordinal: 0 }),
          aDelivery(sub, '200'),
          aDelivery(sub, '5'),
        ];
        await outbox.enqueue([...rows, aDelivery(other, '6')], T0);
        await outbox.recordAttempt(sub.subscriptionId, rows[2]!.eventId, anAttempt(200), { state: 'delivered' });
        await outbox.recordAttempt(sub.subscriptionId, rows[4]!.eventId, anAttempt(500), {
          state: 'failed',
          reason: 'retries_exhausted',
        });
        await outbox.recordAttempt(sub.subscriptionId, rows[1]!.eventId, anAttempt(500), { state: 'pending', nextAttemptAt: at(900) });

        const turn = await outbox.pendingRows(sub.subscriptionId, 10);
        expect(turn.map((d) => `${d.position}.${d.ordinal}`)).to.deep.equal(['4.1', '30.0', '200.0']);
        expect(turn[0]).to.deep.equal(await outbox.head(sub.subscriptionId));
        expect(turn[0]).to.deep.include({ roundAttempts: 1, nextAttemptAt: at(900).toISOString(), attempts: [anAttempt(500)] });
        expect((await outbox.pendingRows(sub.subscriptionId, 2)).map((d) => d.position)).to.deep.equal(['4', '30']);
        expect(await outbox.pendingRows(sub.subscriptionId, 0)).to.deep.equal([]);
        expect(await outbox.pendingRows('nobody', 10)).to.deep.equal([]);
      });
    });

    describe('recording attempts', () => {
      it('keeps what an attempt sent and what came back, as given, beside attempts without them', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '1');
        await outbox.enqueue([row], T0);
        const request = {
          url: sub.targetUrl,
          headers: { 'webhook-id': row.eventId, 'webhook-timestamp': '1772618400', 'webhook-signature': 'v1,abc= v1,def=', 'content-type': 'application/json' },
        };
        const failed: DeliveryAttempt = {
          ...anAttempt(503, at(1)),
          request,
          response: { headers: { 'retry-after': '5', 'set-cookie': '[redacted]' }, body: '{"error":"busy","echo":"é ✓"}', bodyTruncated: true },
        };
        const refused: DeliveryAttempt = { ...anAttempt(null, at(2), 'connect ECONNREFUSED 127.0.0.1:9'), errorKind: 'connection_refused', request };
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, failed, { state: 'pending', nextAttemptAt: at(2) });
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, refused, { state: 'pending', nextAttemptAt: at(3) });
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(200, at(3)), { state: 'delivered' });
        const stored = await outbox.get(sub.subscriptionId, row.eventId);
        expect(stored?.attempts).to.deep.equal([failed, refused, anAttempt(200, at(3))]);
        const [listed] = (await outbox.listDeliveries(sub.subscriptionId, { page: 1, limit: 10 })).items;
        expect(listed?.attempts).to.deep.equal([failed, refused, anAttempt(200, at(3))]);
      });

      it('delivered: final, with the attempt and its time', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '1');
        await outbox.enqueue([row], T0);
        expect(await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(200, at(5)), { state: 'delivered' })).to.equal(true);
        expect(await outbox.get(sub.subscriptionId, row.eventId)).to.deep.include({
          state: 'delivered',
          attempts: [anAttempt(200, at(5))],
          roundAttempts: 1,
          nextAttemptAt: null,
          completedAt: at(5).toISOString(),
          failureReason: null,
        });
      });

      it('the 410 that ended a subscription is recorded even when the unsubscription cancelled its row first', async () => {
        const sub = aSubscription();
        const [gone, other] = [aDelivery(sub, '1'), aDelivery(sub, '2')];
        await commit('2', [sub], [gone, other]);
        await commit('3', [{ ...sub, unsubscribedAt: '3' }], []);
        expect(await outbox.recordAttempt(sub.subscriptionId, gone.eventId, anAttempt(410, at(5)), { state: 'failed', reason: 'gone' })).to.equal(
          true,
        );
        expect(await outbox.get(sub.subscriptionId, gone.eventId)).to.deep.include({
          state: 'failed',
          failureReason: 'gone',
          attempts: [anAttempt(410, at(5))],
        });
        // Any other outcome on a cancelled row is refused: the row stays as the unsubscription left it.
        expect(await outbox.recordAttempt(sub.subscriptionId, other.eventId, anAttempt(500, at(6)), { state: 'pending', nextAttemptAt: at(100) })).to.equal(
          false,
        );
        expect(await outbox.get(sub.subscriptionId, other.eventId)).to.deep.include({ state: 'failed', failureReason: 'unsubscribed', attempts: [] });
      });

      it('a failure: pending until the next attempt, each attempt kept in order with status or error', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '1');
        await outbox.enqueue([row], T0);
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(503, at(0)), { state: 'pending', nextAttemptAt: at(100) });
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(null, at(100), 'ECONNREFUSED'), {
          state: 'pending',
          nextAttemptAt: at(300),
        });
        expect(await outbox.get(sub.subscriptionId, row.eventId)).to.deep.include({
          state: 'pending',
          attempts: [anAttempt(503, at(0)), anAttempt(null, at(100), 'ECONNREFUSED')],
          roundAttempts: 2,
          nextAttemptAt: at(300).toISOString(),
          completedAt: null,
        });
      });

      it('failed after the last retry: final, with the reason', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '1');
        await outbox.enqueue([row], T0);
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(500, at(7)), { state: 'failed', reason: 'retries_exhausted' });
        expect(await outbox.get(sub.subscriptionId, row.eventId)).to.include({
          state: 'failed',
          failureReason: 'retries_exhausted',
          completedAt: at(7).toISOString(),
          nextAttemptAt: null,
        });
      });

      it('changes nothing on a row that is not pending (answers false)', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '1');
        await outbox.enqueue([row], T0);
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(200), { state: 'delivered' });
        expect(
          await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(500), { state: 'failed', reason: 'retries_exhausted' }),
        ).to.equal(false);
        expect(await outbox.recordAttempt(sub.subscriptionId, 'no-such-event', anAttempt(200), { state: 'delivered' })).to.equal(false);
        expect(await outbox.get(sub.subscriptionId, row.eventId)).to.include({ state: 'delivered', roundAttempts: 1 });
      });

      it('keeps the most recent 100 attempts', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '1');
        await outbox.enqueue([row], T0);
        for (let i = 0; i < 103; i++) {
          await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(500, at(i)), { state: 'pending', nextAttemptAt: at(i + 1) });
        }
        const stored = await outbox.get(sub.subscriptionId, row.eventId);
        expect(stored?.attempts).to.have.length(100);
        expect(stored?.attempts[0]?.at).to.equal(at(3).toISOString());
        expect(stored?.roundAttempts).to.equal(103);
      });
    });

    describe('due queues', () => {
      const ids = (queues: readonly { subscriptionId: string }[]) => queues.map((q) => q.subscriptionId);

      it('lists the queues of active subscriptions due now, the longest-waiting first, and when the next one is due', async () => {
        const early = aSubscription();
        const late = aSubscription();
        const waiting = aSubscription();
        const ended = aSubscription();
        const idle = aSubscription();
        await commit('10', [early, late, waiting, ended, idle], []);
        await commit('11', [{ ...ended, unsubscribedAt: '11' }], []);
        await outbox.enqueue([aDelivery(late, '2'), aDelivery(late, '3')], at(500));
        await outbox.enqueue([aDelivery(early, '4')], at(100));
        const retrying = aDelivery(waiting, '1');
        await outbox.enqueue([retrying], at(0));
        await outbox.recordAttempt(waiting.subscriptionId, retrying.eventId, anAttempt(500), { state: 'pending', nextAttemptAt: at(5000) });
        await outbox.settleQueue(waiting.subscriptionId);
        await outbox.enqueue([aDelivery(ended, '5')], at(0));

        const { due, nextDueAt } = await outbox.dueQueues(at(1000), 10);
        expect(ids(due)).to.deep.equal([early.subscriptionId, late.subscriptionId]);
        expect(due[1]).to.deep.equal({ subscriptionId: late.subscriptionId, companyId: late.companyId, targetUrl: late.targetUrl, health: HEALTHY });
        expect(nextDueAt?.toISOString()).to.equal(at(5000).toISOString());

        expect(ids((await outbox.dueQueues(at(1000), 1)).due)).to.deep.equal([early.subscriptionId]);
        expect((await outbox.dueQueues(at(1000), 0)).due).to.deep.equal([]);
        expect(ids((await outbox.dueQueues(at(6000), 10)).due)).to.include(waiting.subscriptionId);
      });

      it('leaves out the queues being worked on, and every queue of the companies named', async () => {
        const companyId = `co-${randomUUID()}`;
        const [a1, a2] = [aSubscription({ companyId }), aSubscription({ companyId })];
        const b = aSubscription();
        await commit('3', [a1, a2, b], [aDelivery(a1, '1'), aDelivery(a2, '2'), aDelivery(b, '3')]);
        const mine = async (skip: Parameters<WebhookOutbox['dueQueues']>[2]) =>
          ids((await outbox.dueQueues(at(10), 100, skip)).due).filter((id) => [a1, a2, b].some((s) => s.subscriptionId === id));
        expect(await mine({})).to.have.members([a1.subscriptionId, a2.subscriptionId, b.subscriptionId]);
        expect(await mine({ queues: new Set([a1.subscriptionId]) })).to.have.members([a2.subscriptionId, b.subscriptionId]);
        expect(await mine({ companies: new Set([companyId]) })).to.deep.equal([b.subscriptionId]);
        expect(await mine({ queues: new Set([b.subscriptionId]), companies: new Set([companyId]) })).to.deep.equal([]);
      });

      it('makes an empty queue due when rows arrive, and a settled queue with nothing pending is not due', async () => {
        const sub = aSubscription();
        await commit('1', [sub], []);
        const isDue = async (when: Date) => ids((await outbox.dueQueues(when, 1000)).due).includes(sub.subscriptionId);
        expect(await isDue(at(10))).to.equal(false);
        const row = aDelivery(sub, '2');
        await commit('2', [], [row], at(5));
        expect(await isDue(at(10))).to.equal(true);
        // Not before the row was queued.
        expect(await isDue(at(1))).to.equal(false);
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(200), { state: 'delivered' });
        await outbox.settleQueue(sub.subscriptionId);
        expect(await isDue(at(10))).to.equal(false);
        // A row the fan-out stores again (a replay) is not new: the queue stays idle.
        await commit('2', [], [row], at(20));
        expect(await isDue(at(30))).to.equal(false);
        // A redelivery makes it due at once.
        expect(await outbox.redeliver(sub.subscriptionId, row.eventId, at(40))).to.equal('requeued');
        expect(await isDue(at(40))).to.equal(true);
      });

      it('a queue waiting for a retry is due at its head’s next attempt, and rows queued behind it do not change that', async () => {
        const sub = aSubscription();
        const [head, behind] = [aDelivery(sub, '1'), aDelivery(sub, '2')];
        await commit('1', [sub], [head]);
        await outbox.recordAttempt(sub.subscriptionId, head.eventId, anAttempt(500), { state: 'pending', nextAttemptAt: at(60_000) });
        await outbox.settleQueue(sub.subscriptionId);
        await commit('2', [], [behind], at(100));
        const listed = await outbox.dueQueues(at(1000), 1000);
        expect(ids(listed.due)).not.to.include(sub.subscriptionId);
        expect(listed.nextDueAt!.getTime()).to.be.at.most(at(60_000).getTime());
        expect(ids((await outbox.dueQueues(at(60_000), 1000)).due)).to.include(sub.subscriptionId);
      });

      it('a failed redelivery in front of a waiting head makes the queue due now', async () => {
        const sub = aSubscription();
        const [first, second] = [aDelivery(sub, '1'), aDelivery(sub, '2')];
        await commit('2', [sub], [first, second]);
        await outbox.recordAttempt(sub.subscriptionId, first.eventId, anAttempt(500), { state: 'failed', reason: 'retries_exhausted' });
        await outbox.recordAttempt(sub.subscriptionId, second.eventId, anAttempt(500), { state: 'pending', nextAttemptAt: at(60_000) });
        await outbox.settleQueue(sub.subscriptionId);
        expect(ids((await outbox.dueQueues(at(100), 1000)).due)).not.to.include(sub.subscriptionId);
        expect(await outbox.redeliverFailedSince(sub.subscriptionId, new Date(0), at(100))).to.equal(1);
        expect(ids((await outbox.dueQueues(at(100), 1000)).due)).to.include(sub.subscriptionId);
        expect((await outbox.head(sub.subscriptionId))?.eventId).to.equal(first.eventId);
      });
    });

    describe('the health of a queue', () => {
      const paused = (holdUntil: Date, failingSince = T0) => ({
        status: 'paused' as const,
        loggedStatus: 'paused' as const,
        failingSince: failingSince.toISOString(),
        pauses: 1,
        holdUntil: holdUntil.toISOString(),
      });
      const dueIds = async (when: Date) => (await outbox.dueQueues(when, 1000)).due.map((q) => q.subscriptionId);

      it('starts healthy, is stored with its version moved on, and comes back with the due queue', async () => {
        const sub = aSubscription();
        await commit('1', [sub], [aDelivery(sub, '1')]);
        expect(await outbox.health(sub.subscriptionId)).to.deep.equal(HEALTHY);
        expect(await outbox.health('nobody')).to.equal(null);
        const failing = { ...HEALTHY, failingSince: at(5).toISOString() };
        const { version: _v, ...change } = failing;
        expect(await outbox.setHealth(sub.subscriptionId, change, 0)).to.equal(true);
        expect(await outbox.health(sub.subscriptionId)).to.deep.equal({ ...failing, version: 1 });
        const [queue] = (await outbox.dueQueues(at(10), 1000)).due.filter((q) => q.subscriptionId === sub.subscriptionId);
        expect(queue?.health).to.deep.equal({ ...failing, version: 1 });
        expect(await outbox.setHealth('nobody', change, 0)).to.equal(false);
      });

      it('refuses a change made on an older version, and writes nothing', async () => {
        const sub = aSubscription();
        await commit('1', [sub], [aDelivery(sub, '1')]);
        expect(await outbox.setHealth(sub.subscriptionId, paused(at(60_000)), 0)).to.equal(true);
        expect(await outbox.setHealth(sub.subscriptionId, { ...paused(at(90_000)), pauses: 2 }, 0)).to.equal(false);
        expect(await outbox.health(sub.subscriptionId)).to.deep.equal({ ...paused(at(60_000)), version: 1 });
      });

      it('holds a paused queue until its hold ends, rows arriving meanwhile included', async () => {
        const sub = aSubscription();
        await commit('1', [sub], [aDelivery(sub, '1')]);
        await outbox.setHealth(sub.subscriptionId, paused(at(60_000)), 0);
        expect(await dueIds(at(1000))).not.to.include(sub.subscriptionId);
        expect((await outbox.dueQueues(at(1000), 1000)).nextDueAt!.getTime()).to.be.at.most(at(60_000).getTime());
        await commit('2', [], [aDelivery(sub, '2')], at(2000));
        expect(await dueIds(at(2000))).not.to.include(sub.subscriptionId);
        expect(await dueIds(at(60_000))).to.include(sub.subscriptionId);
      });

      it('an empty paused queue that gets a row is due only when its hold ends', async () => {
        const sub = aSubscription();
        await commit('1', [sub], []);
        await outbox.setHealth(sub.subscriptionId, paused(at(60_000)), 0);
        await commit('2', [], [aDelivery(sub, '2')], at(10));
        expect(await dueIds(at(10))).not.to.include(sub.subscriptionId);
        expect(await dueIds(at(60_000))).to.include(sub.subscriptionId);
      });

      it('never lists a disabled queue, which keeps its rows; enabling it makes it due from its head, healthy again', async () => {
        const sub = aSubscription();
        const rows = [aDelivery(sub, '1'), aDelivery(sub, '2')];
        await commit('2', [sub], rows);
        const disabled = { ...paused(at(0)), status: 'disabled' as const, loggedStatus: 'disabled' as const, holdUntil: null };
        expect(await outbox.setHealth(sub.subscriptionId, disabled, 0)).to.equal(true);
        expect(await dueIds(at(1_000_000))).not.to.include(sub.subscriptionId);
        await commit('3', [], [aDelivery(sub, '3')], at(10));
        expect(await dueIds(at(1_000_000))).not.to.include(sub.subscriptionId);
        expect(await outbox.redeliver(sub.subscriptionId, rows[0]!.eventId, at(20))).to.equal('pending');
        expect((await outbox.listDeliveries(sub.subscriptionId, { page: 1, limit: 10 })).items.map((d) => d.state)).to.deep.equal([
          'pending',
          'pending',
          'pending',
        ]);

        expect(await outbox.enableDelivery(sub.subscriptionId)).to.equal(true);
        expect(await outbox.health(sub.subscriptionId)).to.deep.equal({ ...HEALTHY, version: 2 });
        expect(await dueIds(at(30))).to.include(sub.subscriptionId);
        expect((await outbox.head(sub.subscriptionId))?.eventId).to.equal(rows[0]!.eventId);
      });

      it('enabling a paused queue ends its hold at once', async () => {
        const sub = aSubscription();
        await commit('1', [sub], [aDelivery(sub, '1')]);
        await outbox.setHealth(sub.subscriptionId, paused(at(3_600_000)), 0);
        expect(await outbox.enableDelivery(sub.subscriptionId)).to.equal(true);
        expect(await dueIds(at(10))).to.include(sub.subscriptionId);
      });

      it('does not enable an unknown, ended or stopped subscription', async () => {
        const ended = aSubscription();
        const stopped = aSubscription();
        await commit('2', [ended, stopped], [aDelivery(stopped, '1')]);
        await commit('3', [{ ...ended, unsubscribedAt: '3' }], []);
        await outbox.stopSubscription(stopped.subscriptionId, at(10));
        expect(await outbox.enableDelivery('nobody')).to.equal(false);
        expect(await outbox.enableDelivery(ended.subscriptionId)).to.equal(false);
        expect(await outbox.enableDelivery(stopped.subscriptionId)).to.equal(false);
        expect(await dueIds(at(1_000_000))).not.to.include.members([ended.subscriptionId, stopped.subscriptionId]);
      });
    });

    describe('a receiver that is gone', () => {
      it('stops the queue at once: pending rows failed (gone), no due head, no redelivery', async () => {
        const sub = aSubscription();
        const rows = [aDelivery(sub, '1'), aDelivery(sub, '2')];
        await commit('2', [sub], rows);
        await outbox.recordAttempt(sub.subscriptionId, rows[0]!.eventId, anAttempt(410), { state: 'failed', reason: 'gone' });
        await outbox.stopSubscription(sub.subscriptionId, at(50));
        expect(await outbox.get(sub.subscriptionId, rows[1]!.eventId)).to.include({ state: 'failed', failureReason: 'gone' });
        expect((await outbox.dueQueues(at(100), 10)).due.map((q) => q.subscriptionId)).not.to.include(sub.subscriptionId);
        // Rows the fan-out still adds (before it reads the unsubscription) are never due.
        await commit('3', [], [aDelivery(sub, '3')]);
        expect((await outbox.dueQueues(at(100), 10)).due.map((q) => q.subscriptionId)).not.to.include(sub.subscriptionId);
        expect(await outbox.redeliver(sub.subscriptionId, rows[0]!.eventId, at(200))).to.equal('inactive');
        expect(await outbox.redeliverFailedSince(sub.subscriptionId, T0, at(200))).to.equal(0);
      });
    });

    describe('depth by state', () => {
      it('counts every row by state (pending, delivered, failed)', async () => {
        const before = await outbox.depthByState();
        const sub = aSubscription();
        const rows = [aDelivery(sub, '1'), aDelivery(sub, '2'), aDelivery(sub, '3')];
        await outbox.enqueue(rows, T0);
        await outbox.recordAttempt(sub.subscriptionId, rows[0]!.eventId, anAttempt(200), { state: 'delivered' });
        await outbox.recordAttempt(sub.subscriptionId, rows[1]!.eventId, anAttempt(500), {
          state: 'failed',
          reason: 'retries_exhausted',
        });
        const after = await outbox.depthByState();
        expect({
          pending: after.pending - before.pending,
          delivered: after.delivered - before.delivered,
          failed: after.failed - before.failed,
        }).to.deep.equal({ pending: 1, delivered: 1, failed: 1 });
      });
    });

    describe('counts by state through every change', () => {
      it('moves the counts with enqueue (duplicates left out), attempts, redeliveries, stops, unsubscriptions and pruning', async () => {
        const start = await outbox.depthByState();
        const delta = async () => {
          const now = await outbox.depthByState();
          return { pending: now.pending - start.pending, delivered: now.delivered - start.delivered, failed: now.failed - start.failed };
        };
        const sub = aSubscription();
        const gone = aSubscription();
        const ended = aSubscription();
        const rows = ['1', '2', '3', '4'].map((p) => aDelivery(sub, p));
        await commit('4', [sub, gone, ended], [...rows, aDelivery(gone, '2'), aDelivery(gone, '3'), aDelivery(ended, '3')]);
        expect(await outbox.enqueue([rows[0]!], T0)).to.equal(0);
        expect(await delta()).to.deep.equal({ pending: 7, delivered: 0, failed: 0 });

        await outbox.recordAttempt(sub.subscriptionId, rows[0]!.eventId, anAttempt(200), { state: 'delivered' });
        await outbox.recordAttempt(sub.subscriptionId, rows[1]!.eventId, anAttempt(500), { state: 'pending', nextAttemptAt: at(5) });
        await outbox.recordAttempt(sub.subscriptionId, rows[2]!.eventId, anAttempt(500), { state: 'failed', reason: 'retries_exhausted' });
        // Not pending any more: nothing recorded, nothing counted.
        expect(await outbox.recordAttempt(sub.subscriptionId, rows[0]!.eventId, anAttempt(200), { state: 'delivered' })).to.equal(false);
        expect(await delta()).to.deep.equal({ pending: 5, delivered: 1, failed: 1 });

        await outbox.stopSubscription(gone.subscriptionId, at(10));
        await commit('5', [{ ...ended, unsubscribedAt: '5' }], [], at(10));
        expect(await delta()).to.deep.equal({ pending: 2, delivered: 1, failed: 4 });

        expect(await outbox.redeliver(sub.subscriptionId, rows[0]!.eventId, at(20))).to.equal('requeued');
        expect(await outbox.redeliverFailedSince(sub.subscriptionId, new Date(0), at(20))).to.equal(1);
        expect(await delta()).to.deep.equal({ pending: 4, delivered: 0, failed: 3 });

        expect(await outbox.pruneCompleted(at(1_000_000), 100)).to.equal(3);
        expect(await delta()).to.deep.equal({ pending: 4, delivered: 0, failed: 0 });
      });
    });

    describe('retention', () => {
      const DAY = 86_400_000;
      it('prunes delivered and failed rows that became final before the cutoff, oldest first, at most `limit` at a time', async () => {
        const sub = aSubscription();
        const rows = ['1', '2', '3', '4', '5', '6'].map((p) => aDelivery(sub, p));
        await commit('6', [sub], rows);
        // Final on days 0, 1, 2 (delivered, failed, delivered) and day 40; one still pending, one waiting for a retry.
        await outbox.recordAttempt(sub.subscriptionId, rows[0]!.eventId, anAttempt(200, at(0)), { state: 'delivered' });
        await outbox.recordAttempt(sub.subscriptionId, rows[1]!.eventId, anAttempt(500, at(DAY)), { state: 'failed', reason: 'retries_exhausted' });
        await outbox.recordAttempt(sub.subscriptionId, rows[2]!.eventId, anAttempt(200, at(2 * DAY)), { state: 'delivered' });
        await outbox.recordAttempt(sub.subscriptionId, rows[3]!.eventId, anAttempt(200, at(40 * DAY)), { state: 'delivered' });
        await outbox.recordAttempt(sub.subscriptionId, rows[4]!.eventId, anAttempt(500, at(DAY)), { state: 'pending', nextAttemptAt: at(2 * DAY) });
        const cutoff = at(30 * DAY);

        expect(await outbox.pruneCompleted(cutoff, 2)).to.equal(2);
        const left = async () => (await outbox.listDeliveries(sub.subscriptionId, { page: 1, limit: 10 })).items.map((d) => d.position);
        // The two oldest of the final rows are gone (one delivered, one failed), whatever their state.
        expect(await left()).to.deep.equal(['6', '5', '4', '3']);
        expect(await outbox.pruneCompleted(cutoff, 2)).to.equal(1);
        expect(await outbox.pruneCompleted(cutoff, 2)).to.equal(0);
        // Pending rows stay, however old; so do final rows newer than the cutoff.
        expect(await left()).to.deep.equal(['6', '5', '4']);
        expect(await outbox.get(sub.subscriptionId, rows[2]!.eventId)).to.equal(null);
        expect(await outbox.redeliver(sub.subscriptionId, rows[2]!.eventId, at(50 * DAY))).to.equal('not_found');
      });

      it('prunes nothing with a limit of 0', async () => {
        const sub = aSubscription();
        const row = aDelivery(sub, '1');
        await commit('1', [sub], [row]);
        await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(200), { state: 'delivered' });
        expect(await outbox.pruneCompleted(at(100 * DAY), 0)).to.equal(0);
        expect(await outbox.get(sub.subscriptionId, row.eventId)).to.include({ state: 'delivered' });
      });
    });

    describe('listing deliveries', () => {
      it('lists a subscription’s rows newest first, by page, with the total', async () => {
        const sub = aSubscription();
        const other = aSubscription({ companyId: sub.companyId });
        await outbox.enqueue(
          ['5', '40', '300', '2000', '10000'].map((p) => aDelivery(sub, p)).concat([aDelivery(other, '7')]),
          T0,
        );
        const first = await outbox.listDeliveries(sub.subscriptionId, { page: 1, limit: 2 });
        const third = await outbox.listDeliveries(sub.subscriptionId, { page: 3, limit: 2 });
        expect(first.total).to.equal(5);
        expect(first.items.map((d) => d.position)).to.deep.equal(['10000', '2000']);
        expect(third.items.map((d) => d.position)).to.deep.equal(['5']);
        expect((await outbox.listDeliveries(sub.subscriptionId, { page: 4, limit: 2 })).items).to.deep.equal([]);
        expect((await outbox.listDeliveries('nobody', { page: 1, limit: 2 })).total).to.equal(0);
      });
    });

    describe('redelivery', () => {
      it('puts a delivered or failed row back in the queue with its event id, body and attempt history', async () => {
        const sub = aSubscription();
        const rows = [aDelivery(sub, '1'), aDelivery(sub, '2'), aDelivery(sub, '3')];
        await commit('3', [sub], rows);
        await outbox.recordAttempt(sub.subscriptionId, rows[0]!.eventId, anAttempt(200), { state: 'delivered' });
        await outbox.recordAttempt(sub.subscriptionId, rows[1]!.eventId, anAttempt(500), { state: 'failed', reason: 'retries_exhausted' });

        expect(await outbox.redeliver(sub.subscriptionId, rows[0]!.eventId, at(900))).to.equal('requeued');
        const again = await outbox.get(sub.subscriptionId, rows[0]!.eventId);
        expect(again).to.deep.include({
          eventId: rows[0]!.eventId,
          envelope: rows[0]!.envelope,
          state: 'pending',
          roundAttempts: 0,
          nextAttemptAt: at(900).toISOString(),
          completedAt: null,
          failureReason: null,
          attempts: [anAttempt(200)],
        });
        // Back at its place in the log order: the head again.
        expect((await outbox.head(sub.subscriptionId))?.eventId).to.equal(rows[0]!.eventId);
        expect(await outbox.redeliver(sub.subscriptionId, rows[2]!.eventId, at(900))).to.equal('pending');
        expect(await outbox.redeliver(sub.subscriptionId, 'no-such-event', at(900))).to.equal('not_found');
      });

      it('puts back every failed row whose event occurred since a time, and nothing else', async () => {
        const sub = aSubscription();
        const old = aDelivery(sub, '1', { occurredAt: '2026-03-01T00:00:00.000Z' });
        const recent = aDelivery(sub, '2', { occurredAt: '2026-03-03T00:00:00.000Z' });
        const delivered = aDelivery(sub, '3', { occurredAt: '2026-03-03T01:00:00.000Z' });
        const pending = aDelivery(sub, '4', { occurredAt: '2026-03-03T02:00:00.000Z' });
        await commit('4', [sub], [old, recent, delivered, pending]);
        for (const row of [old, recent]) {
          await outbox.recordAttempt(sub.subscriptionId, row.eventId, anAttempt(500), { state: 'failed', reason: 'retries_exhausted' });
        }
        await outbox.recordAttempt(sub.subscriptionId, delivered.eventId, anAttempt(200), { state: 'delivered' });

        expect(await outbox.redeliverFailedSince(sub.subscriptionId, new Date('2026-03-02T00:00:00.000Z'), at(10))).to.equal(1);
        expect(await outbox.get(sub.subscriptionId, recent.eventId)).to.include({ state: 'pending', roundAttempts: 0 });
        expect(await outbox.get(sub.subscriptionId, old.eventId)).to.include({ state: 'failed' });
        expect(await outbox.get(sub.subscriptionId, delivered.eventId)).to.include({ state: 'delivered' });
      });
    });

    describe('erasure', () => {
      it("rewrites the envelope of every row of the company's subscriptions that mentions the id, pending or final, and no other", async () => {
        const personId = randomUUID();
        const sub = aSubscription({ event: 'contact.created' });
        const otherCompany = aSubscription({ event: 'contact.created' });
        const mentioning = (s: FannedOutSubscription, position: string) =>
          aDelivery(s, position, { envelope: JSON.stringify({ event: 'contact.created', data: { id: personId, name: 'Ada Quill' } }) });
        const pending = mentioning(sub, '10');
        const delivered = mentioning(sub, '11');
        const unrelated = aDelivery(sub, '12');
        const elsewhere = mentioning(otherCompany, '13');
        await commit('20', [sub, otherCompany], [pending, delivered, unrelated, elsewhere]);
        await outbox.recordAttempt(sub.subscriptionId, delivered.eventId, anAttempt(200), { state: 'delivered' });

        const changed = await outbox.eraseMentions(sub.companyId, personId, (envelope) => envelope.replace('Ada Quill', 'null'));

        expect(changed).to.equal(2);
        for (const row of [pending, delivered]) {
          const stored = await outbox.get(sub.subscriptionId, row.eventId);
          expect(stored?.envelope).to.equal(JSON.stringify({ event: 'contact.created', data: { id: personId, name: 'null' } }));
        }
        expect(await outbox.get(sub.subscriptionId, pending.eventId)).to.include({ state: 'pending' });
        expect(await outbox.get(sub.subscriptionId, delivered.eventId)).to.include({ state: 'delivered' });
        expect((await outbox.get(sub.subscriptionId, unrelated.eventId))?.envelope).to.equal(unrelated.envelope);
        expect((await outbox.get(otherCompany.subscriptionId, elsewhere.eventId))?.envelope).to.equal(elsewhere.envelope);
        expect(await outbox.eraseMentions(sub.companyId, randomUUID(), () => 'x')).to.equal(0);
      });

      it('empties the responses of the attempts of the rows it rewrites (a receiver may echo the body), and keeps the others', async () => {
        const personId = randomUUID();
        const sub = aSubscription({ event: 'contact.created' });
        const envelope = JSON.stringify({ event: 'contact.created', data: { id: personId, name: 'Ada Quill' } });
        const mentioning = aDelivery(sub, '10', { envelope });
        const unrelated = aDelivery(sub, '11');
        await commit('20', [sub], [mentioning, unrelated]);
        const echoed = (body: string): DeliveryAttempt => ({
          ...anAttempt(500),
          request: { url: sub.targetUrl, headers: { 'webhook-signature': 'v1,abc=' } },
          response: { headers: { 'x-echo': body.slice(0, 40) }, body, bodyTruncated: false },
        });
        await outbox.recordAttempt(sub.subscriptionId, mentioning.eventId, echoed(envelope), { state: 'pending', nextAttemptAt: at(1) });
        await outbox.recordAttempt(sub.subscriptionId, mentioning.eventId, anAttempt(null, at(1), 'timeout'), { state: 'pending', nextAttemptAt: at(2) });
        await outbox.recordAttempt(sub.subscriptionId, unrelated.eventId, echoed(unrelated.envelope), { state: 'pending', nextAttemptAt: at(1) });

        expect(await outbox.eraseMentions(sub.companyId, personId, (text) => text.replace('Ada Quill', 'null'))).to.equal(1);

        const erased = await outbox.get(sub.subscriptionId, mentioning.eventId);
        expect(JSON.stringify(erased)).not.to.contain('Ada Quill');
        expect(erased?.attempts[0]?.response).to.deep.equal({ headers: {}, body: '', bodyTruncated: false, erased: true });
        expect(erased?.attempts[0]?.request).to.deep.equal({ url: sub.targetUrl, headers: { 'webhook-signature': 'v1,abc=' } });
        expect(erased?.attempts[1]).to.deep.equal(anAttempt(null, at(1), 'timeout'));
        expect((await outbox.get(sub.subscriptionId, unrelated.eventId))?.attempts).to.deep.equal([echoed(unrelated.envelope)]);
      });

      it('keeps no response of an attempt that was in flight while an erasure rewrote its row (it sent, and may echo, the old body)', async () => {
        const personId = randomUUID();
        const sub = aSubscription({ event: 'contact.created' });
        const envelope = JSON.stringify({ event: 'contact.created', data: { id: personId, name: 'Ada Quill' } });
        const [row, other] = [aDelivery(sub, '10', { envelope }), aDelivery(sub, '11')];
        await commit('20', [sub], [row, other]);
        const echoed = (body: string): DeliveryAttempt => ({
          ...anAttempt(200),
          request: { url: sub.targetUrl, headers: {} },
          response: { headers: { 'x-echo': 'Ada Quill' }, body, bodyTruncated: false },
        });
        // Sent before the erasure, recorded after it.
        await outbox.eraseMentions(sub.companyId, personId, (text) => text.replace('Ada Quill', 'null'));
        expect(await outbox.recordAttempt(sub.subscriptionId, row.eventId, echoed(envelope), { state: 'delivered' }, envelope)).to.equal(true);
        const stored = await outbox.get(sub.subscriptionId, row.eventId);
        expect(stored).to.include({ state: 'delivered' });
        expect(JSON.stringify(stored)).not.to.contain('Ada Quill');
        expect(stored?.attempts).to.deep.equal([{ ...echoed(envelope), response: { headers: {}, body: '', bodyTruncated: false, erased: true } }]);
        // A row whose envelope is the one sent keeps its response.
        expect(await outbox.recordAttempt(sub.subscriptionId, other.eventId, echoed(other.envelope), { state: 'delivered' }, other.envelope)).to.equal(true);
        expect((await outbox.get(sub.subscriptionId, other.eventId))?.attempts).to.deep.equal([echoed(other.envelope)]);
        // And a row no longer pending is not written either way.
        expect(await outbox.recordAttempt(sub.subscriptionId, other.eventId, echoed(other.envelope), { state: 'delivered' }, 'another body')).to.equal(false);
      });

      it("forgets, on the company's erasure, every row of its subscriptions, pending or final, the counts by state following, and no other company's", async () => {
        const sub = aSubscription({ event: 'contact.created' });
        const second = { ...aSubscription({ event: 'deal.created' }), companyId: sub.companyId };
        const otherCompany = aSubscription({ event: 'contact.created' });
        const [pending, delivered, failed, elsewhere] = [aDelivery(sub, '10'), aDelivery(sub, '11'), aDelivery(second, '12'), aDelivery(otherCompany, '13')];
        await commit('20', [sub, second, otherCompany], [pending, delivered, failed, elsewhere]);
        await outbox.recordAttempt(sub.subscriptionId, delivered.eventId, anAttempt(200), { state: 'delivered' });
        await outbox.recordAttempt(second.subscriptionId, failed.eventId, anAttempt(500), { state: 'failed', reason: 'retries_exhausted' });
        const before = await outbox.depthByState();

        expect(await outbox.forgetCompany(sub.companyId)).to.equal(3);

        for (const [s, row] of [[sub, pending], [sub, delivered], [second, failed]] as const) expect(await outbox.get(s.subscriptionId, row.eventId)).to.equal(null);
        expect(await outbox.head(sub.subscriptionId)).to.equal(null);
        expect((await outbox.listDeliveries(sub.subscriptionId, { page: 1, limit: 10 })).total).to.equal(0);
        expect(await outbox.get(otherCompany.subscriptionId, elsewhere.eventId)).to.include({ state: 'pending', envelope: elsewhere.envelope });
        const after = await outbox.depthByState();
        expect({ pending: before.pending - after.pending, delivered: before.delivered - after.delivered, failed: before.failed - after.failed }).to.deep.equal({
          pending: 1,
          delivered: 1,
          failed: 1,
        });
        expect(await outbox.forgetCompany(sub.companyId)).to.equal(0);
      });
    });
  });
};
