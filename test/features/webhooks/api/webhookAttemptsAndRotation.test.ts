import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { sqliteOf } from '../../../support/sqliteOf.js';
import { eventually } from '../../../support/events.js';
import { startHarness, type ApiResponse, type Harness } from '../../../support/httpHarness.js';
import { startEchoReceiver } from '../../../support/personalValues.js';
import { decodeSigningSecrets } from '../../../../src/shared/webhookSecret.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const HOUR = 3_600_000;

describe('HTTP: webhook secret rotation (POST /webhooks/:id/rotate-secret and the admin API’s)', function () {
  this.timeout(60_000);
  let api: Harness;
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })));
  after(() => api.close());

  const subscribed = async (key?: string): Promise<{ id: string; secret: string }> => {
    const res = await api.request('POST', '/webhooks/subscribe', {
      body: { event: 'contact.created', target_url: 'http://127.0.0.1:9/hook' },
      ...(key !== undefined ? { key } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { id: res.body.data.id, secret: res.body.data.secret };
  };
  const rotate = (id: string, body?: unknown, key?: string): Promise<ApiResponse> =>
    api.request('POST', `/webhooks/${id}/rotate-secret`, { ...(body !== undefined ? { body } : {}), ...(key !== undefined ? { key } : {}) });

  it('answers a new secret, shown once, and when the previous one stops signing (24 hours by default)', async () => {
    const { id, secret } = await subscribed();
    const before = Date.now();
    const res = await rotate(id, {});
    const after = Date.now();
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.success).to.equal(true);
    expect(Object.keys(res.body.data)).to.deep.equal(['id', 'secret', 'previousSecretExpiresAt']);
    expect(res.body.data.id).to.equal(id);
    expect(res.body.data.secret).to.match(SECRET).and.not.equal(secret);
    const expires = Date.parse(res.body.data.previousSecretExpiresAt);
    expect(expires).to.be.within(before + 24 * HOUR, after + 24 * HOUR);
    // The store signs with both until then.
    const stored = decodeSigningSecrets((await api.chronicle.stores.webhookSecrets.get(id))!);
    expect(stored).to.deep.equal({ current: res.body.data.secret, previous: { secret, expiresAt: res.body.data.previousSecretExpiresAt }, rotated: true });
  });

  it('takes overlapHours from 0 (the previous secret stops at once) to 168', async () => {
    const { id } = await subscribed();
    for (const overlapHours of [0, 1, 168]) {
      const before = Date.now();
      const res = await rotate(id, { overlapHours });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(Date.parse(res.body.data.previousSecretExpiresAt)).to.be.within(before + overlapHours * HOUR, Date.now() + overlapHours * HOUR);
      const stored = decodeSigningSecrets((await api.chronicle.stores.webhookSecrets.get(id))!);
      expect(stored.previous === null).to.equal(overlapHours === 0);
    }
  });

  it('refuses any other overlap, or another field, with the spec’s validation body (422), rotating nothing', async () => {
    const { id, secret } = await subscribed();
    for (const body of [{ overlapHours: -1 }, { overlapHours: 169 }, { overlapHours: 1.5 }, { overlapHours: '24' }, { overlapHours: null }, { overlap: 2 }, [1], null]) {
      const res = await rotate(id, body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(res.body.error).to.equal('Validation failed');
      expect(Object.keys(res.body.details), JSON.stringify(body)).to.have.length(1);
    }
    expect(await api.chronicle.stores.webhookSecrets.get(id)).to.equal(secret);
    const malformed = await api.request('POST', `/webhooks/${id}/rotate-secret`, { rawBody: '{"overlapHours":', contentType: 'application/json' });
    expect(malformed.status).to.equal(400);
  });

  it('needs an API key with webhooks:write (401, 403)', async () => {
    const { id, secret } = await subscribed();
    expect((await rotate(id, {}, null as unknown as string)).status).to.equal(401);
    const { key } = await api.issueKey(api.companyId, ['webhooks:read', 'contacts:read']);
    const refused = await rotate(id, {}, key);
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ error: 'Permission denied: webhooks:write required', requiredPermission: 'webhooks:write' });
    expect(await api.chronicle.stores.webhookSecrets.get(id)).to.equal(secret);
  });

  it('answers 404 for another company’s subscription, an unknown or malformed id, and an ended one', async () => {
    const other = await api.newCompany('Rotation neighbours');
    const theirs = await subscribed(other.key);
    const ended = await subscribed();
    expect((await api.request('DELETE', `/webhooks/${ended.id}`)).status).to.equal(200);
    for (const id of [theirs.id, '0190f3a4-0000-7000-8000-000000000000', 'not-a-uuid', ended.id]) {
      const res = await rotate(id, {});
      expect(res.status, id).to.equal(404);
      expect(res.body.error).to.equal('Webhook subscription not found');
    }
    expect(await api.chronicle.stores.webhookSecrets.get(theirs.id)).to.equal(theirs.secret);
  });

  it('records WebhookSecretRotated in the subscription’s history, with neither secret in the log, the history or the server’s logs', async () => {
    const { id, secret } = await subscribed();
    const res = await rotate(id, { overlapHours: 2 });
    const history = await api.request('GET', `/webhooks/${id}/history`);
    expect(history.status).to.equal(200);
    const rotated = (history.body.data as Array<{ type: string; data: Record<string, unknown>; metadata: { source: string } }>).find((e) => e.type === 'WebhookSecretRotated');
    expect(rotated?.data).to.deep.include({ subscriptionId: id, overlapHours: 2, previousSecretExpiresAt: res.body.data.previousSecretExpiresAt });
    expect(rotated?.metadata.source).to.equal('api');
    const rows = JSON.stringify(sqliteOf(api.chronicle.stores.eventStore).db.prepare('SELECT * FROM events').all());
    expect(rows).to.contain('WebhookSecretRotated');
    for (const value of [secret, res.body.data.secret]) {
      const key = value.slice(6);
      expect(rows).not.to.contain(key);
      expect(JSON.stringify(history.body)).not.to.contain(key);
      expect(api.logs()).not.to.contain(key);
    }
  });

  it('does not show the subscribe response’s secret again on an idempotent replay once it was rotated', async () => {
    const idempotencyKey = `rotate-replay-${Date.now()}`;
    const send = () =>
      api.request('POST', '/webhooks/subscribe', {
        body: { event: 'contact.created', target_url: 'http://127.0.0.1:9/replayed' },
        headers: { 'Idempotency-Key': idempotencyKey },
      });
    const first = await send();
    expect((await send()).body.data.secret).to.equal(first.body.data.secret);
    expect((await rotate(first.body.data.id, {})).status).to.equal(200);
    const replayed = await send();
    expect(replayed.status).to.equal(201);
    expect(replayed.body.data.secret).to.equal(null);
  });

  describe('POST /admin/companies/:id/webhooks/:subscriptionId/rotate-secret', () => {
    let token: string;
    before(async () => ({ token } = await api.issueAdminToken()));
    const adminRotate = (companyId: string, id: string, body: unknown = {}, as: string | null = token) =>
      api.request('POST', `/admin/companies/${companyId}/webhooks/${id}/rotate-secret`, { key: as, body });

    it('rotates a company’s subscription as the API does, recorded with source admin', async () => {
      const { id, secret } = await subscribed();
      const res = await adminRotate(api.companyId, id, { overlapHours: 5 });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.data.secret).to.match(SECRET).and.not.equal(secret);
      expect(decodeSigningSecrets((await api.chronicle.stores.webhookSecrets.get(id))!).previous?.secret).to.equal(secret);
      const history = await api.request('GET', `/webhooks/${id}/history`);
      const rotated = (history.body.data as Array<{ type: string; metadata: { source: string } }>).find((e) => e.type === 'WebhookSecretRotated');
      expect(rotated?.metadata.source).to.equal('admin');
    });

    it('answers 404 for another company’s subscription, an unknown company, and 422 for a bad overlap', async () => {
      const other = await api.newCompany('Admin rotation neighbours');
      const theirs = await subscribed(other.key);
      const wrongCompany = await adminRotate(api.companyId, theirs.id);
      expect([wrongCompany.status, wrongCompany.body.error]).to.deep.equal([404, 'Webhook subscription not found']);
      const unknown = await adminRotate('0190f3a4-0000-7000-8000-000000000000', theirs.id);
      expect([unknown.status, unknown.body.error]).to.deep.equal([404, 'Company not found']);
      const bad = await adminRotate(other.companyId, theirs.id, { overlapHours: 500 });
      expect([bad.status, bad.body.error]).to.deep.equal([422, 'Validation failed']);
      expect(await api.chronicle.stores.webhookSecrets.get(theirs.id)).to.equal(theirs.secret);
    });

    it('needs an admin token (401), and refuses a customer API key', async () => {
      const { id } = await subscribed();
      expect((await adminRotate(api.companyId, id, {}, null)).status).to.equal(401);
      expect((await adminRotate(api.companyId, id, {}, api.key)).status).to.equal(401);
    });
  });
});

