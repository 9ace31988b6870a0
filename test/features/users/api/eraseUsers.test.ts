import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { userStream } from '../../../../src/features/users/domain/userEvents.js';
import { startHarness, type ApiResponse, type Harness } from '../../../support/httpHarness.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let seq = 0;

/**
 * `POST /admin/companies/:id/users/:userId/erase`: a user erased through the
 * admin API, and what every read of the customer API shows of them afterwards.
 */
describe('HTTP admin API: erasing a user', function () {
  this.timeout(30_000);
  let api: Harness;
  let token: string;
  let tokenId: string;
  before(async () => {
    api = await startHarness();
    ({ token, tokenId } = await api.issueAdminToken());
  });
  after(() => api.close());

  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> =>
    api.request(method, path, { key: token, ...(body === undefined ? {} : { body }), headers });
  /** A user of the harness's company with values no other test uses. */
  const newUser = async (headers: Record<string, string> = {}, companyId = api.companyId) => {
    const n = ++seq;
    const values = { name: `Ulla Erasmo${n}`, email: `ulla.erasmo${n}@example.org` };
    const res = await admin('POST', `/admin/companies/${companyId}/users`, values, headers);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { id: res.body.data.id as string, ...values };
  };
  const erase = (userId: string, companyId = api.companyId, body: unknown = {}) => admin('POST', `/admin/companies/${companyId}/users/${userId}/erase`, body);
  const listed = async (companyId = api.companyId): Promise<string[]> =>
    ((await admin('GET', `/admin/companies/${companyId}/users?limit=100`)).body.data as { id: string }[]).map((user) => user.id);

  it('answers 200 with the id and when; the user leaves the list and its stream records UserErased, naming the admin token', async () => {
    const user = await newUser();
    const res = await erase(user.id);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, data: { id: user.id, erasedAt: res.body.data.erasedAt } });
    expect(res.body.data.erasedAt).to.match(ISO_MS);
    expect(res.headers.get('x-log-position')).to.be.a('string');
    expect(await listed()).not.to.include(user.id);
    const events = await api.chronicle.stores.eventStore.readStream(userStream(user.id));
    const erased = events[events.length - 1]!;
    expect(erased.type).to.equal('UserErased');
    expect(erased.data).to.deep.equal({ userId: user.id, companyId: api.companyId, erasedAt: res.body.data.erasedAt });
    expect(erased.metadata).to.include({ source: 'admin', adminTokenId: tokenId, companyId: api.companyId });
    expect(JSON.stringify(events)).not.to.include(user.name).and.not.to.include(user.email);
  });

  it('answers the same again (the first erasedAt, nothing appended), with or without a body', async () => {
    const user = await newUser();
    const first = await erase(user.id);
    const before = (await api.chronicle.stores.eventStore.readStream(userStream(user.id))).length;
    const again = await erase(user.id, api.companyId, undefined);
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('x-log-position')).to.equal(null);
    expect((await api.chronicle.stores.eventStore.readStream(userStream(user.id))).length).to.equal(before);
  });

  it('answers 404 for a user never seen, another company\'s user and an unknown company, with the spec\'s error body', async () => {
    const unknown = await erase(randomUUID());
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.include({ success: false, error: 'User not found' });
    expect(unknown.body.timestamp).to.match(ISO_MS);
    const other = (await admin('POST', '/admin/companies', { name: 'Other staff' })).body.data.id as string;
    const theirs = await newUser({}, other);
    const refused = await erase(theirs.id);
    expect([refused.status, refused.body.error]).to.deep.equal([404, 'User not found']);
    expect(await listed(other)).to.include(theirs.id);
    const mine = await newUser();
    expect((await erase(mine.id, other)).status).to.equal(404);
    expect(await listed()).to.include(mine.id);
    const noCompany = await erase(mine.id, randomUUID());
    expect([noCompany.status, noCompany.body.error]).to.deep.equal([404, 'Company not found']);
  });

  it('needs an admin token: none, or a customer API key, is refused with 401 and nothing is erased', async () => {
    const user = await newUser();
    const path = `/admin/companies/${api.companyId}/users/${user.id}/erase`;
    const anonymous = await api.request('POST', path, { body: {}, key: null });
    expect([anonymous.status, anonymous.body.success]).to.deep.equal([401, false]);
    const customer = await api.request('POST', path, { body: {} });
    expect(customer.status).to.equal(401);
    expect(await listed()).to.include(user.id);
  });

  it('shows every deal assigned to the user as assigned to no one; the deals\' history and webhook records keep only the id', async () => {
    const user = await newUser();
    const created = await api.request('POST', '/deals', { body: { title: 'Assigned one', value: 10, currency: 'EUR', assignedToId: user.id } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const dealId = created.body.data.id as string;
    expect((await api.request('PUT', `/deals/${dealId}/status`, { body: { status: 'won' } })).status).to.equal(200);
    const other = await newUser();
    const kept = await api.request('POST', '/deals', { body: { title: 'Someone else\'s', value: 5, currency: 'EUR', assignedToId: other.id } });

    const erased = await erase(user.id);
    expect(erased.status).to.equal(200);

    const read = await api.request('GET', `/deals/${dealId}`);
    expect(read.body.data.assignedTo).to.equal(null);
    const list = await api.request('GET', '/deals?limit=100');
    const listedDeal = (list.body.data as { id: string; assignedTo: unknown }[]).find((deal) => deal.id === dealId);
    expect(listedDeal!.assignedTo).to.equal(null);
    expect((await api.request('GET', `/deals/${kept.body.data.id}`)).body.data.assignedTo).to.deep.equal({ id: other.id, name: other.name, email: other.email });
    const history = await api.request('GET', `/deals/${dealId}/history`);
    expect(history.status).to.equal(200);
    expect(history.body.data[0].erasedFields).to.include.members(['assignedTo.name', 'assignedTo.email']);
    const asOf = await api.request('GET', `/deals/${dealId}?asOf=${encodeURIComponent(new Date().toISOString())}`);
    for (const body of [read.body, list.body, history.body, asOf.body]) {
      expect(JSON.stringify(body)).not.to.include(user.name).and.not.to.include(user.email);
    }
  });

  it('erases the user\'s values from the recent triggers and the event feed, which keep their items', async () => {
    const user = await newUser();
    const created = await api.request('POST', '/deals', { body: { title: 'Fed deal', value: 10, currency: 'EUR', assignedToId: user.id } });
    expect(created.status).to.equal(201);
    const dealId = created.body.data.id as string;
    const before = await api.request('GET', '/triggers/deal.created/recent?limit=100');
    expect(JSON.stringify(before.body)).to.include(user.email);

    expect((await erase(user.id)).status).to.equal(200);

    const recent = await api.request('GET', '/triggers/deal.created/recent?limit=100');
    const item = (recent.body as { id: string; assignedTo: unknown }[]).find((record) => record.id === dealId);
    expect(item!.assignedTo).to.deep.equal({ id: user.id, name: null, email: null });
    const feed = await api.request('GET', '/events?types=deal.created&limit=100');
    expect(feed.status).to.equal(200);
    const fed = (feed.body.data as { data: { id: string; assignedTo: unknown } }[]).find((entry) => entry.data.id === dealId);
    expect(fed!.data.assignedTo).to.deep.equal({ id: user.id, name: null, email: null });
    for (const body of [recent.body, feed.body]) {
      expect(JSON.stringify(body)).not.to.include(user.name).and.not.to.include(user.email);
    }
  });

  it('rewrites the responses kept for Idempotency-Key: its create replays as an unknown user\'s, a deal\'s create without its values', async () => {
    const key = `erase-user-${Date.now()}`;
    const user = await newUser({ 'Idempotency-Key': key });
    const dealKey = `${key}-deal`;
    const deal = { title: 'Kept answer', value: 1, currency: 'EUR', assignedToId: user.id };
    expect((await api.request('POST', '/deals', { body: deal, headers: { 'Idempotency-Key': dealKey } })).status).to.equal(201);

    expect((await erase(user.id)).status).to.equal(200);

    for (const body of [{ name: user.name, email: user.email }, { name: 'Someone Else', email: 'someone@example.org' }]) {
      const replay = await admin('POST', `/admin/companies/${api.companyId}/users`, body, { 'Idempotency-Key': key });
      expect(replay.status).to.equal(404);
      expect(replay.body).to.include({ success: false, error: 'User not found' });
    }
    // The kept Deal keeps the user's id with nulls (the Deal schema's ErasedDealUser), as the deal's webhook events carry it.
    const dealReplay = await api.request('POST', '/deals', { body: deal, headers: { 'Idempotency-Key': dealKey } });
    const replayed = dealReplay.body as { data: { assignedTo: unknown } };
    expect(dealReplay.status).to.equal(201);
    expect(replayed.data.assignedTo).to.deep.equal({ id: user.id, name: null, email: null });
    expect(JSON.stringify(replayed)).not.to.include(user.name).and.not.to.include(user.email);
  });
});
