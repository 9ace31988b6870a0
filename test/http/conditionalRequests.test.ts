import { expect } from 'chai';
import { startHarness, type ApiResponse, type Harness } from '../support/httpHarness.js';

/** ETags on GET /contacts/:id and /deals/:id, If-None-Match (304), If-Match on their PUTs (412). */
describe('HTTP: ETags and conditional requests', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness()));
  after(() => api.close());

  let phone = 7_100_000;
  const newPhone = () => `+49160${phone++}`;
  const TAG = /^"(\d+)-(\d+)"$/;
  const etag = (res: ApiResponse): string => {
    const tag = res.headers.get('etag');
    expect(tag, `ETag of a ${res.status}`).to.match(TAG);
    return tag!;
  };
  const newContact = async (name = 'Grace Hopper') => {
    const res = await api.request('POST', '/contacts', { body: { name, phoneNumber: newPhone() } });
    expect(res.status).to.equal(201);
    return res.body.data as { id: string; name: string; phoneNumber: string };
  };
  const get = (path: string, headers: Record<string, string> = {}) => api.request('GET', path, { headers });
  const put = (path: string, body: unknown, headers: Record<string, string> = {}) => api.request('PUT', path, { body, headers });

  describe('GET /contacts/:id', () => {
    it('sends a strong ETag of revision and position, and 304 without a body when If-None-Match names it', async () => {
      const contact = await newContact();
      const res = await get(`/contacts/${contact.id}`);
      expect(res.status).to.equal(200);
      const tag = etag(res);
      expect(tag).to.match(/^"0-\d+"$/);
      for (const ifNoneMatch of [tag, `W/${tag}`, '*', `"nope", ${tag}`]) {
        const cached = await get(`/contacts/${contact.id}`, { 'If-None-Match': ifNoneMatch });
        expect(cached.status, ifNoneMatch).to.equal(304);
        expect(cached.body).to.equal(undefined);
        expect(cached.headers.get('etag')).to.equal(tag);
      }
      expect((await get(`/contacts/${contact.id}`, { 'If-None-Match': '"0-1"' })).status).to.equal(200);
    });

    it('changes the ETag with every update, and sends the new one with the PUT\'s answer', async () => {
      const contact = await newContact();
      const before = etag(await get(`/contacts/${contact.id}`));
      const updated = await put(`/contacts/${contact.id}`, { city: 'Arlington' });
      expect(updated.status).to.equal(200);
      const after = etag(updated);
      expect(after).to.not.equal(before);
      expect(after).to.match(/^"1-\d+"$/);
      expect(etag(await get(`/contacts/${contact.id}`))).to.equal(after);
      // A copy held before the update is stale: a full answer.
      expect((await get(`/contacts/${contact.id}`, { 'If-None-Match': before })).status).to.equal(200);
    });
  });

  describe('PUT /contacts/:id with If-Match', () => {
    it('writes when If-Match names the current ETag (alone, in a list, or *), and answers 412 with the spec\'s body when not', async () => {
      const contact = await newContact();
      const first = etag(await get(`/contacts/${contact.id}`));
      expect((await put(`/contacts/${contact.id}`, { city: 'A' }, { 'If-Match': first })).status).to.equal(200);

      const stale = await put(`/contacts/${contact.id}`, { city: 'B' }, { 'If-Match': first });
      expect(stale.status).to.equal(412);
      expect(stale.body).to.include({ success: false, error: 'Precondition failed', code: 'PRECONDITION_FAILED' });
      expect(stale.body.timestamp).to.be.a('string');
      expect((await get(`/contacts/${contact.id}`)).body.data.city).to.equal('A');

      const current = etag(await get(`/contacts/${contact.id}`));
      // A weak tag never matches If-Match (strong comparison), nor does a foreign one.
      expect((await put(`/contacts/${contact.id}`, { city: 'C' }, { 'If-Match': `W/${current}` })).status).to.equal(412);
      expect((await put(`/contacts/${contact.id}`, { city: 'C' }, { 'If-Match': '"abc"' })).status).to.equal(412);
      expect((await put(`/contacts/${contact.id}`, { city: 'C' }, { 'If-Match': `${first}, ${current}` })).status).to.equal(200);
      expect((await put(`/contacts/${contact.id}`, { city: 'D' }, { 'If-Match': '*' })).status).to.equal(200);
      // A request that would change nothing is still checked.
      expect((await put(`/contacts/${contact.id}`, { city: 'D' }, { 'If-Match': first })).status).to.equal(412);
    });

    it('answers 404, not 412, for an unknown contact or another company\'s', async () => {
      expect((await put('/contacts/00000000-0000-4000-8000-000000000000', { city: 'X' }, { 'If-Match': '"0-1"' })).status).to.equal(404);
      const other = await api.newCompany('Conditional Ltd');
      const theirs = await api.request('POST', '/contacts', { key: other.key, body: { name: 'Theirs', phoneNumber: newPhone() } });
      expect((await put(`/contacts/${theirs.body.data.id}`, { city: 'X' }, { 'If-Match': '"5-1"' })).status).to.equal(404);
    });

    it('gives back the phone number an update refused by If-Match had reserved', async () => {
      const contact = await newContact();
      const tag = etag(await get(`/contacts/${contact.id}`));
      await put(`/contacts/${contact.id}`, { city: 'Moved' });
      const number = newPhone();
      const refused = await put(`/contacts/${contact.id}`, { phoneNumber: number }, { 'If-Match': tag });
      expect(refused.status).to.equal(412);
      // Released at once (not held for the 30 s a reservation counts while its command runs).
      const taker = await api.request('POST', '/contacts', { body: { name: 'Taker', phoneNumber: number } });
      expect(taker.status).to.equal(201);
    });

    it('lets exactly one of several concurrent writers holding the same ETag succeed', async () => {
      const contact = await newContact();
      const tag = etag(await get(`/contacts/${contact.id}`));
      const answers = await Promise.all(
        ['One', 'Two', 'Three', 'Four', 'Five'].map((city) => put(`/contacts/${contact.id}`, { city }, { 'If-Match': tag })),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).to.deep.equal([200, 412, 412, 412, 412]);
      const winner = answers.find((a) => a.status === 200)!;
      const history = await get(`/contacts/${contact.id}/history`);
      expect(history.body.meta.total).to.equal(2);
      expect((await get(`/contacts/${contact.id}`)).body.data.city).to.equal(winner.body.data.city);
    });
  });

  describe('deals', () => {
    it('GET /deals/:id: an ETag that moves with the embedded contact, If-Match guarding the deal\'s own revision', async () => {
      const contact = await newContact('Deal Contact');
      const created = await api.request('POST', '/deals', { body: { title: 'Tagged', value: 10, contactId: contact.id } });
      const id = created.body.data.id as string;
      const tag = etag(await get(`/deals/${id}`));
      expect((await get(`/deals/${id}`, { 'If-None-Match': tag })).status).to.equal(304);

      // The contact is renamed: the deal shows it, so its ETag moves (position), its revision does not.
      expect((await put(`/contacts/${contact.id}`, { name: 'Renamed Contact' })).status).to.equal(200);
      const renamed = await get(`/deals/${id}`, { 'If-None-Match': tag });
      expect(renamed.status).to.equal(200);
      expect(renamed.body.data.contact.name).to.equal('Renamed Contact');
      const moved = etag(renamed);
      expect(moved).to.not.equal(tag);
      expect(TAG.exec(moved)![1]).to.equal(TAG.exec(tag)![1]);

      // The deal itself did not change: If-Match with the older tag still holds.
      const won = await put(`/deals/${id}/status`, { status: 'won' }, { 'If-Match': tag });
      expect(won.status).to.equal(200);
      expect(etag(won)).to.match(/^"1-\d+"$/);
      const late = await put(`/deals/${id}/status`, { stage: 'done' }, { 'If-Match': tag });
      expect(late.status).to.equal(412);
      expect(late.body.error).to.equal('Precondition failed');
    });

    it('PUT /deals/:id/status: exactly one of two concurrent writers with the same ETag succeeds', async () => {
      const created = await api.request('POST', '/deals', { body: { title: 'Race', value: 5 } });
      const id = created.body.data.id as string;
      const tag = etag(await get(`/deals/${id}`));
      const [a, b] = await Promise.all([
        put(`/deals/${id}/status`, { status: 'won' }, { 'If-Match': tag }),
        put(`/deals/${id}/status`, { status: 'lost' }, { 'If-Match': tag }),
      ]);
      expect([a.status, b.status].sort()).to.deep.equal([200, 412]);
      const winner = a.status === 200 ? a : b;
      expect((await get(`/deals/${id}`)).body.data.status).to.equal(winner.body.data.status);
    });

    it('answers 404 for another company\'s deal whatever If-Match says', async () => {
      const other = await api.newCompany('Other deals');
      const theirs = await api.request('POST', '/deals', { key: other.key, body: { title: 'Theirs', value: 1 } });
      const res = await put(`/deals/${theirs.body.data.id}/status`, { status: 'won' }, { 'If-Match': '"9-9"' });
      expect(res.status).to.equal(404);
    });
  });
});