describe('HTTP: a delivery’s attempts in full (GET /webhooks/:id/deliveries/:eventId)', function () {
  this.timeout(60_000);
  let api: Harness;
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_DELAYS_MS: '20,40' })));
  after(() => api.close());

  it('lists attempts in short (test: false for a real event) and shows each in full: the request as signed, the response as received', async () => {
    const echo = await startEchoReceiver(500);
    try {
      const sub = await api.request('POST', '/webhooks/subscribe', { body: { event: 'contact.created', target_url: echo.url } });
      const { id, secret } = sub.body.data as { id: string; secret: string };
      const contact = await api.request('POST', '/contacts', { body: { name: 'Echo Tester', phoneNumber: '+4915112345678' } });
      expect(contact.status, JSON.stringify(contact.body)).to.equal(201);
      await eventually(async () => {
        const list = await api.request('GET', `/webhooks/${id}/deliveries`);
        return list.body.data[0]?.state === 'failed';
      }, 15_000);
      const list = await api.request('GET', `/webhooks/${id}/deliveries`);
      const [item] = list.body.data;
      expect(item).to.include({ test: false, state: 'failed' });
      expect(item.attempts).to.have.length(3);
      expect(item.attempts[0]).to.include({ statusCode: 500, error: null, errorKind: null });
      expect(item.attempts[0]).not.to.have.property('request');

      const detail = await api.request('GET', `/webhooks/${id}/deliveries/${item.eventId}`);
      expect(detail.status).to.equal(200);
      const [attempt] = detail.body.data.attempts;
      expect(attempt.request.url).to.equal(echo.url);
      expect(attempt.request.body).to.contain('Echo Tester');
      // The request as sent: Standard Webhooks' own library verifies it with the subscription's secret.
      expect(() => new Webhook(secret).verify(attempt.request.body, attempt.request.headers)).not.to.throw();
      expect(attempt.response).to.deep.include({ statusCode: 500, bodyTruncated: false, erased: false });
      expect(attempt.response.body).to.equal(`{"received":${attempt.request.body}}`);
      expect(attempt.response.headers['content-type']).to.equal('application/json');

      const other = await api.newCompany('Delivery neighbours');
      const theirs = await api.request('GET', `/webhooks/${id}/deliveries/${item.eventId}`, { key: other.key });
      expect([theirs.status, theirs.body.error]).to.deep.equal([404, 'Webhook subscription not found']);
      const missing = await api.request('GET', `/webhooks/${id}/deliveries/no-such-event`);
      expect([missing.status, missing.body.error]).to.deep.equal([404, 'Delivery not found']);
      const { key } = await api.issueKey(api.companyId, ['contacts:read']);
      expect((await api.request('GET', `/webhooks/${id}/deliveries/${item.eventId}`, { key })).status).to.equal(403);
    } finally {
      await echo.close();
    }
  });
});
