import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { HELD_REFRESH_MS } from '../../../../src/webhooks/dispatcher.js';
import { clockAhead } from '../../../support/clocks.js';
import { eventually } from '../../../support/events.js';
import { dispatcherHarness } from './support/dispatcherHarness.js';
import { startReceiver, type Receiver } from './support/receiver.js';

/**
 * A company held while one of its queues is in the middle of a turn (attempts on the
 * event loop): the turn stops after the attempt in flight, the rows behind it stay
 * pending, unattempted, and go out in order once the company is released.
 */
describe('Webhook dispatcher: a company held in the middle of a turn', function () {
  this.timeout(10_000);
  let receiver: Receiver;
  let harness: ReturnType<typeof dispatcherHarness>;
  afterEach(async () => {
    await harness.dispose();
    await receiver.close();
  });

  it('sends nothing after the attempt in flight, and the rest in order once released', async () => {
    receiver = await startReceiver();
    const held = new Set<string>();
    // The server's clock, put ahead past the time the list of held companies is reused.
    const time = clockAhead();
    harness = dispatcherHarness({ clock: time, heldCompanies: async () => new Set(held) });
    let first: ServerResponse | null = null;
    receiver.on('/a', (_request, res) => {
      if (first === null) first = res;
      else res.writeHead(200).end('ok');
    });
    const sub = await harness.subscribe(`${receiver.url}/a`, 4, 'co-held');
    harness.dispatcher.start();
    // The turn read its four rows and is waiting for the first one's answer.
    await eventually(() => first !== null);
    held.add('co-held');
    time.advance(HELD_REFRESH_MS);
    (first as ServerResponse | null)!.writeHead(200).end('ok');
    await eventually(async () => (await harness.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'delivered');
    // Several more reads of the outbox: the held queue is left out of each.
    const reads = harness.calls.get('dueQueues') ?? 0;
    await eventually(() => (harness.calls.get('dueQueues') ?? 0) >= reads + 3);
    expect(receiver.ids('/a')).to.deep.equal(sub.eventIds.slice(0, 1));
    for (const eventId of sub.eventIds.slice(1)) {
      expect(await harness.outbox.get(sub.subscriptionId, eventId), eventId).to.deep.include({ state: 'pending', attempts: [], roundAttempts: 0 });
    }

    held.clear();
    time.advance(HELD_REFRESH_MS);
    await eventually(() => receiver.ids('/a').length === 4);
    expect(receiver.ids('/a')).to.deep.equal(sub.eventIds);
  });
});
