import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';
import { clockAhead } from '../../../support/clocks.js';
import { loadConfig } from '../../../../src/config.js';
import { createLogger } from '../../../../src/logging.js';
import { startChronicle } from '../../../../src/startup/startChronicle.js';

const DAY_MS = 24 * 60 * 60 * 1000;
let seq = 0;
const phone = () => `+4917733${String(++seq).padStart(5, '0')}`;

interface HistoryItem {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly metadata: { readonly source: string };
}

describe('Deleted contacts erased when their restore period ends', function () {
  this.timeout(60_000);
  // The API's clock: it dates deletions, and the retention sweep reads it.
  const time = clockAhead();
  let api: Harness;
  before(async () => (api = await startHarness({ DELETED_RECORDS_RETENTION_DAYS: '2', DELETED_RECORDS_SWEEP_SECONDS: '1' }, undefined, { clock: time })));
  after(() => api.close());

  const create = async (body: Record<string, unknown>) => {
    const res = await api.request('POST', '/contacts', { body });
    expect(res.status).to.equal(201);
    return res.body.data as { id: string };
  };
  const history = async (id: string) => (await api.request('GET', `/contacts/${id}/history`)).body.data as HistoryItem[];
  /** Polls the contact's history until its last event is `type`, within `ms`. */
  const waitForLast = async (id: string, type: string, ms = 10_000): Promise<HistoryItem[]> => {
    const until = Date.now() + ms;
    for (;;) {
      const items = await history(id);
      if (items[items.length - 1]?.type === type || Date.now() > until) return items;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('erases a deleted contact once its period has passed, with reason retention_ended and source system; one still in its period stays restorable', async () => {
    const address = `retention.${Date.now()}@example.com`;
    const expiring = await create({ name: 'Period Over', phoneNumber: phone(), email: address });
    expect((await api.request('DELETE', `/contacts/${expiring.id}`)).status).to.equal(200);
    time.advance(DAY_MS);
    const recent = await create({ name: 'Period Running', phoneNumber: phone() });
    expect((await api.request('DELETE', `/contacts/${recent.id}`)).status).to.equal(200);
    // Past the first one's period (two days), within the second one's.
    time.advance(DAY_MS + 60_000);
    const items = await waitForLast(expiring.id, 'ContactErased');
    expect(items.map((item) => item.type)).to.deep.equal(['ContactCreated', 'ContactDeleted', 'ContactErased']);
    const erased = items[2]!;
    expect(erased.data).to.include({ contactId: expiring.id, reason: 'retention_ended' });
    expect(erased.metadata.source).to.equal('system');
    expect(items[0]!.data).to.include({ name: null, email: null, phoneNumber: null });
    expect((await api.request('POST', `/contacts/${expiring.id}/restore`, { body: {} })).status).to.equal(404);
    // Nothing is left to match its e-mail.
    const { key: eraser } = await api.issueKey(api.companyId, ['contacts:erase']);
    expect((await api.request('POST', '/contacts/erase', { body: { email: address }, key: eraser })).body.data).to.deep.equal({ erased: [] });
    expect((await history(recent.id)).map((item) => item.type)).to.deep.equal(['ContactCreated', 'ContactDeleted']);
    expect((await api.request('POST', `/contacts/${recent.id}/restore`, { body: {} })).status).to.equal(200);
  });

  it('erases nothing a restore brought back', async () => {
    const contact = await create({ name: 'Came Back', phoneNumber: phone() });
    expect((await api.request('DELETE', `/contacts/${contact.id}`)).status).to.equal(200);
    expect((await api.request('POST', `/contacts/${contact.id}/restore`, { body: {} })).status).to.equal(200);
    time.advance(3 * DAY_MS);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await history(contact.id)).map((item) => item.type)).to.deep.equal(['ContactCreated', 'ContactDeleted', 'ContactRestored']);
    expect((await api.request('GET', `/contacts/${contact.id}`)).status).to.equal(200);
  });
});

describe('The retention sweep runs only in the process that holds the read models\' lease', function () {
  this.timeout(60_000);
  const holderTime = clockAhead();
  let api: Harness;
  before(async () => (api = await startHarness({ DELETED_RECORDS_RETENTION_DAYS: '1', DELETED_RECORDS_SWEEP_SECONDS: '1' }, undefined, { clock: holderTime })));
  after(() => api.close());

  it('an API process beside the projector, whose clock is past the period, erases nothing; the projector does once its clock is', async () => {
    const created = await api.request('POST', '/contacts', { body: { name: 'Lease Bound', phoneNumber: phone() } });
    const id = created.body.data.id as string;
    expect((await api.request('DELETE', `/contacts/${id}`)).status).to.equal(200);
    const apiTime = clockAhead();
    apiTime.advance(2 * DAY_MS);
    const config = loadConfig({ DATA_DIR: api.dataDir, PORT: '0', RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false', DELETED_RECORDS_SWEEP_SECONDS: '1' });
    const second = await startChronicle(config, createLogger('silent', new PassThrough()), undefined, { clock: apiTime });
    const types = async () => ((await api.request('GET', `/contacts/${id}/history`)).body.data as { type: string }[]).map((item) => item.type);
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(await types()).to.deep.equal(['ContactCreated', 'ContactDeleted']);
    } finally {
      await second.close();
    }
    holderTime.advance(2 * DAY_MS);
    const until = Date.now() + 10_000;
    while ((await types()).length < 3 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await types()).to.deep.equal(['ContactCreated', 'ContactDeleted', 'ContactErased']);
  });
});
