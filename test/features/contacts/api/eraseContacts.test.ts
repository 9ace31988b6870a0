import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let phoneSeq = 0;
const phone = () => `+4917711${String(++phoneSeq).padStart(5, '0')}`;

describe('HTTP: erasing a contact', function () {
  this.timeout(30_000);
  let api: Harness;
  let eraser: string;
  before(async () => {
    api = await startHarness();
    ({ key: eraser } = await api.issueKey(api.companyId, ['contacts:erase']));
  });
  after(() => api.close());

  const create = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await api.request('POST', '/contacts', { body, headers });
    expect(res.status).to.equal(201);
    return res.body.data as { id: string };
  };
  const erase = (id: string, key = eraser) => api.request('POST', `/contacts/${id}/erase`, { body: {}, key });

  it('answers 200 with the id and when; the contact answers 404 from then on, for good', async () => {
    const contact = await create({ name: 'Era Sable', phoneNumber: phone() });
    const res = await erase(contact.id);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, data: { id: contact.id, erasedAt: res.body.data.erasedAt } });
    expect(res.body.data.erasedAt).to.match(ISO_MS);
    expect((await api.request('GET', `/contacts/${contact.id}`)).status).to.equal(404);
    expect((await api.request('PUT', `/contacts/${contact.id}`, { body: { name: 'Back' } })).status).to.equal(404);
    expect((await api.request('DELETE', `/contacts/${contact.id}`)).status).to.equal(404);
    expect((await api.request('POST', `/contacts/${contact.id}/restore`, { body: {} })).status).to.equal(404);
  });

  it('answers the same again for a contact erased already, and 404 for an id never seen or another company\'s', async () => {
    const contact = await create({ name: 'Twice Gone', phoneNumber: phone() });
    const first = await erase(contact.id);
    const again = await erase(contact.id);
    expect(again.status).to.equal(200);
    expect(again.body.data).to.deep.equal(first.body.data);
    expect((await erase('01900000-0000-7000-8000-00000000beef')).status).to.equal(404);
    const other = await api.newCompany();
    const { key: otherEraser } = await api.issueKey(other.companyId, ['contacts:erase']);
    const mine = await create({ name: 'Not Theirs', phoneNumber: phone() });
    const refused = await erase(mine.id, otherEraser);
    expect(refused.status).to.equal(404);
    expect((await api.request('GET', `/contacts/${mine.id}`)).status).to.equal(200);
  });

  it('needs contacts:erase, which every other permission leaves out, and which is enough on its own', async () => {
    const contact = await create({ name: 'Kept Safe', phoneNumber: phone() });
    const refused = await erase(contact.id, api.key);
    expect(refused.status).to.equal(403);
    expect((await api.request('GET', `/contacts/${contact.id}`)).status).to.equal(200);
    expect((await erase(contact.id)).status).to.equal(200);
  });

  it('erases a deleted contact too, which then can no longer be restored', async () => {
    const contact = await create({ name: 'Deleted First', phoneNumber: phone() });
    expect((await api.request('DELETE', `/contacts/${contact.id}`)).status).to.equal(200);
    expect((await erase(contact.id)).status).to.equal(200);
    expect((await api.request('POST', `/contacts/${contact.id}/restore`, { body: {} })).status).to.equal(404);
  });

  it('frees its phone number', async () => {
    const number = phone();
    const contact = await create({ name: 'Number Holder', phoneNumber: number });
    expect((await erase(contact.id)).status).to.equal(200);
    await create({ name: 'Next Holder', phoneNumber: number });
  });

  it('keeps its history readable, every personal value null and listed in erasedFields, and records the erasure', async () => {
    const contact = await create({ name: 'Hist Orian', phoneNumber: phone(), email: 'hist.orian@example.com', tags: ['a'] });
    expect((await api.request('PUT', `/contacts/${contact.id}`, { body: { city: 'Linz' } })).status).to.equal(200);
    expect((await erase(contact.id)).status).to.equal(200);
    const history = await api.request('GET', `/contacts/${contact.id}/history`);
    expect(history.status).to.equal(200);
    const [created, updated, erased] = history.body.data as { type: string; data: Record<string, unknown>; erasedFields: string[] }[];
    expect(history.body.data.map((event: { type: string }) => event.type)).to.deep.equal(['ContactCreated', 'ContactUpdated', 'ContactErased']);
    expect(created!.data).to.include({ contactId: contact.id, name: null, phoneNumber: null, email: null, tags: null });
    expect(created!.erasedFields).to.include.members(['name', 'phoneNumber', 'email', 'tags']);
    expect(JSON.stringify(updated!.data)).not.to.include('Linz');
    expect(updated!.erasedFields).to.include('changes.city');
    expect(erased!.data).to.deep.equal({ contactId: contact.id, companyId: api.companyId, erasedAt: erased!.data.erasedAt, reason: 'requested' });
    expect(erased!.erasedFields).to.deep.equal([]);
    expect(JSON.stringify(history.body)).not.to.include('Hist Orian');
  });

  it('shows a linked deal\'s contact as its id and nulls, without a deal.updated', async () => {
    const contact = await create({ name: 'Deal Person', phoneNumber: phone(), email: 'deal.person@example.com' });
    const deal = await api.request('POST', '/deals', { body: { title: 'Big one', value: 10, currency: 'EUR', contactId: contact.id } });
    expect(deal.status).to.equal(201);
    expect((await erase(contact.id)).status).to.equal(200);
    const read = await api.request('GET', `/deals/${deal.body.data.id}`);
    expect(read.body.data.contact).to.deep.equal({ id: contact.id, name: null, email: null, phoneNumber: null, currentCompany: null });
    const history = await api.request('GET', `/deals/${deal.body.data.id}/history`);
    expect(JSON.stringify(history.body)).not.to.include('Deal Person');
    expect(history.body.data[0].erasedFields).to.include.members(['contact.name', 'contact.email', 'contact.phoneNumber']);
  });

  it('answers an idempotent replay of its create as for an unknown contact, whatever is sent with the key', async () => {
    const key = `erase-replay-${Date.now()}`;
    const contact = await create({ name: 'Once Only', phoneNumber: phone() }, { 'Idempotency-Key': key });
    expect((await erase(contact.id)).status).to.equal(200);
    for (const body of [{ name: 'Once Only', phoneNumber: '+491770000000' }, { name: 'Something Else', phoneNumber: phone() }]) {
      const replay = await api.request('POST', '/contacts', { body, headers: { 'Idempotency-Key': key } });
      expect(replay.status).to.equal(404);
      expect(replay.body).to.include({ success: false, error: 'Contact not found' });
    }
  });

  it('takes it out of the recent triggers, erases it from the event feed and tells subscribers with contact.erased', async () => {
    const contact = await create({ name: 'Feed Person', phoneNumber: phone(), email: 'feed.person@example.com' });
    expect((await erase(contact.id)).status).to.equal(200);
    const recent = await api.request('GET', '/triggers/contact.created/recent?limit=100');
    expect((recent.body as { id: string }[]).map((record) => record.id)).not.to.include(contact.id);
    const erasedRecent = await api.request('GET', '/triggers/contact.erased/recent?limit=100');
    expect(erasedRecent.status).to.equal(200);
    expect(erasedRecent.body[0]).to.include({ id: contact.id });
    const feed = await api.request('GET', '/events?types=contact.created,contact.erased&limit=100');
    expect(feed.status).to.equal(200);
    const items = (feed.body.data as { event: string; data: Record<string, unknown> }[]).filter((item) => item.data.id === contact.id);
    expect(items.map((item) => item.event)).to.deep.equal(['contact.created', 'contact.erased']);
    expect(items[0]!.data).to.include({ name: null, email: null, phoneNumber: null });
    expect(JSON.stringify(feed.body)).not.to.include('Feed Person');
  });
});
