import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { sqliteOf } from '../support/sqliteOf.js';
import { loadConfig } from '../../src/config.js';
import { requestFingerprint } from '../../src/http/middleware/idempotency.js';
import { createLogger } from '../../src/logging.js';
import { startChronicle } from '../../src/startup/startChronicle.js';
import { startHarness, type ApiResponse, type Harness } from '../support/httpHarness.js';
import { assertMatchesOpenApi } from '../support/openApi.js';

/**
 * `Idempotency-Key` on the three creating POSTs: replay, another body, in flight,
 * refusals stored or not, secrets never at rest, company scope, and a second
 * Chronicle on the same DATA_DIR seeing the first one's keys.
 */
describe('HTTP: Idempotency-Key', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })));
  after(() => api.close());

  let phone = 4_900_000;
  const newPhone = () => `+49151${phone++}`;
  const post = (path: string, body: unknown, key: string | null, options: { apiKey?: string } = {}): Promise<ApiResponse> =>
    api.request('POST', path, {
      body,
      headers: key === null ? {} : { 'Idempotency-Key': key },
      ...(options.apiKey ? { key: options.apiKey } : {}),
    });
  const contactCount = async (apiKey?: string): Promise<number> =>
    (await api.request('GET', '/contacts?limit=1', apiKey ? { key: apiKey } : {})).body.meta.total;

  describe('POST /contacts', () => {
    it('replays the first response for the same key and body, marked, and creates once', async () => {
      const before = await contactCount();
      const key = randomUUID();
      const body = { name: 'Ada Lovelace', phoneNumber: newPhone(), tags: ['a', 'b'] };
      const first = await post('/contacts', body, key);
      expect(first.status).to.equal(201);
      expect(first.headers.get('Idempotent-Replayed')).to.equal(null);
      // The same body with its keys in another order and other spacing is the same request.
      const second = await api.request('POST', '/contacts', {
        rawBody: `{ "tags": ["a","b"], "phoneNumber": ${JSON.stringify(body.phoneNumber)},  "name": "Ada Lovelace" }`,
        contentType: 'application/json',
        headers: { 'Idempotency-Key': key },
      });
      expect(second.status).to.equal(201);
      expect(second.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('X-Log-Position')).to.equal(first.headers.get('X-Log-Position'));
      expect(await contactCount()).to.equal(before + 1);
    });

    it('answers 422 for the same key with another body, and creates nothing', async () => {
      const key = randomUUID();
      expect((await post('/contacts', { name: 'One', phoneNumber: newPhone() }, key)).status).to.equal(201);
      const before = await contactCount();
      const other = await post('/contacts', { name: 'Two', phoneNumber: newPhone() }, key);
      expect(other.status).to.equal(422);
      expect(other.body).to.include({ success: false, error: 'Validation failed', code: 'IDEMPOTENCY_KEY_REUSED' });
      expect(other.body.details).to.have.property('Idempotency-Key');
      expect(await contactCount()).to.equal(before);
    });

    it('answers 422 for a key used on another route with the same body', async () => {
      const key = randomUUID();
      expect((await post('/contacts', { name: 'Route', phoneNumber: newPhone() }, key)).status).to.equal(201);
      const res = await post('/deals', { name: 'Route', phoneNumber: newPhone() }, key);
      expect(res.status).to.equal(422);
      expect(res.body.code).to.equal('IDEMPOTENCY_KEY_REUSED');
    });

    it('answers 409 with Retry-After while the first request with the key is still in flight', async () => {
      const key = randomUUID();
      const body = { name: 'In flight', phoneNumber: newPhone() };
      // The first request has claimed the key and not answered yet.
      const claimed = await api.chronicle.stores.idempotency.claim({
        companyId: api.companyId,
        key,
        fingerprint: requestFingerprint('POST /contacts', body),
        now: new Date(),
        claimTtlMs: 60_000,
      });
      expect(claimed.kind).to.equal('claimed');
      const res = await post('/contacts', body, key);
      expect(res.status).to.equal(409);
      expect(res.body).to.include({ success: false, error: 'Request in progress', code: 'IDEMPOTENCY_KEY_IN_USE' });
      expect(res.headers.get('Retry-After')).to.equal('1');
      // Another body with the key in flight is a reuse: 422.
      expect((await post('/contacts', { ...body, name: 'Else' }, key)).status).to.equal(422);
    });

    it('stores a refusal the command decided (409 phone taken) and replays it', async () => {
      const number = newPhone();
      const holder = await post('/contacts', { name: 'Holder', phoneNumber: number }, null);
      const key = randomUUID();
      const first = await post('/contacts', { name: 'Second', phoneNumber: number }, key);
      expect(first.status).to.equal(409);
      expect(first.body.existingContactId).to.equal(holder.body.data.id);
      // The holder takes another number: a new request would now succeed, but the key answers what it answered.
      expect((await api.request('PUT', `/contacts/${holder.body.data.id}`, { body: { phoneNumber: newPhone() } })).status).to.equal(200);
      const again = await post('/contacts', { name: 'Second', phoneNumber: number }, key);
      expect(again.status).to.equal(409);
      expect(again.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
    });

    it('does not store a 422 for invalid input: the same key with a corrected body then runs', async () => {
      const key = randomUUID();
      const invalid = await post('/contacts', { name: 'No phone' }, key);
      expect(invalid.status).to.equal(422);
      // A 422 was not stored: the same key with the same invalid body runs (and fails) again, unmarked.
      const invalidAgain = await post('/contacts', { name: 'No phone' }, key);
      expect(invalidAgain.status).to.equal(422);
      expect(invalidAgain.headers.get('Idempotent-Replayed')).to.equal(null);
      const fixed = await post('/contacts', { name: 'No phone', phoneNumber: newPhone() }, key);
      expect(fixed.status).to.equal(201);
      expect(fixed.headers.get('Idempotent-Replayed')).to.equal(null);
    });

    it('refuses malformed keys with 422 naming the header, and accepts the IETF draft\'s quoted form', async () => {
      for (const bad of ['', 'x'.repeat(256), 'clé']) {
        const res = await api.request('POST', '/contacts', {
          body: { name: 'Bad key', phoneNumber: newPhone() },
          headers: { 'Idempotency-Key': bad },
        });
        expect(res.status, JSON.stringify(bad)).to.equal(422);
        expect(res.body).to.include({ error: 'Validation failed', code: 'INVALID_IDEMPOTENCY_KEY' });
        expect(res.body.details).to.have.property('Idempotency-Key');
      }
      const key = `k-${randomUUID()}`;
      const body = { name: 'Quoted', phoneNumber: newPhone() };
      const quoted = await post('/contacts', body, `"${key}"`);
      expect(quoted.status).to.equal(201);
      const plain = await post('/contacts', body, key);
      expect(plain.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(plain.body.data.id).to.equal(quoted.body.data.id);
      expect((await post('/contacts', { name: '255', phoneNumber: newPhone() }, 'k'.repeat(255))).status).to.equal(201);
    });

    it('scopes keys to the company: another company\'s same key creates its own contact', async () => {
      const other = await api.newCompany('Idempotency Ltd');
      const key = randomUUID();
      const body = { name: 'Same key', phoneNumber: newPhone() };
      const ours = await post('/contacts', body, key);
      const theirs = await post('/contacts', body, key, { apiKey: other.key });
      expect(theirs.status).to.equal(201);
      expect(theirs.headers.get('Idempotent-Replayed')).to.equal(null);
      expect(theirs.body.data.id).to.not.equal(ours.body.data.id);
    });
  });

  describe('POST /deals', () => {
    it('creates exactly one deal when a client fires the same request with one key eight times at once', async () => {
      const before = (await api.request('GET', '/deals?limit=1')).body.meta.total;
      const key = randomUUID();
      const body = { title: 'Retried deal', value: 1200 };
      const answers = await Promise.all(Array.from({ length: 8 }, () => post("/deals", body, key)));
      const created = answers.filter((a) => a.status === 201);
      expect(answers.every((a) => a.status === 201 || a.status === 409), answers.map((a) => a.status).join()).to.equal(true);
      expect(created.filter((a) => a.headers.get('Idempotent-Replayed') === null)).to.have.length(1);
      expect(new Set(created.map((a) => a.body.data.id)).size).to.equal(1);
      // Once the first answered, a retry replays it.
      const retry = await post('/deals', body, key);
      expect(retry.status).to.equal(201);
      expect(retry.body.data.id).to.equal(created[0]!.body.data.id);
      expect((await api.request('GET', '/deals?limit=1')).body.meta.total).to.equal(before + 1);
    });

    it('stores and replays the 400 of a contact of another company', async () => {
      const key = randomUUID();
      const body = { title: 'Bad contact', value: 1, contactId: randomUUID() };
      const first = await post('/deals', body, key);
      expect(first.status).to.equal(400);
      const again = await post('/deals', body, key);
      expect(again.status).to.equal(400);
      expect(again.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
    });
  });

  describe('POST /webhooks/subscribe', () => {
    it('replays the subscription with its secret, which is never stored with the response', async () => {
      const key = randomUUID();
      const body = { event: 'deal.won', target_url: 'http://127.0.0.1:9/hook' };
      const first = await post('/webhooks/subscribe', body, key);
      expect(first.status).to.equal(201);
      const again = await post('/webhooks/subscribe', body, key);
      expect(again.status).to.equal(201);
      expect(again.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      expect((await api.request('GET', '/webhooks')).body.data.filter((w: { id: string }) => w.id === first.body.data.id)).to.have.length(1);

      const db = sqliteOf(api.chronicle.stores.eventStore).db;
      const rows = db.prepare('SELECT response FROM idempotency_keys WHERE key = ?').all(key) as { response: string }[];
      expect(rows).to.have.length(1);
      expect(rows[0]!.response).to.include(first.body.data.id);
      expect(rows[0]!.response).to.not.include(first.body.data.secret);
      expect(rows[0]!.response).to.not.include('whsec_');

      // Once unsubscribed, its secret is gone: a replay says so with null.
      expect((await api.request('DELETE', `/webhooks/${first.body.data.id}`)).status).to.equal(200);
      const afterEnd = await post('/webhooks/subscribe', body, key);
      expect(afterEnd.status).to.equal(201);
      expect(afterEnd.body.data.secret).to.equal(null);
    });
  });

  describe('across processes', () => {
    it('a second Chronicle on the same DATA_DIR replays the first one\'s response', async () => {
      const key = randomUUID();
      const body = { name: 'Two processes', phoneNumber: newPhone() };
      const first = await post('/contacts', body, key);
      expect(first.status).to.equal(201);

      const dataDir = sqliteOf(api.chronicle.stores.eventStore).db.name.replace(/\/chronicle\.sqlite$/, '');
      // An API process beside the first one's projector (one projector per DATA_DIR).
      const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' });
      const second = await startChronicle(config, createLogger('silent', new PassThrough()));
      try {
        const response = await fetch(`http://127.0.0.1:${second.port}/contacts`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${api.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
          body: JSON.stringify(body),
        });
        const replayed = await response.json();
        assertMatchesOpenApi({ method: 'POST', path: '/contacts', status: response.status, body: replayed, headers: response.headers });
        expect(response.status).to.equal(201);
        expect(response.headers.get('Idempotent-Replayed')).to.equal('true');
        expect(replayed).to.deep.equal(first.body);
      } finally {
        await second.close();
      }
    });
  });
});
