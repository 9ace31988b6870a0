import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';
import { clockAhead } from '../../../support/clocks.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY_MS = 24 * 60 * 60 * 1000;
let phoneSeq = 0;
const phone = () => `+4917700${String(++phoneSeq).padStart(5, '0')}`;

describe('HTTP: deleting and restoring contacts', function () {
  this.timeout(30_000);
  const time = clockAhead();
  let api: Harness;
  before(async () => (api = await startHarness({ DELETED_RECORDS_RETENTION_DAYS: '7' }, undefined, { clock: time })));
  after(() => api.close());

  const create = async (body: Record<string, unknown>) => {
    const res = await api.request('POST', '/contacts', { body });
    expect(res.status).to.equal(201);
    return res.body.data;
  };
  const remove = (id: string, key?: string) => api.request('DELETE', `/contacts/${id}`, key ? { key } : {});
  const restore = (id: string, key?: string) => api.request('POST', `/contacts/${id}/restore`, { body: {}, ...(key ? { key } : {}) });

  it('answers 200 with the id, when it was deleted and until when it can be restored (the retention period later)', async () => {
    const contact = await create({ name: 'Del Eted', phoneNumber: phone() });
    const before = time.now().getTime();
    const res = await remove(contact.id);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, data: { id: contact.id, deletedAt: res.body.data.deletedAt, restorableUntil: res.body.data.restorableUntil } });
    const { deletedAt, restorableUntil } = res.body.data;
    expect(deletedAt).to.match(ISO_MS);
    expect(Date.parse(deletedAt)).to.be.at.least(before - 1000);
    expect(Date.parse(restorableUntil) - Date.parse(deletedAt)).to.equal(7 * DAY_MS);
    expect(res.headers.get('x-log-position')).to.match(/^\d+$/);
  });

  it('answers 404 for the deleted contact from then on: GET, PUT, history stays readable, and a second DELETE', async () => {
    const contact = await create({ name: 'Gone Soon', phoneNumber: phone() });
    expect((await remove(contact.id)).status).to.equal(200);
    const get = await api.request('GET', `/contacts/${contact.id}`);
    expect(get.status).to.equal(404);
    expect(get.body.error).to.equal('Contact not found');
    expect((await api.request('PUT', `/contacts/${contact.id}`, { body: { name: 'Back' } })).status).to.equal(404);
    const again = await remove(contact.id);
    expect(again.status).to.equal(404);
    expect(again.body).to.include({ success: false, error: 'Contact not found' });
    expect((await remove('01900000-0000-7000-8000-00000000dead')).status).to.equal(404);
    const history = await api.request('GET', `/contacts/${contact.id}/history`);
    expect(history.status).to.equal(200);
    expect(history.body.data.map((event: { type: string }) => event.type)).to.deep.equal(['ContactCreated', 'ContactDeleted']);
  });

  it('leaves lists and searches', async () => {
    const marker = `Listed${Date.now()}`;
    const kept = await create({ name: `${marker} Kept`, phoneNumber: phone() });
    const dropped = await create({ name: `${marker} Dropped`, phoneNumber: phone(), email: `${marker.toLowerCase()}@example.com` });
    expect((await remove(dropped.id)).status).to.equal(200);
    const search = await api.request('GET', `/contacts?search=${marker}&limit=100`);
    expect(search.body.data.map((c: { id: string }) => c.id)).to.deep.equal([kept.id]);
    expect(search.body.meta.total).to.equal(1);
    const byEmail = await api.request('GET', `/contacts?search=${marker.toLowerCase()}%40example.com`);
    expect(byEmail.body.data).to.deep.equal([]);
    const all = await api.request('GET', '/contacts?limit=100');
    expect(all.body.data.map((c: { id: string }) => c.id)).not.to.include(dropped.id);
  });

  it('takes its events out of the recent triggers until it is restored; the event feed keeps them', async () => {
    const contact = await create({ name: 'Trigger Gone', phoneNumber: phone() });
    expect((await api.request('PUT', `/contacts/${contact.id}`, { body: { city: 'Graz' } })).status).to.equal(200);
    const recentIds = async (type: string) =>
      ((await api.request('GET', `/triggers/${type}/recent?limit=100`)).body as { id: string }[]).map((record) => record.id);
    expect(await recentIds('contact.created')).to.include(contact.id);
    expect(await recentIds('contact.updated')).to.include(contact.id);
    expect((await remove(contact.id)).status).to.equal(200);
    expect(await recentIds('contact.created')).not.to.include(contact.id);
    expect(await recentIds('contact.updated')).not.to.include(contact.id);
    const feed = await api.request('GET', '/events?types=contact.created,contact.updated&limit=100');
    expect(feed.status).to.equal(200);
    const fed = (feed.body.data as { event: string; data: { id: string } }[]).filter((item) => item.data.id === contact.id);
    expect(fed.map((item) => item.event)).to.deep.equal(['contact.created', 'contact.updated']);
    expect((await restore(contact.id)).status).to.equal(200);
    expect(await recentIds('contact.created')).to.include(contact.id);
    expect(await recentIds('contact.updated')).to.include(contact.id);
  });

  it('frees the phone number at once', async () => {
    const number = phone();
    const first = await create({ name: 'First Holder', phoneNumber: number });
    expect((await remove(first.id)).status).to.equal(200);
    const second = await api.request('POST', '/contacts', { body: { name: 'Second Holder', phoneNumber: number } });
    expect(second.status).to.equal(201);
  });

  it('restores a deleted contact as it was, answering it and showing it again', async () => {
    const contact = await create({ name: 'Come Back', phoneNumber: phone(), city: 'Lyon', tags: ['x'] });
    const updated = (await api.request('PUT', `/contacts/${contact.id}`, { body: { city: 'Nice' } })).body.data;
    expect((await remove(contact.id)).status).to.equal(200);
    const res = await restore(contact.id);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, data: updated });
    expect(res.headers.get('x-log-position')).to.match(/^\d+$/);
    const get = await api.request('GET', `/contacts/${contact.id}`);
    expect(get.status).to.equal(200);
    expect(get.body.data).to.deep.equal(updated);
    const search = await api.request('GET', `/contacts?search=Come%20Back`);
    expect(search.body.data.map((c: { id: string }) => c.id)).to.include(contact.id);
    // Its number is held again.
    const taken = await api.request('POST', '/contacts', { body: { name: 'Other', phoneNumber: contact.phoneNumber } });
    expect(taken.status).to.equal(409);
    expect(taken.body.existingContactId).to.equal(contact.id);
  });

  it('answers a contact that is not deleted as it is, without a write', async () => {
    const contact = await create({ name: 'Never Deleted', phoneNumber: phone() });
    const res = await restore(contact.id);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal(contact);
    expect(res.headers.get('x-log-position')).to.equal(null);
  });

  it('refuses with 409 and existingContactId when its number was taken meanwhile, and restores once it is free again', async () => {
    const number = phone();
    const contact = await create({ name: 'Number Lost', phoneNumber: number });
    expect((await remove(contact.id)).status).to.equal(200);
    const taker = await create({ name: 'Number Taker', phoneNumber: number });
    const refused = await restore(contact.id);
    expect(refused.status).to.equal(409);
    expect(refused.body).to.deep.include({ success: false, error: 'Contact with this phone number already exists', existingContactId: taker.id });
    expect((await api.request('GET', `/contacts/${contact.id}`)).status).to.equal(404);
    expect((await api.request('PUT', `/contacts/${taker.id}`, { body: { phoneNumber: phone() } })).status).to.equal(200);
    expect((await restore(contact.id)).status).to.equal(200);
  });

  it('answers 404 for an unknown contact, another company\'s, and one whose restorable period is over', async () => {
    expect((await restore('01900000-0000-7000-8000-00000000beef')).status).to.equal(404);
    const other = await api.newCompany('Other Co');
    const contact = await create({ name: 'Not Yours', phoneNumber: phone() });
    expect((await remove(contact.id, other.key)).status).to.equal(404);
    expect((await remove(contact.id)).status).to.equal(200);
    expect((await restore(contact.id, other.key)).status).to.equal(404);
    time.advance(7 * DAY_MS + 1000);
    const late = await restore(contact.id);
    expect(late.status).to.equal(404);
    expect(late.body.error).to.equal('Contact not found');
  });

  it('needs contacts:write', async () => {
    const contact = await create({ name: 'Guarded', phoneNumber: phone() });
    const { key } = await api.issueKey(api.companyId, ['contacts:read']);
    const del = await remove(contact.id, key);
    expect(del.status).to.equal(403);
    expect((await restore(contact.id, key)).status).to.equal(403);
  });
});
