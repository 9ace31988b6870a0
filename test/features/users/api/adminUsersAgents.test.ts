import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { agentStream } from '../../../../src/features/agents/domain/agentEvents.js';
import { userStream } from '../../../../src/features/users/domain/userEvents.js';
import { startHarness, type ApiResponse, type Harness } from '../../../support/httpHarness.js';

/**
 * A company's users and agents through the admin API, as the CLI makes them:
 * created, listed, agents changed; each company's its own; what the customer
 * API then shows (its agents, deals assigned to its users).
 */
describe('HTTP admin API: users and agents of a company', function () {
  this.timeout(30_000);
  let api: Harness;
  let token: string;
  let tokenId: string;
  let companyId: string;
  let customerKey: string;
  before(async () => {
    api = await startHarness();
    ({ token, tokenId } = await api.issueAdminToken());
    companyId = (await admin('POST', '/admin/companies', { name: 'Staffed' })).body.data.id;
    customerKey = (await admin('POST', `/admin/companies/${companyId}/keys`, { name: 'all', type: 'generic', permissions: ['agents:read', 'deals:read', 'deals:write'] })).body.data.key;
  });
  after(() => api.close());

  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> =>
    api.request(method, path, { key: token, ...(body === undefined ? {} : { body }), headers });

  describe('users', () => {
    it('creates users (201) and lists them oldest first; a deal of the customer API can be assigned to one', async () => {
      const ada = await admin('POST', `/admin/companies/${companyId}/users`, { name: 'Ada Lovelace', email: 'ada@Example.COM' });
      expect(ada.status).to.equal(201);
      expect(ada.body.data).to.deep.include({ name: 'Ada Lovelace', email: 'ada@example.com' });
      expect(Object.keys(ada.body.data)).to.deep.equal(['id', 'name', 'email', 'createdAt']);
      const bob = await admin('POST', `/admin/companies/${companyId}/users`, { name: 'Bob', email: 'bob@example.com' });
      const list = await admin('GET', `/admin/companies/${companyId}/users?limit=1&page=2`);
      expect(list.body.data).to.deep.equal([bob.body.data]);
      expect(list.body.meta).to.deep.equal({ page: 2, limit: 1, total: 2, totalPages: 2 });
      const deal = await api.request('POST', '/deals', { key: customerKey, body: { title: 'Engines', value: 1000, currency: 'GBP', assignedToId: ada.body.data.id } });
      expect(deal.status, JSON.stringify(deal.body)).to.equal(201);
      expect(deal.body.data.assignedTo).to.deep.equal({ id: ada.body.data.id, name: 'Ada Lovelace', email: 'ada@example.com' });
    });

    it('refuses a bad e-mail, a missing name (422) and an unknown company (404)', async () => {
      const bad = await admin('POST', `/admin/companies/${companyId}/users`, { name: 'X', email: 'not an email' });
      expect([bad.status, Object.keys(bad.body.details)]).to.deep.equal([422, ['email']]);
      const missing = await admin('POST', `/admin/companies/${companyId}/users`, { email: 'x@example.com' });
      expect([missing.status, missing.body.details]).to.deep.equal([422, { missingFields: ['name'] }]);
      const unknown = await admin('POST', `/admin/companies/${randomUUID()}/users`, { name: 'X', email: 'x@example.com' });
      expect([unknown.status, unknown.body.error]).to.deep.equal([404, 'Company not found']);
    });

    it('leaves out of the list a user whose name and e-mail read as null (erased): none is made up for it', async () => {
      const staff = (await admin('POST', '/admin/companies', { name: 'Erased staff' })).body.data.id;
      const kept = await admin('POST', `/admin/companies/${staff}/users`, { name: 'Kept', email: 'kept@example.com' });
      const userId = randomUUID();
      const data = { userId, companyId: staff, name: null, email: null, createdAt: new Date().toISOString() };
      const { position } = await api.chronicle.stores.eventStore.append(
        userStream(userId),
        [{ id: randomUUID(), type: 'UserCreated', data, metadata: { source: 'cli', correlationId: randomUUID(), companyId: staff } }],
        'no_stream',
      );
      expect(await api.chronicle.projections!.waitFor(position, 5000)).to.equal(true);
      expect((await admin('GET', `/admin/companies/${staff}/users`)).body.data).to.deep.equal([kept.body.data]);
    });

    it('lists only the company\'s own users', async () => {
      const other = (await admin('POST', '/admin/companies', { name: 'Other staff' })).body.data.id;
      await admin('POST', `/admin/companies/${other}/users`, { name: 'Eve', email: 'eve@example.com' });
      const names = (await admin('GET', `/admin/companies/${companyId}/users`)).body.data.map((u: { name: string }) => u.name);
      expect(names).to.deep.equal(['Ada Lovelace', 'Bob']);
    });
  });

  describe('agents', () => {
    let agentId: string;

    it('creates an agent with the defaults for what is not sent, which the customer API then shows', async () => {
      const created = await admin('POST', `/admin/companies/${companyId}/agents`, { name: 'Helper' }, { 'Idempotency-Key': randomUUID() });
      expect(created.status).to.equal(201);
      expect(created.body.data).to.deep.include({ name: 'Helper', description: null, status: 'active', channels: ['webchat'], language: 'en' });
      agentId = created.body.data.id;
      const seen = await api.request('GET', `/agents/${agentId}`, { key: customerKey });
      expect(seen.body.data).to.deep.equal(created.body.data);
    });

    it('changes some fields (200), the others kept; the same values again change nothing', async () => {
      const changed = await admin('PATCH', `/admin/companies/${companyId}/agents/${agentId}`, { status: 'paused', channels: ['sms', 'whatsapp', 'sms'], description: 'Answers' });
      expect(changed.status).to.equal(200);
      expect(changed.body.data).to.deep.include({ name: 'Helper', status: 'paused', channels: ['whatsapp', 'sms'], description: 'Answers' });
      expect(changed.headers.get('X-Log-Position')).to.match(/^\d+$/);
      const same = await admin('PATCH', `/admin/companies/${companyId}/agents/${agentId}`, { status: 'paused' });
      expect([same.status, same.headers.get('X-Log-Position')]).to.deep.equal([200, null]);
      const cleared = await admin('PATCH', `/admin/companies/${companyId}/agents/${agentId}`, { description: null });
      expect(cleared.body.data.description).to.equal(null);
      expect((await admin('GET', `/admin/companies/${companyId}/agents/${agentId}`)).body.data).to.deep.equal(cleared.body.data);
      const events = await api.chronicle.stores.eventStore.readStream(agentStream(agentId));
      expect(events.map((event) => [event.type, event.metadata.source, event.metadata.adminTokenId])).to.deep.equal([
        ['AgentCreated', 'admin', tokenId],
        ['AgentUpdated', 'admin', tokenId],
        ['AgentUpdated', 'admin', tokenId],
      ]);
    });

    it('lists agents, filtered by status', async () => {
      await admin('POST', `/admin/companies/${companyId}/agents`, { name: 'Second', channels: ['email'], language: 'de-de' });
      const all = await admin('GET', `/admin/companies/${companyId}/agents`);
      expect(all.body.data.map((a: { name: string }) => a.name)).to.deep.equal(['Helper', 'Second']);
      const active = await admin('GET', `/admin/companies/${companyId}/agents?status=active`);
      expect(active.body.data.map((a: { name: string; language: string }) => [a.name, a.language])).to.deep.equal([['Second', 'de-DE']]);
      const bad = await admin('GET', `/admin/companies/${companyId}/agents?status=asleep`);
      expect([bad.status, Object.keys(bad.body.details)]).to.deep.equal([422, ['status']]);
    });

    it('refuses an empty change or a bad field (422), and an agent of another company (404, unchanged)', async () => {
      const empty = await admin('PATCH', `/admin/companies/${companyId}/agents/${agentId}`, {});
      expect([empty.status, Object.keys(empty.body.details)]).to.deep.equal([422, ['(body)']]);
      const bad = await admin('PATCH', `/admin/companies/${companyId}/agents/${agentId}`, { channels: ['pigeon'] });
      expect([bad.status, Object.keys(bad.body.details)]).to.deep.equal([422, ['channels']]);
      const other = (await admin('POST', '/admin/companies', { name: 'Other agents' })).body.data.id;
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { name: 'Stolen' }],
      ] as const) {
        const res = await admin(method, `/admin/companies/${other}/agents/${agentId}`, body);
        expect([res.status, res.body.error], method).to.deep.equal([404, 'Agent not found']);
      }
      expect((await admin('GET', `/admin/companies/${companyId}/agents/${agentId}`)).body.data.name).to.equal('Helper');
    });
  });
});
