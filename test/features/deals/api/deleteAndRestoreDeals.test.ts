import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';
import { clockAhead } from '../../../support/clocks.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY_MS = 24 * 60 * 60 * 1000;
let phoneSeq = 0;
const phone = () => `+4917800${String(++phoneSeq).padStart(5, '0')}`;

describe('HTTP: deleting and restoring deals, and deals of a deleted contact', function () {
  this.timeout(30_000);
  const time = clockAhead();
  let api: Harness;
  before(async () => (api = await startHarness({ DELETED_RECORDS_RETENTION_DAYS: '7' }, undefined, { clock: time })));
  after(() => api.close());

  /** Requests with one company's key (a fresh company: its triggers and lists hold only what the test made). */
  const asCompany = async () => {
    const { key } = await api.newCompany('Deals Co');
    const request = (method: string, path: string, body?: unknown) => api.request(method, path, { key, ...(body !== undefined ? { body } : {}) });
    const created = async (path: string, body: Record<string, unknown>) => {
      const res = await request('POST', path, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data;
    };
    return {
      key,
      request,
      createContact: (name: string) => created('/contacts', { name, phoneNumber: phone(), email: `${name.toLowerCase().replace(/\W/g, '')}@example.com`, currentCompany: 'Acme' }),
      createDeal: (body: Record<string, unknown>) => created('/deals', body),
      remove: (path: string) => request('DELETE', path),
      restore: (path: string) => request('POST', `${path}/restore`, {}),
      recentIds: async (type: string) => ((await request('GET', `/triggers/${type}/recent?limit=100`)).body as { id: string }[]).map((record) => record.id),
    };
  };

  describe('DELETE /deals/:id and POST /deals/:id/restore', () => {
    it('answers 200 with the id, when it was deleted and until when it can be restored (the retention period later)', async () => {
      const { createDeal, remove } = await asCompany();
      const deal = await createDeal({ title: 'Short lived', value: 10 });
      const before = Date.now();
      const res = await remove(`/deals/${deal.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: { id: deal.id, deletedAt: res.body.data.deletedAt, restorableUntil: res.body.data.restorableUntil } });
      const { deletedAt, restorableUntil } = res.body.data;
      expect(deletedAt).to.match(ISO_MS);
      expect(Date.parse(deletedAt)).to.be.at.least(before - 1000);
      expect(Date.parse(restorableUntil) - Date.parse(deletedAt)).to.equal(7 * DAY_MS);
      expect(res.headers.get('x-log-position')).to.match(/^\d+$/);
    });

    it('answers 404 for the deleted deal from then on (GET, status change, a second DELETE); its history stays readable', async () => {
      const { request, createDeal, remove } = await asCompany();
      const deal = await createDeal({ title: 'Gone soon', value: 10 });
      const deleted = await remove(`/deals/${deal.id}`);
      expect(deleted.status).to.equal(200);
      const get = await request('GET', `/deals/${deal.id}`);
      expect(get.status).to.equal(404);
      expect(get.body).to.include({ success: false, error: 'Deal not found' });
      const change = await request('PUT', `/deals/${deal.id}/status`, { status: 'won' });
      expect(change.status).to.equal(404);
      expect(change.body.error).to.equal('Deal not found');
      const again = await remove(`/deals/${deal.id}`);
      expect(again.status).to.equal(404);
      expect(again.body).to.include({ success: false, error: 'Deal not found' });
      expect((await remove('/deals/01900000-0000-7000-8000-00000000dead')).status).to.equal(404);
      const history = await request('GET', `/deals/${deal.id}/history`);
      expect(history.status).to.equal(200);
      expect(history.body.data.map((event: { type: string }) => event.type)).to.deep.equal(['DealCreated', 'DealDeleted']);
      const { deletedAt, restorableUntil } = deleted.body.data;
      expect(history.body.data[1].data).to.deep.equal({ dealId: deal.id, companyId: history.body.data[0].data.companyId, deletedAt, restorableUntil });
    });

    it('leaves lists, filters and totals', async () => {
      const { request, createDeal, remove } = await asCompany();
      const kept = await createDeal({ title: 'Kept', value: 1, stage: 'Pitch' });
      const dropped = await createDeal({ title: 'Dropped', value: 2, stage: 'Pitch' });
      expect((await request('PUT', `/deals/${dropped.id}/status`, { status: 'won' })).status).to.equal(200);
      expect((await remove(`/deals/${dropped.id}`)).status).to.equal(200);
      const all = await request('GET', '/deals?limit=100');
      expect(all.body.data.map((deal: { id: string }) => deal.id)).to.deep.equal([kept.id]);
      expect(all.body.meta.total).to.equal(1);
      const byStage = await request('GET', '/deals?stage=Pitch');
      expect(byStage.body.data.map((deal: { id: string }) => deal.id)).to.deep.equal([kept.id]);
      expect(byStage.body.meta.total).to.equal(1);
      const won = await request('GET', '/deals?status=won');
      expect(won.body.data).to.deep.equal([]);
      expect(won.body.meta.total).to.equal(0);
    });

    it('takes its events out of the recent triggers until it is restored; the event feed keeps them', async () => {
      const { request, createDeal, remove, restore, recentIds } = await asCompany();
      const deal = await createDeal({ title: 'Triggered', value: 5, stage: 'Lead' });
      expect((await request('PUT', `/deals/${deal.id}/status`, { status: 'won', stage: 'Closed' })).status).to.equal(200);
      const types = ['deal.created', 'deal.updated', 'deal.stage_changed', 'deal.won'];
      for (const type of types) expect(await recentIds(type), type).to.deep.equal([deal.id]);
      expect((await remove(`/deals/${deal.id}`)).status).to.equal(200);
      for (const type of types) expect(await recentIds(type), type).to.deep.equal([]);
      const feed = await request('GET', `/events?types=${types.join(',')}&limit=100`);
      expect(feed.status).to.equal(200);
      expect((feed.body.data as { event: string }[]).map((item) => item.event)).to.have.members(types);
      expect((await restore(`/deals/${deal.id}`)).status).to.equal(200);
      for (const type of types) expect(await recentIds(type), type).to.deep.equal([deal.id]);
    });

    it('restores a deleted deal as it was, answering it and showing it again in reads and lists', async () => {
      const { request, createDeal, remove, restore } = await asCompany();
      const first = await createDeal({ title: 'Come back', value: 7, stage: 'Lead', probability: 30 });
      const won = (await request('PUT', `/deals/${first.id}/status`, { status: 'won', stage: 'Closed' })).body.data;
      expect((await remove(`/deals/${first.id}`)).status).to.equal(200);
      const second = await createDeal({ title: 'Meanwhile', value: 8 });
      const res = await restore(`/deals/${first.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: won });
      expect(res.headers.get('x-log-position')).to.match(/^\d+$/);
      const get = await request('GET', `/deals/${first.id}`);
      expect(get.status).to.equal(200);
      expect(get.body.data).to.deep.equal(won);
      // Lists follow the order in which deals entered them: restored, it comes after the deal created meanwhile.
      const list = await request('GET', '/deals?status=won');
      expect(list.body.data).to.deep.equal([won]);
      expect((await request('GET', '/deals')).body.data.map((deal: { id: string }) => deal.id)).to.deep.equal([second.id, first.id]);
      const history = await request('GET', `/deals/${first.id}/history`);
      const restored = history.body.data.at(-1);
      expect(restored.type).to.equal('DealRestored');
      expect(restored.data.deal).to.deep.equal(won);
      // It can be changed again.
      expect((await request('PUT', `/deals/${first.id}/status`, { status: 'open' })).status).to.equal(200);
    });

    it('answers a deal that is not deleted as it is, without a write', async () => {
      const { createDeal, restore } = await asCompany();
      const deal = await createDeal({ title: 'Never deleted', value: 1 });
      const res = await restore(`/deals/${deal.id}`);
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal(deal);
      expect(res.headers.get('x-log-position')).to.equal(null);
    });

    it('answers 404 for an unknown deal, another company\'s, and one whose restorable period is over', async () => {
      const mine = await asCompany();
      const theirs = await asCompany();
      expect((await mine.restore('/deals/01900000-0000-7000-8000-00000000beef')).status).to.equal(404);
      const deal = await mine.createDeal({ title: 'Not yours', value: 1 });
      expect((await theirs.remove(`/deals/${deal.id}`)).status).to.equal(404);
      expect((await mine.remove(`/deals/${deal.id}`)).status).to.equal(200);
      expect((await theirs.restore(`/deals/${deal.id}`)).status).to.equal(404);
      time.advance(7 * DAY_MS + 1000);
      const late = await mine.restore(`/deals/${deal.id}`);
      expect(late.status).to.equal(404);
      expect(late.body.error).to.equal('Deal not found');
      expect((await mine.request('GET', `/deals/${deal.id}`)).status).to.equal(404);
    });

    it('needs deals:write', async () => {
      const deal = (await api.request('POST', '/deals', { body: { title: 'Guarded', value: 1 } })).body.data;
      const { key } = await api.issueKey(api.companyId, ['deals:read']);
      expect((await api.request('DELETE', `/deals/${deal.id}`, { key })).status).to.equal(403);
      expect((await api.request('POST', `/deals/${deal.id}/restore`, { key, body: {} })).status).to.equal(403);
    });
  });

  describe('a deal whose contact is deleted', () => {
    const gone = (id: string) => ({ id, name: null, email: null, phoneNumber: null, currentCompany: null });

    it('keeps the link, shown as the contact\'s id and nulls in GET and lists; the contact again once restored', async () => {
      const { request, createContact, createDeal, remove, restore } = await asCompany();
      const contact = await createContact('Linked Person');
      const deal = await createDeal({ title: 'Linked', value: 3, contactId: contact.id });
      const other = await createDeal({ title: 'Alone', value: 4 });
      expect((await remove(`/contacts/${contact.id}`)).status).to.equal(200);
      const get = await request('GET', `/deals/${deal.id}`);
      expect(get.status).to.equal(200);
      expect(get.body.data).to.deep.equal({ ...deal, contact: gone(contact.id) });
      const list = await request('GET', '/deals');
      expect(list.body.data).to.deep.equal([{ ...deal, contact: gone(contact.id) }, other]);
      expect((await restore(`/contacts/${contact.id}`)).status).to.equal(200);
      expect((await request('GET', `/deals/${deal.id}`)).body.data).to.deep.equal(deal);
      expect((await request('GET', '/deals')).body.data).to.deep.equal([deal, other]);
    });

    it('sends no deal.updated for the contact\'s deletion or restore: the deal itself did not change', async () => {
      const { request, createContact, createDeal, remove, restore, recentIds } = await asCompany();
      const contact = await createContact('Quiet Person');
      const deal = await createDeal({ title: 'Quiet', value: 3, contactId: contact.id });
      expect((await request('PUT', `/deals/${deal.id}/status`, { stage: 'Lead' })).status).to.equal(200);
      const before = (await request('GET', '/triggers/deal.updated/recent?limit=100')).body;
      expect(before.map((record: { id: string }) => record.id)).to.deep.equal([deal.id]);
      expect((await remove(`/contacts/${contact.id}`)).status).to.equal(200);
      expect((await request('GET', '/triggers/deal.updated/recent?limit=100')).body).to.deep.equal(before);
      expect((await restore(`/contacts/${contact.id}`)).status).to.equal(200);
      expect((await request('GET', '/triggers/deal.updated/recent?limit=100')).body).to.deep.equal(before);
      expect(await recentIds('deal.created')).to.deep.equal([deal.id]);
      const history = await request('GET', `/deals/${deal.id}/history`);
      expect(history.body.data.map((event: { type: string }) => event.type)).to.deep.equal(['DealCreated', 'DealStatusChanged']);
    });

    it('answers a status change with the contact\'s id and nulls, and records it so: no webhook carries the contact\'s fields', async () => {
      const { request, createContact, createDeal, remove } = await asCompany();
      const contact = await createContact('Secret Person');
      const deal = await createDeal({ title: 'Closing', value: 9, contactId: contact.id });
      expect((await remove(`/contacts/${contact.id}`)).status).to.equal(200);
      const res = await request('PUT', `/deals/${deal.id}/status`, { status: 'won' });
      expect(res.status).to.equal(200);
      expect(res.body.data.contact).to.deep.equal(gone(contact.id));
      const history = await request('GET', `/deals/${deal.id}/history`);
      expect(history.body.data.at(-1).type).to.equal('DealStatusChanged');
      expect(history.body.data.at(-1).data.deal).to.deep.equal(res.body.data);
      expect(history.body.data.at(-1).schema).to.include({ version: 4, storedVersion: 4 });
      const [updated] = (await request('GET', '/triggers/deal.updated/recent')).body;
      expect(updated.contact).to.deep.equal(gone(contact.id));
      const [wonRecord] = (await request('GET', '/triggers/deal.won/recent')).body;
      expect(wonRecord.contact).to.deep.equal({ id: contact.id, name: null, email: null });
      const text = JSON.stringify((await request('GET', '/events?limit=100')).body.data.filter((item: { data: { id: string } }) => item.data.id === deal.id).slice(1));
      expect(text).not.to.include('Secret Person');
      expect(text).not.to.include(contact.phoneNumber);
      expect((await request('GET', `/deals/${deal.id}`)).body.data).to.deep.equal(res.body.data);
    });

    it('restores a deleted deal with its contact as it is now: the id and nulls while the contact is deleted', async () => {
      const { request, createContact, createDeal, remove, restore } = await asCompany();
      const contact = await createContact('Both Gone');
      const deal = await createDeal({ title: 'Both', value: 2, contactId: contact.id });
      expect((await remove(`/deals/${deal.id}`)).status).to.equal(200);
      expect((await remove(`/contacts/${contact.id}`)).status).to.equal(200);
      const res = await restore(`/deals/${deal.id}`);
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ ...deal, contact: gone(contact.id) });
      expect((await request('GET', `/deals/${deal.id}`)).body.data).to.deep.equal(res.body.data);
      expect((await restore(`/contacts/${contact.id}`)).status).to.equal(200);
      expect((await request('GET', `/deals/${deal.id}`)).body.data).to.deep.equal(deal);
    });

    it('refuses a new deal with the deleted contact, as an unknown one (400)', async () => {
      const { request, createContact, remove } = await asCompany();
      const contact = await createContact('No New Deals');
      expect((await remove(`/contacts/${contact.id}`)).status).to.equal(200);
      const res = await request('POST', '/deals', { title: 'Refused', value: 1, contactId: contact.id });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('Contact not found or does not belong to your company');
    });
  });
});
