import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { startDeliveryThread, type DeliveryThread } from '../../../../src/webhooks/deliveryThread.js';
import type { SentAttempt, TurnRequest, TurnSignals } from '../../../../src/webhooks/turnSender.js';
import { captureLogger } from '../../../support/captureLogger.js';
import { eventually, sleep } from '../../../support/events.js';
import { aSecret } from './support/events.js';
import { startReceiver, type Receiver } from './support/receiver.js';

/** Every attempt of a turn, in order, and how many batches they came in. */
const collect = async (thread: DeliveryThread, request: TurnRequest, signals?: Partial<TurnSignals>) => {
  const attempts: SentAttempt[] = [];
  let batches = 0;
  const never = new AbortController().signal;
  for await (const batch of thread.sendTurn(request, { finish: signals?.finish ?? never, stop: signals?.stop ?? never })) {
    batches += 1;
    attempts.push(...batch);
  }
  return { attempts, batches };
};

const rows = (count: number) =>
  Array.from({ length: count }, (_, n) => {
    const eventId = `evt-${n}`;
    return { eventId, envelope: JSON.stringify({ event: 'contact.created', data: { n }, metadata: { eventId } }) };
  });

describe('Webhook delivery thread', function () {
  this.timeout(10_000);
  let receiver: Receiver;
  let thread: DeliveryThread;
  const logger = captureLogger();

  beforeEach(async () => {
    receiver = await startReceiver();
    thread = startDeliveryThread({ allowPrivateTargets: true, maxFreeSockets: 4, logger });
  });
  afterEach(async () => {
    await thread.close();
    await receiver.close();
  });

  it('sends a turn’s rows in order, signed, and gives every attempt back in order', async () => {
    const secret = aSecret();
    const { attempts } = await collect(thread, { url: `${receiver.url}/a`, secret, rows: rows(5), timeoutMs: 2000 });
    expect(attempts.map((a) => a.statusCode)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(attempts.every((a) => a.error === null && a.retryAfter === null && a.latencyMs >= 0 && !Number.isNaN(Date.parse(a.at)))).to.equal(true);
    expect(receiver.ids('/a')).to.deep.equal(['evt-0', 'evt-1', 'evt-2', 'evt-3', 'evt-4']);
    for (const request of receiver.requests) {
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    }
  });

  it('gives a turn’s attempts back together when they come quickly (one batch for the turn)', async () => {
    const { attempts, batches } = await collect(thread, { url: `${receiver.url}/a`, secret: aSecret(), rows: rows(10), timeoutMs: 2000 });
    expect(attempts).to.have.length(10);
    expect(batches).to.equal(1);
  });

  it('gives an attempt back within about 100 ms although the turn goes on (a slow receiver)', async () => {
    receiver.on('/slow', (request, res) => {
      const n = (JSON.parse(request.body) as { data: { n: number } }).data.n;
      setTimeout(() => res.writeHead(200).end(), n === 0 ? 0 : 400);
    });
    const startedAt = Date.now();
    const firstBatchAfter: number[] = [];
    const never = new AbortController().signal;
    for await (const batch of thread.sendTurn({ url: `${receiver.url}/slow`, secret: aSecret(), rows: rows(2), timeoutMs: 2000 }, { finish: never, stop: never })) {
      firstBatchAfter.push(Date.now() - startedAt);
      expect(batch.length).to.be.at.least(1);
    }
    expect(firstBatchAfter).to.have.length(2);
    // The first row's 200 came at once; it is back while the second row's attempt still waits.
    expect(firstBatchAfter[0]).to.be.below(350);
    expect(firstBatchAfter[1]).to.be.at.least(380);
  });

  it('stops at the first answer that is not a 200: nothing after it is sent', async () => {
    receiver.on('/a', (request, res) => {
      const n = (JSON.parse(request.body) as { data: { n: number } }).data.n;
      res.writeHead(n === 1 ? 503 : 200, n === 1 ? { 'retry-after': '7' } : {}).end();
    });
    const { attempts } = await collect(thread, { url: `${receiver.url}/a`, secret: aSecret(), rows: rows(4), timeoutMs: 2000 });
    expect(attempts.map((a) => [a.statusCode, a.retryAfter])).to.deep.equal([
      [200, null],
      [503, '7'],
    ]);
    await sleep(50);
    expect(receiver.ids('/a')).to.deep.equal(['evt-0', 'evt-1']);
  });

  it('times an attempt out, and stops there', async () => {
    receiver.on('/hang', () => undefined);
    const { attempts } = await collect(thread, { url: `${receiver.url}/hang`, secret: aSecret(), rows: rows(2), timeoutMs: 150 });
    expect(attempts).to.have.length(1);
    expect(attempts[0]).to.include({ statusCode: null, error: 'No complete response within 150 ms' });
    expect(receiver.requests).to.have.length(1);
  });

  it('refuses a private address unless allowed, without a request', async () => {
    const guarded = startDeliveryThread({ allowPrivateTargets: false, maxFreeSockets: 4, logger });
    try {
      const { attempts } = await collect(guarded, { url: `${receiver.url}/a`, secret: aSecret(), rows: rows(2), timeoutMs: 2000 });
      expect(attempts).to.have.length(1);
      expect(attempts[0]?.statusCode).to.equal(null);
      expect(attempts[0]?.error).to.match(/^EREFUSEDADDRESS: Refused to connect to 127\.0\.0\.1/);
      expect(receiver.requests).to.have.length(0);
    } finally {
      await guarded.close();
    }
  });

  it('on finish, sends no more rows but gives back the attempt in flight', async () => {
    receiver.on('/a', (_request, res) => void setTimeout(() => res.writeHead(200).end(), 200));
    const finish = new AbortController();
    const turn = collect(thread, { url: `${receiver.url}/a`, secret: aSecret(), rows: rows(5), timeoutMs: 2000 }, { finish: finish.signal });
    await eventually(() => receiver.requests.length === 1);
    finish.abort();
    const { attempts } = await turn;
    expect(attempts.map((a) => a.statusCode)).to.deep.equal([200]);
    await sleep(250);
    expect(receiver.requests).to.have.length(1);
  });

  it('on stop, aborts the attempt in flight and gives nothing back for it', async () => {
    receiver.on('/hang', () => undefined);
    const stop = new AbortController();
    const turn = collect(thread, { url: `${receiver.url}/hang`, secret: aSecret(), rows: rows(3), timeoutMs: 5000 }, { stop: stop.signal });
    await eventually(() => receiver.requests.length === 1);
    const stoppedAt = Date.now();
    stop.abort();
    const { attempts } = await turn;
    expect(attempts).to.deep.equal([]);
    expect(Date.now() - stoppedAt).to.be.below(1000);
  });

  it('sends nothing more of a turn the caller left', async () => {
    receiver.on('/a', (_request, res) => void setTimeout(() => res.writeHead(200).end(), 50));
    const never = new AbortController().signal;
    for await (const batch of thread.sendTurn({ url: `${receiver.url}/a`, secret: aSecret(), rows: rows(20), timeoutMs: 2000 }, { finish: never, stop: never })) {
      expect(batch.length).to.be.at.least(1);
      break;
    }
    const sent = receiver.requests.length;
    await sleep(300);
    // At most the attempt in flight when the caller left (aborted), nothing after it.
    expect(receiver.requests.length).to.be.within(sent, sent + 1);
    expect(receiver.requests.length).to.be.below(20);
  });

  it('keeps turns of several queues in flight at once', async () => {
    receiver.on('/q0', (_request, res) => void setTimeout(() => res.writeHead(200).end(), 100));
    receiver.on('/q1', (_request, res) => void setTimeout(() => res.writeHead(200).end(), 100));
    const startedAt = Date.now();
    const [a, b] = await Promise.all(
      ['/q0', '/q1'].map((path) => collect(thread, { url: `${receiver.url}${path}`, secret: aSecret(), rows: rows(3), timeoutMs: 2000 })),
    );
    expect(a!.attempts).to.have.length(3);
    expect(b!.attempts).to.have.length(3);
    // Side by side: about 300 ms, not 600.
    expect(Date.now() - startedAt).to.be.below(550);
    expect(receiver.maxInFlight()).to.equal(2);
  });

  it('ends the turns in flight with an error when the thread dies, and starts a new thread for the next turn', async () => {
    const crashing = startDeliveryThread({
      allowPrivateTargets: true,
      maxFreeSockets: 4,
      logger,
      entry: new URL('../../../support/crashingDeliveryThread.js', import.meta.url),
    });
    try {
      receiver.on('/hang', () => undefined);
      const inFlight = collect(crashing, { url: `${receiver.url}/hang`, secret: aSecret(), rows: rows(1), timeoutMs: 5000 });
      await eventually(() => receiver.requests.length === 1);
      const crash = collect(crashing, { url: `${receiver.url}/a`, secret: aSecret(), rows: [{ eventId: 'crash', envelope: '{}' }], timeoutMs: 2000 });
      for (const turn of [inFlight, crash]) {
        await turn.then(
          () => expect.fail('the turn should have failed'),
          (error: Error) => expect(error.message).to.equal('The webhook delivery thread exited with code 3'),
        );
      }
      const { attempts } = await collect(crashing, { url: `${receiver.url}/a`, secret: aSecret(), rows: rows(1), timeoutMs: 2000 });
      expect(attempts.map((a) => a.statusCode)).to.deep.equal([200]);
      expect(logger.lines.filter((line) => line.msg === 'webhook delivery thread stopped; a new one starts with the next turn')).to.have.length(1);
    } finally {
      await crashing.close();
    }
  });

  it('with two threads, sends turns side by side on both, and a thread that dies fails only its own turns', async () => {
    const pair = startDeliveryThread({
      allowPrivateTargets: true,
      maxFreeSockets: 4,
      logger,
      threads: 2,
      entry: new URL('../../../support/crashingDeliveryThread.js', import.meta.url),
    });
    const stopped = () => logger.lines.filter((line) => line.msg === 'webhook delivery thread stopped; a new one starts with the next turn').length;
    const stoppedBefore = stopped();
    try {
      receiver.on('/slow', (_request, response) => void setTimeout(() => response.end('ok'), 400));
      // The first turn goes to one thread; the crash, sent while it waits, to the other (the one with fewer turns).
      const slow = collect(pair, { url: `${receiver.url}/slow`, secret: aSecret(), rows: rows(1), timeoutMs: 5000 });
      await eventually(() => receiver.requests.length === 1);
      const crash = collect(pair, { url: `${receiver.url}/a`, secret: aSecret(), rows: [{ eventId: 'crash', envelope: '{}' }], timeoutMs: 2000 });
      await crash.then(
        () => expect.fail('the turn should have failed'),
        (error: Error) => expect(error.message).to.equal('The webhook delivery thread exited with code 3'),
      );
      // The other thread's turn goes on to its receiver's answer.
      expect((await slow).attempts.map((a) => a.statusCode)).to.deep.equal([200]);
      // Two turns at once, one on each thread (the dead one started again).
      const [first, second] = await Promise.all([
        collect(pair, { url: `${receiver.url}/slow`, secret: aSecret(), rows: rows(1), timeoutMs: 5000 }),
        collect(pair, { url: `${receiver.url}/slow`, secret: aSecret(), rows: rows(1), timeoutMs: 5000 }),
      ]);
      expect([...first.attempts, ...second.attempts].map((a) => a.statusCode)).to.deep.equal([200, 200]);
      expect(receiver.maxInFlight()).to.equal(2);
      expect(stopped() - stoppedBefore).to.equal(1);
    } finally {
      await pair.close();
    }
  });

  it('refuses turns once closed', async () => {
    await thread.close();
    await collect(thread, { url: `${receiver.url}/a`, secret: aSecret(), rows: rows(1), timeoutMs: 2000 }).then(
      () => expect.fail('a closed thread should refuse the turn'),
      (error: Error) => expect(error.message).to.equal('The webhook delivery thread is closed'),
    );
    expect(receiver.requests).to.have.length(0);
  });
});
