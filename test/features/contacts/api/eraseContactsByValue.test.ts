import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';

let seq = 0;
const phone = () => `+4917722${String(++seq).padStart(5, '0')}`;
const email = (name: string) => `${name}.${++seq}.${Date.now()}@example.com`;

describe('HTTP: erasing contacts by e-mail or phone number (POST /contacts/erase)', function () {
  this.timeout(30_000);
  let api: Harness;
  let eraser: string;
  before(async () => {
    api = await startHarness();
    ({ key: eraser } = await api.issueKey(api.companyId, ['contacts:erase']));
  });
  after(() => api.close());

  const create = async (body: Record<string, unknown>, key?: string) => {
    const res = await api.request('POST', '/contacts', { body, ...(key ? { key } : {}) });
    expect(res.status).to.equal(201);
    return res.body.data as { id: string };
  };
  const eraseBy = (body: unknown, key = eraser) => api.request('POST', '/contacts/erase', { body, key });
  const historyTypes = async (id: string) =>
    ((await api.request('GET', `/contacts/${id}/history`)).body.data as { type: string }[]).map((event) => event.type);

  it('erases every contact of the company with that e-mail, compared case-insensitively, and answers their ids', async () => {
    const address = email('Case.Mixed');
    const first = await create({ name: 'Mail One', phoneNumber: phone(), email: address });
    const second = await create({ name: 'Mail Two', phoneNumber: phone(), email: address.toUpperCase() });
    const other = await create({ name: 'Mail Other', phoneNumber: phone(), email: email('other') });
    const res = await eraseBy({ email: `  ${address.toLowerCase()} ` });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, data: { erased: [first.id, second.id] } });
    for (const id of [first.id, second.id]) {
      expect((await api.request('GET', `/contacts/${id}`)).status).to.equal(404);
      expect(await historyTypes(id)).to.deep.equal(['ContactCreated', 'ContactErased']);
    }
    expect((await api.request('GET', `/contacts/${other.id}`)).status).to.equal(200);
  });

  it('erases by phone number, normalised as contacts normalise it, and frees the number', async () => {
    const number = phone();
    const contact = await create({ name: 'Phone Match', phoneNumber: number });
    const spaced = `00${number.slice(1, 3)} ${number.slice(3, 6)}-${number.slice(6)}`;
    const res = await eraseBy({ phoneNumber: spaced });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ erased: [contact.id] });
    const history = await api.request('GET', `/contacts/${contact.id}/history`);
    expect(history.body.data[0].data).to.include({ name: null, phoneNumber: null });
    await create({ name: 'Next Holder', phoneNumber: number });
  });

  it('erases deleted contacts too, matched by the values they had when deleted', async () => {
    const address = email('deleted');
    const number = phone();
    const contact = await create({ name: 'Was Deleted', phoneNumber: number, email: email('before') });
    expect((await api.request('PUT', `/contacts/${contact.id}`, { body: { email: address } })).status).to.equal(200);
    expect((await api.request('DELETE', `/contacts/${contact.id}`)).status).to.equal(200);
    const byEmail = await eraseBy({ email: address });
    expect(byEmail.body.data).to.deep.equal({ erased: [contact.id] });
    expect((await api.request('POST', `/contacts/${contact.id}/restore`, { body: {} })).status).to.equal(404);
    expect(await historyTypes(contact.id)).to.deep.equal(['ContactCreated', 'ContactUpdated', 'ContactDeleted', 'ContactErased']);
    const deletedByPhone = await create({ name: 'Deleted By Phone', phoneNumber: number });
    expect((await api.request('DELETE', `/contacts/${deletedByPhone.id}`)).status).to.equal(200);
    expect((await eraseBy({ phoneNumber: number })).body.data).to.deep.equal({ erased: [deletedByPhone.id] });
  });

  it('does not match on an e-mail the contact no longer has, and a restored contact by its values again', async () => {
    const old = email('old');
    const contact = await create({ name: 'Changed Mail', phoneNumber: phone(), email: old });
    expect((await api.request('PUT', `/contacts/${contact.id}`, { body: { email: email('new') } })).status).to.equal(200);
    expect((await eraseBy({ email: old })).body.data).to.deep.equal({ erased: [] });
    const address = email('restored');
    const restored = await create({ name: 'Restored Mail', phoneNumber: phone(), email: address });
    expect((await api.request('DELETE', `/contacts/${restored.id}`)).status).to.equal(200);
    expect((await api.request('POST', `/contacts/${restored.id}/restore`, { body: {} })).status).to.equal(200);
    expect((await eraseBy({ email: address })).body.data).to.deep.equal({ erased: [restored.id] });
  });

  it('answers an empty list when nothing matches, and so does the same request sent again', async () => {
    expect((await eraseBy({ email: email('nobody') })).body).to.deep.equal({ success: true, data: { erased: [] } });
    const address = email('twice');
    const contact = await create({ name: 'Sent Twice', phoneNumber: phone(), email: address });
    expect((await eraseBy({ email: address })).body.data).to.deep.equal({ erased: [contact.id] });
    const again = await eraseBy({ email: address });
    expect(again.status).to.equal(200);
    expect(again.body.data).to.deep.equal({ erased: [] });
  });

  it('sees the contacts the caller created a moment before', async () => {
    for (let i = 0; i < 5; i++) {
      const address = email('fresh');
      const contact = await create({ name: 'Fresh One', phoneNumber: phone(), email: address });
      expect((await eraseBy({ email: address })).body.data).to.deep.equal({ erased: [contact.id] });
    }
  });

  it('leaves other companies\' contacts alone', async () => {
    const address = email('shared');
    const other = await api.newCompany();
    const theirs = await create({ name: 'Their Contact', phoneNumber: phone(), email: address }, other.key);
    const mine = await create({ name: 'My Contact', phoneNumber: phone(), email: address });
    expect((await eraseBy({ email: address })).body.data).to.deep.equal({ erased: [mine.id] });
    expect((await api.request('GET', `/contacts/${theirs.id}`, { key: other.key })).status).to.equal(200);
  });

  it('needs contacts:erase', async () => {
    const address = email('guarded');
    const contact = await create({ name: 'Guarded', phoneNumber: phone(), email: address });
    const refused = await eraseBy({ email: address }, api.key);
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ success: false });
    expect((await api.request('GET', `/contacts/${contact.id}`)).status).to.equal(200);
  });

  it('refuses a body without exactly one of email and phoneNumber, or with a bad value, with the validation error body', async () => {
    const cases: [unknown, string][] = [
      [{}, '(body)'],
      [{ email: 'a@example.com', phoneNumber: '+4917700000' }, '(body)'],
      [{ email: 'not an address' }, 'email'],
      [{ email: null }, 'email'],
      [{ email: '' }, 'email'],
      [{ phoneNumber: 'abc' }, 'phoneNumber'],
      [{ phoneNumber: 4917700000 }, 'phoneNumber'],
      [{ id: 'x', email: 'a@example.com' }, 'id'],
      [['a@example.com'], '(body)'],
    ];
    for (const [body, field] of cases) {
      const res = await eraseBy(body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(res.body).to.include({ success: false, error: 'Validation failed' });
      expect(res.body.details, JSON.stringify(body)).to.have.property(field);
      expect(JSON.stringify(res.body)).not.to.include('a@example.com');
    }
  });
});
