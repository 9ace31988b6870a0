import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { startDeliveryThread, type DeliveryThread } from '../../../../src/webhooks/deliveryThread.js';
import type { SentAttempt, TurnRequest, TurnSignals } from '../../../../src/webhooks/turnSender.js';
import { captureLogger } from '../../../support/captureLogger.js';
import { eventually, sleep } from '../../../support/events.js';
import { aSecret } from './support/events.js';
import { startReceiver, type Handle, type Receiver } from './support/receiver.js';

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

/** Answers requests two at a time: each is held until another request is in flight beside it. */
const answeredInPairs = (): Handle => {
  const held: ServerResponse[] = [];
  return (_request, res) => {
    held.push(res);
    if (held.length === 2) for (const response of held.splice(0)) response.writeHead(200).end();
  };
};

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
    const { attempts } = await collect(thread, { url: `${receiver.url}/a`, secrets: [secret], rows: rows(5), timeoutMs: 2000 });
    expect(attempts.map((a) => a.statusCode)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(attempts.every((a) => a.error === null && a.retryAfter === null && a.latencyMs >= 0 && !Number.isNaN(Date.parse(a.at)))).to.equal(true);
    expect(receiver.ids('/a')).to.deep.equal(['evt-0', 'evt-1', 'evt-2', 'evt-3', 'evt-4']);
    for (const request of receiver.requests) {
      new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    }
  });

  it('gives a turn’s attempts back together when they come within the report time (one batch for the turn)', async () => {
    // A report time no turn of this test outlasts: the batch is the turn's end, not a timer's.
    const patient = startDeliveryThread({ allowPrivateTargets: true, maxFreeSockets: 4, logger, reportAfterMs: 60_000 });
    try {
      const { attempts, batches } = await collect(patient, { url: `${receiver.url}/a`, secrets: [aSecret()], rows: rows(10), timeoutMs: 2000 });
      expect(attempts).to.have.length(10);
      expect(batches).to.equal(1);
    } finally {
      await patient.close();
    }
  });

  it('gives an attempt back while the turn goes on (a slow receiver): the first answer before the second row is answered', async () => {
    // The second row's answer is held: only the test gives it, once the first attempt has come back.
    const second: { answer?: () => void } = {};
    receiver.on('/slow', (request, res) => {
      const n = (JSON.parse(request.body) as { data: { n: number } }).data.n;
      if (n === 0) res.writeHead(200).end();
      else second.answer = () => res.writeHead(200).end();
    });
    const batches: (number | null)[][] = [];
    const never = new AbortController().signal;
    for await (const batch of thread.sendTurn({ url: `${receiver.url}/slow`, secrets: [aSecret()], rows: rows(2), timeoutMs: 30_000 }, { finish: never, stop: never })) {
      batches.push(batch.map((a) => a.statusCode));
      if (batches.length === 1) {
        // Back while the second row's attempt is not answered (not sent yet, or held).
        await eventually(() => second.answer !== undefined, 5_000);
        second.answer!();
      }
    }
    expect(batches).to.deep.equal([[200], [200]]);
  });

  it('stops at the first answer that is not a 200: nothing after it is sent', async () => {
    receiver.on('/a', (request, res) => {
      const n = (JSON.parse(request.body) as { data: { n: number } }).data.n;
      res.writeHead(n === 1 ? 503 : 200, n === 1 ? { 'retry-after': '7' } : {}).end();
    });
    const { attempts } = await collect(thread, { url: `${receiver.url}/a`, secrets: [aSecret()], rows: rows(4), timeoutMs: 2000 });
    expect(attempts.map((a) => [a.statusCode, a.retryAfter])).to.deep.equal([
      [200, null],
      [503, '7'],
    ]);
    await sleep(50);
    expect(receiver.ids('/a')).to.deep.equal(['evt-0', 'evt-1']);
  });

  it('times an attempt out, and stops there', async () => {
    receiver.on('/hang', () => undefined);
    const { attempts } = await collect(thread, { url: `${receiver.url}/hang`, secrets: [aSecret()], rows: rows(2), timeoutMs: 150 });
    expect(attempts).to.have.length(1);
    expect(attempts[0]).to.include({ statusCode: null, error: 'No complete response within 150 ms' });
    // Nothing after the row that timed out (which may have been cut off before its request was read).
    expect(receiver.ids('/hang')).to.not.include('evt-1');
  });

  it('refuses a private address unless allowed, without a request', async () => {
    const guarded = startDeliveryThread({ allowPrivateTargets: false, maxFreeSockets: 4, logger });
    try {
      const { attempts } = await collect(guarded, { url: `${receiver.url}/a`, secrets: [aSecret()], rows: rows(2), timeoutMs: 2000 });
      expect(attempts).to.have.length(1);
      expect(attempts[0]?.statusCode).to.equal(null);
      expect(attempts[0]?.error).to.match(/^EREFUSEDADDRESS: Refused to connect to 127\.0\.0\.1/);
      expect(receiver.requests).to.have.length(0);
    } finally {
      await guarded.close();
    }
  });

  it('on finish, sends no more rows but gives back the attempt in flight', async () => {
    // The first row's answer is held until the turn was told to finish.
    const held: ServerResponse[] = [];
    receiver.on('/a', (_request, res) => void held.push(res));
    const finish = new AbortController();
    const turn = collect(thread, { url: `${receiver.url}/a`, secrets: [aSecret()], rows: rows(5), timeoutMs: 30_000 }, { finish: finish.signal });
    await eventually(() => receiver.requests.length === 1);
    finish.abort();
    held.shift()!.writeHead(200).end();
    const { attempts } = await turn;
    expect(attempts.map((a) => a.statusCode)).to.deep.equal([200]);
    await sleep(250);
    expect(receiver.requests).to.have.length(1);
  });

  it('on stop, aborts the attempt in flight and gives nothing back for it', async () => {
    receiver.on('/hang', () => undefined);
    const stop = new AbortController();
    // An attempt that only a stop can end: waiting for its timeout would outlast the test.
    const turn = collect(thread, { url: `${receiver.url}/hang`, secrets: [aSecret()], rows: rows(3), timeoutMs: 60_000 }, { stop: stop.signal });
    await eventually(() => receiver.requests.length === 1);
    stop.abort();
    const { attempts } = await turn;
    expect(attempts).to.deep.equal([]);
    // The request in flight was cut: its connection closed, nothing answered it.
    await eventually(() => receiver.inFlight() === 0, 5_000);
    expect(receiver.requests).to.have.length(1);
  });

  it('sends nothing more of a turn the caller left', async () => {
    receiver.on('/a', (_request, res) => void setTimeout(() => res.writeHead(200).end(), 50));
    const never = new AbortController().signal;
    for await (const batch of thread.sendTurn({ url: `${receiver.url}/a`, secrets: [aSecret()], rows: rows(20), timeoutMs: 2000 }, { finish: never, stop: never })) {
      expect(batch.length).to.be.at.least(1);
      break;
    }
    const sent = receiver.requests.length;
    await sleep(300);
    // At most the attempt in flight when the caller left (aborted), nothing after it.
    expect(receiver.requests.length).to.be.within(sent, sent + 1);
    expect(receiver.requests.length).to.be.below(20);
  });

  it('keeps turns of several queues in flight at once (each answer held until both queues have a request in flight)', async () => {
    // Answered in pairs: a queue whose turn waited for the other's to end would never get its answer.
    const inPairs = answeredInPairs();
    receiver.on('/q0', inPairs);
    receiver.on('/q1', inPairs);
    const [a, b] = await Promise.all(
      ['/q0', '/q1'].map((path) => collect(thread, { url: `${receiver.url}${path}`, secrets: [aSecret()], rows: rows(3), timeoutMs: 30_000 })),
    );
    expect(a!.attempts.map((attempt) => attempt.statusCode)).to.deep.equal([200, 200, 200]);
    expect(b!.attempts.map((attempt) => attempt.statusCode)).to.deep.equal([200, 200, 200]);
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
      const inFlight = collect(crashing, { url: `${receiver.url}/hang`, secrets: [aSecret()], rows: rows(1), timeoutMs: 5000 });
      await eventually(() => receiver.requests.length === 1);
      const crash = collect(crashing, { url: `${receiver.url}/a`, secrets: [aSecret()], rows: [{ eventId: 'crash', envelope: '{}' }], timeoutMs: 2000 });
      for (const turn of [inFlight, crash]) {
        await turn.then(
          () => expect.fail('the turn should have failed'),
          (error: Error) => expect(error.message).to.equal('The webhook delivery thread exited with code 3'),
        );
      }
      const { attempts } = await collect(crashing, { url: `${receiver.url}/a`, secrets: [aSecret()], rows: rows(1), timeoutMs: 2000 });
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
      // The slow receiver's answer is held until the other thread died.
      const slowAnswers: ServerResponse[] = [];
      receiver.on('/slow', (_request, response) => void slowAnswers.push(response));
      // The first turn goes to one thread; the crash, sent while it waits, to the other (the one with fewer turns).
      const slow = collect(pair, { url: `${receiver.url}/slow`, secrets: [aSecret()], rows: rows(1), timeoutMs: 30_000 });
      await eventually(() => receiver.requests.length === 1);
      const crash = collect(pair, { url: `${receiver.url}/a`, secrets: [aSecret()], rows: [{ eventId: 'crash', envelope: '{}' }], timeoutMs: 2000 });
      await crash.then(
        () => expect.fail('the turn should have failed'),
        (error: Error) => expect(error.message).to.equal('The webhook delivery thread exited with code 3'),
      );
      // The other thread's turn goes on to its receiver's answer.
      slowAnswers.shift()!.end('ok');
      expect((await slow).attempts.map((a) => a.statusCode)).to.deep.equal([200]);
      // Two turns at once, one on each thread (the dead one started again): each answer held until both are in flight.
      receiver.on('/pair', answeredInPairs());
      const [first, second] = await Promise.all([
        collect(pair, { url: `${receiver.url}/pair`, secrets: [aSecret()], rows: rows(1), timeoutMs: 30_000 }),
        collect(pair, { url: `${receiver.url}/pair`, secrets: [aSecret()], rows: rows(1), timeoutMs: 30_000 }),
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
    await collect(thread, { url: `${receiver.url}/a`, secrets: [aSecret()], rows: rows(1), timeoutMs: 2000 }).then(
      () => expect.fail('a closed thread should refuse the turn'),
      (error: Error) => expect(error.message).to.equal('The webhook delivery thread is closed'),
    );
    expect(receiver.requests).to.have.length(0);
  });
});
