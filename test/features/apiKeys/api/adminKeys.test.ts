import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { apiKeyStream } from '../../../../src/features/apiKeys/domain/apiKeyEvents.js';
import { companyStream } from '../../../../src/features/companies/domain/companyEvents.js';
import { KEY_REUSE_MS } from '../../../../src/application/credentials/freshCredentialVerifier.js';
import { clockAhead } from '../../../support/clocks.js';
import { startHarness, type ApiResponse, type Harness } from '../../../support/httpHarness.js';
import { sqliteOf } from '../../../support/sqliteOf.js';

/**
 * A company's API keys through the admin API: made (the key shown once, and
 * working on the customer API at once), listed (never the key), revoked (401 on
 * the customer API after), each company's keys its own; Idempotency-Key per
 * admin token; what the events record (source admin, the token's id, no secret).
 */
describe('HTTP admin API: companies and their API keys', function () {
  this.timeout(30_000);
  let api: Harness;
  let token: string;
  let tokenId: string;
  // The server's time, put ahead by the tests that need time to pass.
  const time = clockAhead();
  before(async () => {
    api = await startHarness({}, undefined, { clock: time });
    ({ token, tokenId } = await api.issueAdminToken());
  });
  after(() => api.close());

  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> =>
    api.request(method, path, { key: token, ...(body === undefined ? {} : { body }), headers });
  const newCompany = async (name: string): Promise<string> => {
    const res = await admin('POST', '/admin/companies', { name });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data.id as string;
  };
  const newKey = async (companyId: string, body: Record<string, unknown> = {}) => {
    const res = await admin('POST', `/admin/companies/${companyId}/keys`, { name: 'CRM sync', type: 'generic', permissions: ['contacts:read'], ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data as { id: string; key: string; name: string; hint: string };
  };

  describe('companies', () => {
    it('creates one (201, its log position), and shows it at once by id and in the list', async () => {
      const res = await admin('POST', '/admin/companies', { name: '  Acme Corp  ' });
      expect(res.status).to.equal(201);
      expect(Object.keys(res.body.data)).to.deep.equal(['id', 'name', 'createdAt', 'status', 'suspendedAt', 'suspensionReason', 'eraseAfter']);
      expect(res.body.data.name).to.equal('Acme Corp');
      expect(res.headers.get('X-Log-Position')).to.match(/^\d+$/);
      const { id } = res.body.data;
      expect((await admin('GET', `/admin/companies/${id}`)).body.data).to.deep.equal(res.body.data);
      const list = await admin('GET', '/admin/companies?search=acme');
      expect(list.body.data).to.deep.equal([res.body.data]);
      expect(list.body.meta).to.deep.equal({ page: 1, limit: 50, total: 1, totalPages: 1 });
    });

    it('pages the list, oldest first, and refuses a limit out of bounds (422 naming it)', async () => {
      const names = ['Paged A', 'Paged B', 'Paged C'];
      for (const name of names) await newCompany(name);
      const page2 = await admin('GET', '/admin/companies?search=paged&limit=2&page=2');
      expect(page2.body.data.map((c: { name: string }) => c.name)).to.deep.equal(['Paged C']);
      expect(page2.body.meta).to.deep.equal({ page: 2, limit: 2, total: 3, totalPages: 2 });
      const bad = await admin('GET', '/admin/companies?limit=500');
      expect([bad.status, bad.body.error, Object.keys(bad.body.details)]).to.deep.equal([422, 'Validation failed', ['limit']]);
    });

    it('answers 404 in the spec\'s body for an unknown company, on every route under it', async () => {
      for (const [method, path] of [
        ['GET', '/admin/companies/nope'],
        ['GET', '/admin/companies/nope/keys'],
        ['POST', '/admin/companies/nope/keys'],
        ['DELETE', '/admin/companies/nope/keys/k'],
      ] as const) {
        const res = await admin(method, path, method === 'POST' ? { name: 'k', type: 'generic', permissions: ['contacts:read'] } : undefined);
        expect([res.status, res.body.error], `${method} ${path}`).to.deep.equal([404, 'Company not found']);
      }
    });

    it('refuses a missing or invalid name (422), and a body that is not JSON', async () => {
      const missing = await admin('POST', '/admin/companies', {});
      expect([missing.status, missing.body.error, missing.body.details]).to.deep.equal([422, 'Missing required fields', { missingFields: ['name'] }]);
      const blank = await admin('POST', '/admin/companies', { name: ' ' });
      expect([blank.status, blank.body.error, Object.keys(blank.body.details)]).to.deep.equal([422, 'Validation failed', ['name']]);
      const notJson = await api.request('POST', '/admin/companies', { key: token, rawBody: '{"name":', contentType: 'application/json' });
      expect([notJson.status, notJson.body.code]).to.deep.equal([400, 'INVALID_JSON']);
      const text = await api.request('POST', '/admin/companies', { key: token, rawBody: 'name=x', contentType: 'text/plain' });
      expect(text.status).to.equal(415);
    });
  });

  describe('API keys', () => {
    let companyId: string;
    before(async () => (companyId = await newCompany('Keyed')));

    it('makes a key shown once, which works on the customer API at once with its permissions', async () => {
      const created = await newKey(companyId, { name: 'Zapier production', type: 'zapier', permissions: ['contacts:read', 'contacts:write', 'contacts:read'] });
      expect(created.key).to.match(/^chr_[0-9A-Za-z]{36}$/);
      expect(created).to.deep.include({ name: 'Zapier production', type: 'zapier', permissions: ['contacts:read', 'contacts:write'], expiresAt: null });
      expect(created.hint).to.equal(`chr_...${created.key.slice(-4)}`);
      const test = await api.request('GET', '/test', { key: created.key });
      expect([test.status, test.body.data.companyId]).to.deep.equal([200, companyId]);
      const contact = await api.request('POST', '/contacts', { key: created.key, body: { name: 'Ada', phoneNumber: '+4915112345678' } });
      expect(contact.status).to.equal(201);
      const deals = await api.request('GET', '/deals', { key: created.key });
      expect([deals.status, deals.body.requiredPermission]).to.deep.equal([403, 'deals:read']);
    });

    it('makes a key with contacts:erase alone, which GET /test shows and which reads and writes nothing', async () => {
      const created = await newKey(companyId, { name: 'Erasure', permissions: ['contacts:erase'] });
      expect(created).to.deep.include({ permissions: ['contacts:erase'] });
      const test = await api.request('GET', '/test', { key: created.key });
      expect([test.status, test.body.data.permissions]).to.deep.equal([200, ['contacts:erase']]);
      const read = await api.request('GET', '/contacts', { key: created.key });
      expect([read.status, read.body.requiredPermission, read.body.availablePermissions]).to.deep.equal([403, 'contacts:read', ['contacts:erase']]);
      const write = await api.request('POST', '/contacts', { key: created.key, body: { name: 'Ada', phoneNumber: '+4915112345679' } });
      expect([write.status, write.body.requiredPermission]).to.deep.equal([403, 'contacts:write']);
      const listed = (await admin('GET', `/admin/companies/${companyId}/keys`)).body.data.find((k: { id: string }) => k.id === created.id);
      expect(listed.permissions).to.deep.equal(['contacts:erase']);
    });

    it('makes a key with contacts:erase and others: each once, after the specification\'s seven', async () => {
      const created = await newKey(companyId, { permissions: ['contacts:erase', 'webhooks:write', 'contacts:read', 'contacts:erase'] });
      expect(created).to.deep.include({ permissions: ['contacts:read', 'webhooks:write', 'contacts:erase'] });
      const test = await api.request('GET', '/test', { key: created.key });
      expect(test.body.data.permissions).to.deep.equal(['contacts:read', 'webhooks:write', 'contacts:erase']);
      expect((await api.request('GET', '/contacts', { key: created.key })).status).to.equal(200);
    });

    it('refuses an unknown permission, and "all" (not a permission), with the spec\'s 422 body naming every permission', async () => {
      for (const permissions of [['contacts:read', 'contacts:delete'], ['all']]) {
        const res = await admin('POST', `/admin/companies/${companyId}/keys`, { name: 'x', type: 'generic', permissions });
        expect(res.status, permissions.join()).to.equal(422);
        expect(Object.keys(res.body), permissions.join()).to.include.members(['success', 'error', 'details', 'timestamp']);
        expect(res.body).to.deep.include({
          success: false,
          error: 'Validation failed',
          details: {
            permissions:
              'must be a non-empty array of contacts:read, contacts:write, deals:read, deals:write, agents:read, webhooks:read, webhooks:write, contacts:erase',
          },
        });
      }
    });

    it('lists the company\'s keys, oldest first, with names and hints, never a key', async () => {
      const own = await newCompany('Listed keys');
      const first = await newKey(own, { name: 'First' });
      const second = await newKey(own, { name: 'Second', type: 'make', permissions: ['deals:read'], expiresAt: '2099-01-31T12:00:00+01:00' });
      const res = await admin('GET', `/admin/companies/${own}/keys`);
      expect(res.body.data.map((k: { id: string }) => k.id)).to.deep.equal([first.id, second.id]);
      expect(Object.keys(res.body.data[0]).sort()).to.deep.equal(['createdAt', 'expiresAt', 'hint', 'id', 'name', 'permissions', 'revokedAt', 'type']);
      expect(res.body.data[1]).to.deep.include({ name: 'Second', type: 'make', permissions: ['deals:read'], expiresAt: '2099-01-31T11:00:00.000Z', revokedAt: null });
      const text = JSON.stringify(res.body);
      for (const key of [first, second]) expect(text).to.not.contain(key.key.slice(4, 34));
      expect(res.body.meta).to.deep.equal({ page: 1, limit: 50, total: 2, totalPages: 1 });
    });

    it('refuses an invalid key request with 422 naming each field', async () => {
      const missing = await admin('POST', `/admin/companies/${companyId}/keys`, { name: 'x' });
      expect([missing.status, missing.body.details]).to.deep.equal([422, { missingFields: ['type', 'permissions'] }]);
      const bad = await admin('POST', `/admin/companies/${companyId}/keys`, { name: '', type: 'ifttt', permissions: ['contacts:delete'], expiresAt: 'tomorrow' });
      expect(bad.status).to.equal(422);
      expect(Object.keys(bad.body.details).sort()).to.deep.equal(['expiresAt', 'name', 'permissions', 'type']);
      const past = await admin('POST', `/admin/companies/${companyId}/keys`, { name: 'x', type: 'generic', permissions: ['contacts:read'], expiresAt: '2001-01-01' });
      expect([past.status, past.body.details]).to.deep.equal([422, { expiresAt: 'must be in the future' }]);
      const empty = await admin('POST', `/admin/companies/${companyId}/keys`, { name: 'x', type: 'generic', permissions: [] });
      expect([empty.status, Object.keys(empty.body.details)]).to.deep.equal([422, ['permissions']]);
    });

    it('revokes a key (200): the customer API refuses it after; a second DELETE answers the same', async () => {
      const key = await newKey(companyId);
      expect((await api.request('GET', '/test', { key: key.key })).status).to.equal(200);
      const revoked = await admin('DELETE', `/admin/companies/${companyId}/keys/${key.id}`);
      expect(revoked.status).to.equal(200);
      expect(revoked.body.data.id).to.equal(key.id);
      expect(revoked.headers.get('X-Log-Position')).to.match(/^\d+$/);
      // Refused once the read models applied it and a key found active a moment ago is no longer answered from memory
      // (part of the revocation bound every instance keeps; how soon: `npm run bench:timings`).
      expect(await api.chronicle.projections!.waitFor(revoked.headers.get('X-Log-Position')!, 5_000)).to.equal(true);
      time.advance(KEY_REUSE_MS);
      const refused = await api.request('GET', '/test', { key: key.key });
      expect([refused.status, refused.body.error]).to.deep.equal([401, 'Invalid API key']);
      const again = await admin('DELETE', `/admin/companies/${companyId}/keys/${key.id}`);
      expect([again.status, again.body.data.revokedAt, again.headers.get('X-Log-Position')]).to.deep.equal([200, revoked.body.data.revokedAt, null]);
      const listed = (await admin('GET', `/admin/companies/${companyId}/keys`)).body.data.find((k: { id: string }) => k.id === key.id);
      expect(listed.revokedAt).to.equal(revoked.body.data.revokedAt);
    });

    it('answers 404 for a key of another company, and leaves it working', async () => {
      const other = await newCompany('Other');
      const theirs = await newKey(other);
      const res = await admin('DELETE', `/admin/companies/${companyId}/keys/${theirs.id}`);
      expect([res.status, res.body.error]).to.deep.equal([404, 'API key not found']);
      expect((await api.request('GET', '/test', { key: theirs.key })).status).to.equal(200);
      const unknown = await admin('DELETE', `/admin/companies/${companyId}/keys/${randomUUID()}`);
      expect([unknown.status, unknown.body.error]).to.deep.equal([404, 'API key not found']);
      // The demo company's keys are no other company's either.
      expect((await admin('GET', `/admin/companies/${companyId}/keys`)).body.data.map((k: { id: string }) => k.id)).to.not.include(theirs.id);
    });
  });

  describe('Idempotency-Key (per admin token)', () => {
    it('replays a created company, marked, and creates it once', async () => {
      const key = randomUUID();
      const first = await admin('POST', '/admin/companies', { name: 'Once Ltd' }, { 'Idempotency-Key': key });
      const second = await admin('POST', '/admin/companies', { name: 'Once Ltd' }, { 'Idempotency-Key': key });
      expect(second.status).to.equal(201);
      expect(second.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(second.body).to.deep.equal(first.body);
      expect((await admin('GET', '/admin/companies?search=Once Ltd')).body.meta.total).to.equal(1);
      const other = await admin('POST', '/admin/companies', { name: 'Twice Ltd' }, { 'Idempotency-Key': key });
      expect([other.status, other.body.code]).to.deep.equal([422, 'IDEMPOTENCY_KEY_REUSED']);
    });

    it('replays a created key without the key (null: shown once), and never stores it', async () => {
      const companyId = await newCompany('Replayed keys');
      const key = randomUUID();
      const body = { name: 'Retried', type: 'generic', permissions: ['contacts:read'] };
      const first = await admin('POST', `/admin/companies/${companyId}/keys`, body, { 'Idempotency-Key': key });
      const second = await admin('POST', `/admin/companies/${companyId}/keys`, body, { 'Idempotency-Key': key });
      expect(second.headers.get('Idempotent-Replayed')).to.equal('true');
      expect(second.body.data).to.deep.equal({ ...first.body.data, key: null });
      expect((await admin('GET', `/admin/companies/${companyId}/keys`)).body.meta.total).to.equal(1);
      // The same key for the same request on another company's path is another request.
      const elsewhere = await admin('POST', `/admin/companies/${await newCompany('Elsewhere')}/keys`, body, { 'Idempotency-Key': key });
      expect([elsewhere.status, elsewhere.body.code]).to.deep.equal([422, 'IDEMPOTENCY_KEY_REUSED']);
      const db = sqliteOf(api.chronicle.stores.eventStore).db;
      const rows = db.prepare('SELECT company_id, response FROM idempotency_keys WHERE key = ?').all(key) as { company_id: string; response: string }[];
      expect(rows.map((row) => row.company_id)).to.deep.equal([`admin-token:${tokenId}`]);
      expect(rows[0]!.response).to.contain(first.body.data.id).and.not.contain(first.body.data.key.slice(4, 34));
    });

    it('keeps one admin token\'s keys apart from another\'s', async () => {
      const key = randomUUID();
      const other = await api.issueAdminToken('other backend');
      const mine = await admin('POST', '/admin/companies', { name: 'Scoped' }, { 'Idempotency-Key': key });
      const theirs = await api.request('POST', '/admin/companies', { key: other.token, body: { name: 'Scoped' }, headers: { 'Idempotency-Key': key } });
      expect(theirs.status).to.equal(201);
      expect(theirs.headers.get('Idempotent-Replayed')).to.equal(null);
      expect(theirs.body.data.id).to.not.equal(mine.body.data.id);
    });
  });

  describe('what the log records', () => {
    it('source admin and the admin token\'s id in the events\' metadata, never a token or a key', async () => {
      const companyId = await newCompany('Audited');
      const key = await newKey(companyId);
      await admin('DELETE', `/admin/companies/${companyId}/keys/${key.id}`);
      const { eventStore } = api.chronicle.stores;
      const events = [...(await eventStore.readStream(companyStream(companyId))), ...(await eventStore.readStream(apiKeyStream(key.id)))];
      expect(events.map((event) => event.type)).to.deep.equal(['CompanyCreated', 'ApiKeyIssued', 'ApiKeyRevoked']);
      for (const event of events) {
        expect(event.metadata).to.deep.include({ source: 'admin', adminTokenId: tokenId, companyId });
        expect(event.metadata.correlationId).to.be.a('string');
        const text = JSON.stringify(event);
        expect(text).to.not.contain(token);
        expect(text).to.not.contain(key.key);
      }
      expect((events[1]!.data as { name: string }).name).to.equal('CRM sync');
      expect(api.logs()).to.not.contain(token);
      expect(api.logs()).to.not.contain(key.key);
    });
  });
});
