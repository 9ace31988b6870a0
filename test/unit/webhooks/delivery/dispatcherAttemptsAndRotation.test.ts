import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { REDACTED } from '../../../../src/application/ports/WebhookOutbox.js';
import { encodeRotatedSecrets } from '../../../../src/shared/webhookSecret.js';
import { eventually } from '../../../support/events.js';
import { dispatcherHarness } from './support/dispatcherHarness.js';
import { aSecret } from './support/events.js';
import { startReceiver, type Receiver } from './support/receiver.js';

/** A port nothing listens on (taken, then given back). */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
};

/**
 * Whether one of the request's signatures is `secret`'s, as Standard Webhooks' own library
 * signs (its `sign`, at the request's `webhook-timestamp`: the test's clock may be ahead,
 * which `verify` would refuse as a replay).
 */
const verifies = (secret: string, request: { body: string; headers: Record<string, unknown> }): boolean => {
  const expected = new Webhook(secret).sign(
    String(request.headers['webhook-id']),
    new Date(Number(request.headers['webhook-timestamp']) * 1000),
    request.body,
  );
  return String(request.headers['webhook-signature']).split(' ').includes(expected);
};

/** One more row in the queue of a subscription the harness made (after its others). */
const more = async (h: ReturnType<typeof dispatcherHarness>, sub: { subscriptionId: string; companyId: string }, n: number, now: Date) => {
  const eventId = randomUUID();
  await h.outbox.enqueue(
    [
      {
        subscriptionId: sub.subscriptionId,
        companyId: sub.companyId,
        eventId,
        eventType: 'contact.created',
        position: String(1_000_000_000 + n),
        ordinal: 0,
        occurredAt: now.toISOString(),
        envelope: JSON.stringify({ event: 'contact.created', data: { n }, metadata: { eventId } }),
      },
    ],
    now,
  );
  h.dispatcher.wake();
};

for (const thread of [false, true]) describe(`Webhook dispatcher, ${thread ? 'on the delivery thread' : 'on the event loop'}: each attempt's request and response, and rotated secrets`, function () {
  this.timeout(15_000);
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

  it('keeps what each attempt sent and what came back: a 500 with its headers (cookies redacted) and body, then the 200', async () => {
    let calls = 0;
    receiver.on('/echo', (request, res) => {
      calls += 1;
      const status = calls === 1 ? 500 : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'set-cookie': 'session=abc', authorization: 'Bearer x', 'x-trace': 't-1' }).end(`{"echo":${request.body}}`);
    });
    const h = start();
    const sub = await h.subscribe(`${receiver.url}/echo`, 1);
    await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'delivered');
    const delivery = (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))!;
    expect(delivery.attempts.map((a) => a.statusCode)).to.deep.equal([500, 200]);
    for (const [i, attempt] of delivery.attempts.entries()) {
      const sent = receiver.requests[i]!;
      expect(attempt.request?.url).to.equal(`${receiver.url}/echo`);
      // Every header as the receiver got it, the signature ones too.
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'content-length', 'user-agent']) {
        expect(attempt.request?.headers[name], name).to.equal(sent.headers[name]);
      }
      expect(attempt.response?.body).to.equal(`{"echo":${delivery.envelope}}`);
      expect(attempt.response?.headers).to.include({ 'set-cookie': REDACTED, authorization: REDACTED, 'x-trace': 't-1', 'content-type': 'application/json' });
      expect(attempt.response?.bodyTruncated).to.equal(false);
      expect(attempt.errorKind).to.equal(undefined);
    }
    expect(JSON.stringify(delivery.attempts)).not.to.contain('session=abc');
  });

  it('says why an attempt got no response: connection refused, and the request it tried to send', async () => {
    const port = await closedPort();
    const h = start({ retryDelaysMs: [] });
    const sub = await h.subscribe(`http://127.0.0.1:${port}/gone`, 1);
    await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'failed');
    const [attempt] = (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))!.attempts;
    expect(attempt).to.include({ statusCode: null, errorKind: 'connection_refused' });
    expect(attempt?.response).to.equal(undefined);
    expect(attempt?.request?.headers['webhook-id']).to.equal(sub.eventIds[0]);
  });

  it('says timeout when the receiver does not answer in time', async () => {
    receiver.on('/hang', () => undefined);
    const h = start({ retryDelaysMs: [], timeoutMs: 200 });
    const sub = await h.subscribe(`${receiver.url}/hang`, 1);
    await eventually(async () => (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))?.state === 'failed', 5000);
    const [attempt] = (await h.outbox.get(sub.subscriptionId, sub.eventIds[0]!))!.attempts;
    expect(attempt).to.include({ statusCode: null, errorKind: 'timeout' });
  });

  it('signs with both secrets during a rotation’s overlap (the new one first), and with the new one only after it', async () => {
    let offsetMs = 0;
    const clock = { now: () => new Date(Date.now() + offsetMs) };
    const h = start({ clock });
    const sub = await h.subscribe(`${receiver.url}/a`, 1);
    await eventually(() => receiver.requests.length === 1);
    const previous = sub.secret;
    const next = aSecret();
    h.secrets.set(sub.subscriptionId, encodeRotatedSecrets(next, { secret: previous, expiresAt: new Date(clock.now().getTime() + 3_600_000).toISOString() }));

    await more(h, sub, 1, clock.now());
    await eventually(() => receiver.requests.length === 2);
    const overlap = receiver.requests[1]!;
    const signatures = String(overlap.headers['webhook-signature']).split(' ');
    expect(signatures).to.have.length(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).to.equal(true);
    expect(verifies(next, overlap), 'the new secret verifies').to.equal(true);
    expect(verifies(previous, overlap), 'the previous secret verifies').to.equal(true);
    // A receiver's library verifies it with either secret.
    expect(() => new Webhook(next).verify(overlap.body, overlap.headers as Record<string, string>)).not.to.throw();
    expect(() => new Webhook(previous).verify(overlap.body, overlap.headers as Record<string, string>)).not.to.throw();
    // The new secret's signature first: a receiver holding only it finds it there.
    expect(verifies(next, { ...overlap, headers: { ...overlap.headers, 'webhook-signature': signatures[0] } })).to.equal(true);
    expect(verifies(previous, { ...overlap, headers: { ...overlap.headers, 'webhook-signature': signatures[1] } })).to.equal(true);

    // Two hours on: the overlap has ended.
    offsetMs = 2 * 3_600_000;
    await more(h, sub, 2, clock.now());
    await eventually(() => receiver.requests.length === 3);
    const late = receiver.requests[2]!;
    expect(String(late.headers['webhook-signature']).split(' ')).to.have.length(1);
    expect(verifies(next, late), 'the new secret verifies').to.equal(true);
    expect(verifies(previous, late), 'the previous secret does not').to.equal(false);
  });
});
