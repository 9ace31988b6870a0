import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startHarness, type Harness } from '../support/httpHarness.js';
import { eventually } from '../support/events.js';

interface Received {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A receiver on 127.0.0.1 that answers `status.code` (200 unless changed) and keeps what it got. */
const startReceiver = async (): Promise<{ url: string; received: Received[]; status: { code: number }; close: () => Promise<void> }> => {
  const received: Received[] = [];
  const status = { code: 200 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(status.code).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    status,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

describe('webhooks end to end: subscribe over HTTP, change data over HTTP, receive signed deliveries', function () {
  this.timeout(30_000);
  let api: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    // A subscription whose delivery used up its retries is paused; here only briefly.
    api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_DELAYS_MS: '20,40,80', WEBHOOK_PAUSE_DELAYS_MS: '50' });
    receiver = await startReceiver();
  });
  after(async () => {
    await api.close();
    await receiver.close();
  });

  const subscribe = async (event: string, filters?: unknown) => {
    const res = await api.request('POST', '/webhooks/subscribe', {
      body: { event, target_url: receiver.url, ...(filters ? { filters } : {}) },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data as { id: string; secret: string };
  };
  const ofSubscription = (secret: string) =>
    receiver.received.filter((r) => {
      try {
        new Webhook(secret).verify(r.body, r.headers);
        return true;
      } catch {
        return false;
      }
    });

  it('delivers contact.created with the spec’s envelope, verifiable by the standardwebhooks package', async () => {
    const { secret } = await subscribe('contact.created');
    const created = await api.request('POST', '/contacts', { body: { name: 'Hook Person', phoneNumber: '+4400111222', tags: ['vip'] } });
    await eventually(() => ofSubscription(secret).length === 1, 10_000);
    const [delivery] = ofSubscription(secret);
    const envelope = new Webhook(secret).verify(delivery!.body, delivery!.headers) as Record<string, any>;
    expect(envelope).to.have.all.keys('event', 'timestamp', 'data', 'metadata');
    expect(envelope.event).to.equal('contact.created');
    expect(envelope.data).to.deep.equal(created.body.data);
    expect(envelope.metadata).to.include({ companyId: api.companyId, source: 'api' });
    expect(delivery!.headers['webhook-id']).to.equal(envelope.metadata.eventId);
    expect(delivery!.headers['content-type']).to.contain('application/json');
    // A tampered body fails verification.
    expect(() => new Webhook(secret).verify(delivery!.body.replace('Hook', 'Hack'), delivery!.headers)).to.throw();
  });

  it('delivers deal.won with its documented data, in order with deal.updated', async () => {
    const won = await subscribe('deal.won');
    const updated = await subscribe('deal.updated');
    const deal = (await api.request('POST', '/deals', { body: { title: 'Hooked deal', value: 500, stage: 'Proposal' } })).body.data;
    await api.request('PUT', `/deals/${deal.id}/status`, { body: { status: 'won' } });
    await eventually(() => ofSubscription(won.secret).length === 1 && ofSubscription(updated.secret).length === 1, 10_000);
    const wonEnvelope = JSON.parse(ofSubscription(won.secret)[0]!.body);
    expect(wonEnvelope.event).to.equal('deal.won');
    expect(wonEnvelope.data).to.have.all.keys('id', 'title', 'value', 'currency', 'stage', 'status', 'wonAt', 'contact');
    expect(wonEnvelope.data).to.include({ id: deal.id, status: 'won', value: 500, currency: 'EUR', stage: 'Proposal' });
    const updatedEnvelope = JSON.parse(ofSubscription(updated.secret)[0]!.body);
    expect(updatedEnvelope.data.status).to.equal('won');
    expect(updatedEnvelope.metadata.eventId).to.not.equal(wonEnvelope.metadata.eventId);
  });

  it('delivers only contacts carrying one of the filter’s tags, and nothing after unsubscribing', async () => {
    const tagged = await subscribe('contact.created', { tags: ['partner', 'vip'] });
    await api.request('POST', '/contacts', { body: { name: 'Plain', phoneNumber: '+4400111333', tags: ['other'] } });
    await api.request('POST', '/contacts', { body: { name: 'Partner', phoneNumber: '+4400111444', tags: ['partner'] } });
    await eventually(() => ofSubscription(tagged.secret).length === 1, 10_000);
    expect(JSON.parse(ofSubscription(tagged.secret)[0]!.body).data.name).to.equal('Partner');

    const gone = await api.request('DELETE', `/webhooks/${tagged.id}`);
    expect(gone.status).to.equal(200);
    await api.request('POST', '/contacts', { body: { name: 'Late VIP', phoneNumber: '+4400111555', tags: ['vip'] } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ofSubscription(tagged.secret)).to.have.length(1);
  });

  describe('deliveries and redelivery', () => {
    let failing: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => (failing = await startReceiver()));
    after(() => failing.close());

    it('shows a delivered event with its attempt', async () => {
      const { id, secret } = await subscribe('contact.created');
      await api.request('POST', '/contacts', { body: { name: 'Seen', phoneNumber: '+4400222111' } });
      await eventually(() => ofSubscription(secret).length === 1, 10_000);
      await eventually(async () => (await api.request('GET', `/webhooks/${id}/deliveries`)).body.data[0]?.state === 'delivered', 5000);
      const res = await api.request('GET', `/webhooks/${id}/deliveries`);
      expect(res.body.meta).to.deep.include({ page: 1, total: 1 });
      const [delivery] = res.body.data;
      expect(delivery).to.include({ event: 'contact.created', state: 'delivered', eventId: ofSubscription(secret)[0]!.headers['webhook-id'] });
      expect(delivery.attempts).to.have.length(1);
      expect(delivery.attempts[0]).to.include({ statusCode: 200, error: null });
    });

    it('marks a delivery failed after the retries, then redelivers it with the same event id', async () => {
      failing.status.code = 500;
      const res = await api.request('POST', '/webhooks/subscribe', { body: { event: 'contact.created', target_url: failing.url } });
      const { id } = res.body.data as { id: string };
      await api.request('POST', '/contacts', { body: { name: 'Unlucky', phoneNumber: '+4400222222' } });
      await eventually(async () => (await api.request('GET', `/webhooks/${id}/deliveries`)).body.data[0]?.state === 'failed', 10_000);
      const failed = (await api.request('GET', `/webhooks/${id}/deliveries`)).body.data[0];
      expect(failed.attempts.map((a: { statusCode: number }) => a.statusCode)).to.deep.equal([500, 500, 500, 500]);
      expect(failed.failureReason).to.equal('retries_exhausted');
      const sentBefore = failing.received.length;

      failing.status.code = 200;
      const again = await api.request('POST', `/webhooks/${id}/redeliver`, { body: { failedSince: '2000-01-01' } });
      expect(again.status).to.equal(200);
      expect(again.body.data).to.deep.equal({ requeued: 1 });
      await eventually(() => failing.received.length === sentBefore + 1, 10_000);
      expect(failing.received.at(-1)!.headers['webhook-id']).to.equal(failed.eventId);
      await eventually(async () => (await api.request('GET', `/webhooks/${id}/deliveries`)).body.data[0]?.state === 'delivered', 5000);

      const one = await api.request('POST', `/webhooks/${id}/redeliver`, { body: { eventId: failed.eventId } });
      expect(one.body.data).to.deep.equal({ requeued: 1 });
      await eventually(() => failing.received.length === sentBefore + 2, 10_000);
      expect(failing.received.at(-1)!.headers['webhook-id']).to.equal(failed.eventId);
    });

    it('answers 404, 409 and 422 as documented', async () => {
      const { id } = await subscribe('deal.created');
      expect((await api.request('POST', `/webhooks/${id}/redeliver`, { body: { eventId: 'nope' } })).body.error).to.equal('Delivery not found');
      expect((await api.request('POST', `/webhooks/${id}/redeliver`, { body: {} })).status).to.equal(422);
      expect((await api.request('POST', `/webhooks/${id}/redeliver`, { body: { eventId: 'x', failedSince: '2020-01-01' } })).status).to.equal(422);
      expect((await api.request('POST', `/webhooks/${id}/redeliver`, { body: { failedSince: 'last week' } })).status).to.equal(422);
      const other = await api.newCompany();
      expect((await api.request('GET', `/webhooks/${id}/deliveries`, { key: other.key })).status).to.equal(404);
      expect((await api.request('POST', `/webhooks/${id}/redeliver`, { key: other.key, body: { eventId: 'x' } })).status).to.equal(404);
      await api.request('DELETE', `/webhooks/${id}`);
      expect((await api.request('GET', `/webhooks/${id}/deliveries`)).status).to.equal(200);
      const ended = await api.request('POST', `/webhooks/${id}/redeliver`, { body: { failedSince: '2020-01-01' } });
      expect(ended.status).to.equal(409);
      expect(ended.body.error).to.equal('Webhook subscription is not active');
    });
  });
});
