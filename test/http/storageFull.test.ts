import { expect } from 'chai';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { startHarness, type ApiResponse, type Harness } from '../support/httpHarness.js';

/**
 * A full disk, made with SQLite's own quota (`PRAGMA max_page_count` at the
 * file's current size, through the harness): writes answer 503 with the spec's
 * error body and `Retry-After`, nothing of a refused write is stored or stays in
 * effect, and writes succeed again once space returns.
 */
describe('writes on a full disk (SQLite)', function () {
  this.timeout(30_000);
  let api: Harness;

  beforeEach(async () => {
    api = await startHarness({ RATE_LIMIT_HOURLY: '100000', RATE_LIMIT_DAILY: '100000' });
  });
  afterEach(async () => {
    api.limitStorage(null);
    await api.close();
  });

  const tags = (n: number) => Array.from({ length: 20 }, (_, i) => `tag-${n}-${i}-${'t'.repeat(30)}`);
  const contactBody = (n: number) => ({
    name: `Contact ${n} ${'x'.repeat(200)}`,
    phoneNumber: `+49 151 ${String(100000 + n)}`,
    currentCompany: 'y'.repeat(200),
    tags: tags(n),
  });
  const post = (path: string, body: unknown, requestId: string) => api.request('POST', path, { body, headers: { 'X-Request-Id': requestId } });
  const events = async (): Promise<RecordedEvent[]> => api.chronicle.stores.eventStore.readAll();
  const expectUnavailable = (res: ApiResponse) => {
    expect(res.status).to.equal(503);
    expect(res.body).to.include({ success: false, error: 'Service unavailable' });
    expect(res.body.message).to.be.a('string');
    expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
  };

  it('answers 503 with Retry-After once the disk fills, stores nothing of a refused write, and takes writes again once space returns', async () => {
    const { body: seed } = await post('/contacts', contactBody(0), 'seed-contact');
    const seedId: string = seed.data.id;
    api.limitStorage(12);

    // Creates, updates and deals until the disk is full (a few may still fit in the last pages).
    const accepted: string[] = [];
    const refused: { requestId: string; phone: string }[] = [];
    for (let n = 1; n <= 300 && refused.length < 6; n++) {
      const requestId = `full-${n}`;
      const kind = n % 3;
      const res =
        kind === 0
          ? await post('/deals', { title: `Deal ${n} ${'z'.repeat(200)}`, value: n, contactId: seedId }, requestId)
          : kind === 1
            ? await post('/contacts', contactBody(n), requestId)
            : await api.request('PUT', `/contacts/${seedId}`, { body: { tags: tags(n) }, headers: { 'X-Request-Id': requestId } });
      if (res.status === 503) {
        expectUnavailable(res);
        refused.push({ requestId, phone: contactBody(n).phoneNumber });
      } else {
        expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
        accepted.push(requestId);
      }
    }
    expect(refused.length, "the quota was never reached").to.be.at.least(6);

    // Nothing of a refused write is in the log, but reservations given back.
    const refusedIds = new Set(refused.map((r) => r.requestId));
    const byRefused = (await events()).filter((e) => refusedIds.has(e.metadata.correlationId));
    expect(byRefused.filter((e) => !e.type.startsWith('PhoneNumber')).map((e) => e.type)).to.deep.equal([]);

    // Space returns: writes succeed, and a refused create can be sent again as it was.
    api.limitStorage(null);
    const again = refused.find((r) => r.requestId.startsWith('full-') && Number(r.requestId.slice(5)) % 3 === 1);
    if (again) {
      const n = Number(again.requestId.slice(5));
      // A reservation whose release was refused too is given back in the background within a second or two.
      let res = await post('/contacts', contactBody(n), `${again.requestId}-again`);
      for (let i = 0; res.status === 409 && i < 20; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        res = await post('/contacts', contactBody(n), `${again.requestId}-again-${i}`);
      }
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
    const after = await post('/deals', { title: 'After the disk was freed', value: 1 }, 'after-full');
    expect(after.status).to.equal(201);

    // Every reservation a refused create made is released: no number is held by a contact that does not exist.
    const reservations = (await events()).filter((e) => e.type.startsWith('PhoneNumber') && refusedIds.has(e.metadata.correlationId));
    const reserved = reservations.filter((e) => e.type === 'PhoneNumberReserved').map((e) => e.stream);
    const released = reservations.filter((e) => e.type === 'PhoneNumberReleased').map((e) => e.stream);
    expect([...released].sort()).to.deep.equal([...reserved].sort());

    // The read models show the accepted writes and none of the refused ones.
    const list = await api.request('GET', '/contacts?limit=200');
    const names: string[] = list.body.data.map((c: { name: string }) => c.name);
    for (const { requestId } of refused) {
      const n = Number(requestId.slice(5));
      if (n % 3 === 1 && requestId !== again?.requestId) expect(names).not.to.include(contactBody(n).name);
    }
  });
});
