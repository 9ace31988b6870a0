import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';
import { eventually, sleep } from '../../../support/events.js';
import { startReceiver, type Receiver } from '../../../unit/webhooks/delivery/support/receiver.js';

/**
 * A receiver that keeps failing, seen through HTTP: paused, then disabled, the
 * events recorded in the log, events queued all along, and delivered in order
 * once the company enables the subscription again.
 */
describe('HTTP: webhook subscriptions paused, disabled and enabled again', function () {
  this.timeout(30_000);
  let api: Harness;
  let receiver: Receiver;
  before(async () => {
    api = await startHarness({
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '500',
      WEBHOOK_RETRY_DELAYS_MS: '20,20,20',
      // Holds of 400 ms: the third one ends at WEBHOOK_DISABLE_AFTER_MS, before the second row has used
      // up its attempts (a paused queue with no row left to try is never judged again, so never disabled).
      WEBHOOK_PAUSE_DELAYS_MS: '400,400',
      WEBHOOK_DISABLE_AFTER_MS: '1200',
      // The tests poll the subscriptions often while waiting; the key's hourly limit is not what they test.
      RATE_LIMIT_HOURLY: '1000000',
      RATE_LIMIT_DAILY: '1000000',
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await api.close();
    await receiver.close();
  });

  const subscribe = async (path: string, key?: string): Promise<string> => {
    const res = await api.request('POST', '/webhooks/subscribe', {
      body: { event: 'contact.created', target_url: `${receiver.url}${path}` },
      ...(key ? { key } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data.id as string;
  };
  const listed = async (id: string) =>
    ((await api.request('GET', '/webhooks')).body.data as Array<{ id: string; delivery_status: string; failing_since: string | null }>).find(
      (item) => item.id === id,
    );
  const streamOf = async (id: string) => {
    const events = await api.chronicle.stores.eventStore.readStream(`webhook-${id}`);
    return events.map((e) => ({ type: e.type, source: e.metadata.source, data: e.data as Record<string, unknown> }));
  };
  let phone = 0;
  const createContact = async (name: string) => {
    const res = await api.request('POST', '/contacts', { body: { name, phoneNumber: `+44 20 7946 ${String(1000 + ++phone)}` } });
    expect(res.status).to.equal(201);
  };
  const names = (path: string) =>
    receiver.requests.filter((r) => r.path === path).map((r) => (JSON.parse(r.body) as { data: { name: string } }).data.name);

  it('pauses a failing receiver, disables it after WEBHOOK_DISABLE_AFTER_MS, keeps queuing, and delivers everything in order once enabled', async () => {
    let failing = true;
    receiver.on('/down', (_request, res) => res.writeHead(failing ? 503 : 200).end());
    const id = await subscribe('/down');
    await createContact('first');
    await createContact('second');

    // The first delivery uses up its retries: the subscription is paused, since its first failure
    // (paused for about WEBHOOK_DISABLE_AFTER_MS: a slow poll may first see it disabled already).
    // (Polled every 50 ms: each poll is a request to the same process as the dispatcher it waits for.)
    await eventually(async () => ['paused', 'disabled'].includes((await listed(id))?.delivery_status ?? ''), 20_000, 50);
    const failingSince = (await listed(id))?.failing_since;
    expect(failingSince).to.be.a('string');
    // Then, still failing for the documented time: disabled, failing since the same time.
    await eventually(async () => (await listed(id))?.delivery_status === 'disabled', 20_000, 50);
    expect((await listed(id))?.failing_since).to.equal(failingSince);
    const log = await streamOf(id);
    expect(log.map((e) => [e.type, e.source])).to.deep.equal([
      ['WebhookSubscribed', 'api'],
      ['WebhookPaused', 'system'],
      ['WebhookDisabled', 'system'],
    ]);
    expect(log[1]!.data.failingSince).to.equal(failingSince);

    // Disabled: nothing is sent, events are queued.
    const sent = receiver.requests.filter((r) => r.path === '/down').length;
    await createContact('third');
    await sleep(600);
    expect(receiver.requests.filter((r) => r.path === '/down').length).to.equal(sent);
    const deliveries = (await api.request('GET', `/webhooks/${id}/deliveries`)).body.data as Array<{ state: string; failureReason: string | null }>;
    expect(deliveries.map((d) => d.state)).to.include('pending');
    expect(deliveries.filter((d) => d.state === 'pending')).to.have.length.at.least(1);

    failing = false;
    const enabled = await api.request('POST', `/webhooks/${id}/enable`, { body: {} });
    expect(enabled.status).to.equal(200);
    expect(enabled.body.data).to.deep.equal({ id, delivery_status: 'active' });
    expect(enabled.headers.get('x-log-position')).to.match(/^\d+$/);
    expect((await listed(id))?.delivery_status).to.equal('active');
    expect((await listed(id))?.failing_since).to.equal(null);
    // Every event still pending arrives once, in log order, ending with the one queued while disabled.
    await eventually(() => names('/down').at(-1) === 'third', 10_000);
    const afterEnable = names('/down').slice(sent);
    const order = ['first', 'second', 'third'];
    expect(afterEnable).to.deep.equal(order.filter((name) => afterEnable.includes(name)));
    expect((await streamOf(id)).at(-1)).to.deep.include({ type: 'WebhookEnabled', source: 'api' });
    expect((await streamOf(id)).at(-1)!.data.reason).to.equal('client');

    // The company sees the events in the subscription's history, never its secret.
    const history = await api.request('GET', `/webhooks/${id}/history`);
    expect(history.status).to.equal(200);
    const entries = history.body.data as Array<{ type: string; metadata: { source: string }; data: Record<string, unknown> }>;
    expect(entries.map((e) => [e.type, e.metadata.source])).to.deep.equal([
      ['WebhookSubscribed', 'api'],
      ['WebhookPaused', 'system'],
      ['WebhookDisabled', 'system'],
      ['WebhookEnabled', 'api'],
    ]);
    expect(entries[2]!.data).to.deep.include({ subscriptionId: id, failingSince });
    expect(history.body.meta).to.deep.include({ total: 4 });

    // Enabling an active subscription changes nothing, and says so.
    const again = await api.request('POST', `/webhooks/${id}/enable`, { body: {} });
    expect(again.status).to.equal(200);
    expect(again.headers.get('x-log-position')).to.equal(null);
    expect((await streamOf(id)).filter((e) => e.type === 'WebhookEnabled')).to.have.length(1);
  });

  it('resumes a paused subscription by itself when its receiver answers again', async () => {
    let failing = true;
    receiver.on('/flaky', (_request, res) => res.writeHead(failing ? 500 : 200).end());
    const id = await subscribe('/flaky');
    await createContact('lost');
    // Its pause, read from the log (a poll of the list could miss the paused state under load).
    await eventually(async () => (await streamOf(id)).some((e) => e.type === 'WebhookPaused'), 10_000, 20);
    failing = false;
    await createContact('kept');
    await eventually(() => names('/flaky').includes('kept'), 10_000);
    await eventually(async () => (await listed(id))?.delivery_status === 'active', 5000);
    const log = await streamOf(id);
    expect(log.map((e) => e.type)).to.deep.equal(['WebhookSubscribed', 'WebhookPaused', 'WebhookEnabled']);
    expect(log[2]).to.deep.include({ source: 'system' });
    expect(log[2]!.data.reason).to.equal('recovered');
  });

  it('answers 404 for an unknown, malformed, another company’s or unsubscribed subscription', async () => {
    const id = await subscribe('/other');
    const other = await api.newCompany();
    expect((await api.request('POST', `/webhooks/${id}/enable`, { key: other.key, body: {} })).status).to.equal(404);
    expect((await api.request('POST', '/webhooks/0190c0de-0000-7000-8000-000000000001/enable', { body: {} })).status).to.equal(404);
    const malformed = await api.request('POST', '/webhooks/not-an-id/enable', { body: {} });
    expect(malformed.status).to.equal(404);
    expect(malformed.body).to.deep.include({ success: false, error: 'Webhook subscription not found' });
    expect((await api.request('GET', `/webhooks/${id}/history`, { key: other.key })).status).to.equal(404);
    await api.request('DELETE', `/webhooks/${id}`);
    expect((await api.request('POST', `/webhooks/${id}/enable`, { body: {} })).status).to.equal(404);
    // An ended subscription keeps its history.
    expect(((await api.request('GET', `/webhooks/${id}/history`)).body.data as Array<{ type: string }>).map((e) => e.type)).to.deep.equal([
      'WebhookSubscribed',
      'WebhookUnsubscribed',
    ]);
    const readOnly = await api.issueKey(api.companyId, ['webhooks:read']);
    expect((await api.request('POST', `/webhooks/${id}/enable`, { key: readOnly.key, body: {} })).status).to.equal(403);
  });
});

describe('HTTP: subscriptions per company capped by WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY: '3' })));
  after(() => api.close());
  const subscribe = (key?: string) =>
    api.request('POST', '/webhooks/subscribe', { body: { event: 'deal.won', target_url: 'https://93.184.215.14/hooks' }, ...(key ? { key } : {}) });

  it('refuses one more with 409 and the spec’s error body; an unsubscribe frees a place; other companies are not counted', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await subscribe();
      expect(res.status).to.equal(201);
      ids.push(res.body.data.id);
    }
    const refused = await subscribe();
    expect(refused.status).to.equal(409);
    expect(refused.body).to.deep.include({
      success: false,
      error: 'Webhook subscription limit reached',
      code: 'WEBHOOK_SUBSCRIPTION_LIMIT',
      details: { limit: 3, subscriptions: 3 },
    });
    expect(refused.body.message).to.match(/3 webhook subscriptions, the most it may have \(3\)/);
    expect((await api.request('GET', '/webhooks')).body.data).to.have.length(3);

    const other = await api.newCompany();
    expect((await subscribe(other.key)).status).to.equal(201);

    expect((await api.request('DELETE', `/webhooks/${ids[0]}`)).status).to.equal(200);
    expect((await subscribe()).status).to.equal(201);
    expect((await subscribe()).status).to.equal(409);
  });

  it('holds under concurrent subscribes: exactly the cap is accepted', async () => {
    const company = await api.newCompany('Concurrent');
    const answers = await Promise.all(Array.from({ length: 8 }, () => subscribe(company.key)));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 201, 201, 409, 409, 409, 409, 409]);
    expect((await api.request('GET', '/webhooks', { key: company.key })).body.data).to.have.length(3);
  });
});
