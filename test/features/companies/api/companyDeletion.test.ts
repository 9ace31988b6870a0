import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { startHarness, type Harness } from '../../../support/httpHarness.js';
import { clockAhead } from '../../../support/clocks.js';
import { newId } from '../../../../src/shared/ids.js';
import { loadConfig } from '../../../../src/config.js';
import { createLogger } from '../../../../src/logging.js';
import { startChronicle } from '../../../../src/startup/startChronicle.js';
import { tempDir } from '../../../support/tempStore.js';
import { createCompany, requestCompanyDeletion } from '../../../../src/features/companies/index.js';
import { CompanyName } from '../../../../src/features/companies/domain/CompanyName.js';
import { valid } from '../../apiKeys/decode.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Polls `check` every 100 ms until it holds, within `ms`; answers whether it did. */
const within = async (ms: number, check: () => Promise<boolean>): Promise<boolean> => {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('DELETE /admin/companies/:id, and the erasure at the end of the waiting period', function () {
  this.timeout(60_000);
  // The API's clock: it dates deletions, and the sweep reads it.
  const time = clockAhead();
  let api: Harness;
  let adminToken: string;
  before(async () => {
    api = await startHarness({ DELETED_COMPANIES_RETENTION_DAYS: '2', DELETED_RECORDS_SWEEP_SECONDS: '1' }, undefined, { clock: time });
    adminToken = (await api.issueAdminToken()).token;
  });
  after(() => api.close());

  const admin = (method: string, path: string) => api.request(method, path, { key: adminToken });
  const company = async (tag: string) => {
    const made = await api.newCompany(`Company ${tag}`);
    const contact = await api.request('POST', '/contacts', { key: made.key, body: { name: `Person of ${tag}`, phoneNumber: `+4917744${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}` } });
    expect(contact.status).to.equal(201);
    return { ...made, contactId: contact.body.data.id as string };
  };

  it('answers 202 with the waiting deletion, the same when asked again (recording nothing), and erases the company once the period has passed', async () => {
    const doomed = await company('doomed');
    const first = await admin('DELETE', `/admin/companies/${doomed.companyId}`);
    expect(first.status).to.equal(202);
    expect(first.headers.get('x-log-position')).to.be.a('string');
    const { deletionRequestedAt, eraseAfter } = first.body.data as { deletionRequestedAt: string; eraseAfter: string };
    expect(first.body.data).to.deep.equal({ id: doomed.companyId, deletionRequestedAt, eraseAfter });
    expect(Date.parse(eraseAfter) - Date.parse(deletionRequestedAt)).to.equal(2 * DAY_MS);
    time.advance(60_000);
    const again = await admin('DELETE', `/admin/companies/${doomed.companyId}`);
    expect(again.status).to.equal(202);
    expect(again.body.data).to.deep.equal(first.body.data);
    expect(again.headers.get('x-log-position')).to.equal(null);

    // Within the period the company is there, suspended: its key is refused.
    const waiting = await admin('GET', `/admin/companies/${doomed.companyId}`);
    expect([waiting.status, waiting.body.data.status, waiting.body.data.suspensionReason, waiting.body.data.eraseAfter]).to.deep.equal([
      200,
      'suspended',
      'Deletion requested',
      eraseAfter,
    ]);
    const refused = await api.request('GET', `/contacts/${doomed.contactId}`, { key: doomed.key });
    expect([refused.status, refused.body.error]).to.deep.equal([403, 'Company suspended']);
    time.advance(DAY_MS);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await admin('GET', `/admin/companies/${doomed.companyId}`)).status, 'erased before its time').to.equal(200);

    time.advance(DAY_MS);
    expect(await within(10_000, async () => (await admin('GET', `/admin/companies/${doomed.companyId}`)).status === 404)).to.equal(true);
    expect((await api.request('GET', `/contacts/${doomed.contactId}`, { key: doomed.key })).status).to.equal(401);
    const listed = await admin('GET', '/admin/companies?limit=100');
    expect((listed.body.data as { id: string }[]).map((c) => c.id)).not.to.include(doomed.companyId);
    expect((await admin('DELETE', `/admin/companies/${doomed.companyId}`)).status).to.equal(404);
    // The company's stream: who asked (source admin), then the erasure (source system), its counts.
    const events = await api.chronicle.stores.eventStore.readStream(`company-${doomed.companyId}`);
    expect(events.map((event) => [event.type, event.metadata.source])).to.deep.equal([
      ['CompanyCreated', 'cli'],
      ['CompanySuspended', 'admin'],
      ['CompanyDeletionRequested', 'admin'],
      ['CompanyErasureStarted', 'system'],
      ['CompanyErased', 'system'],
    ]);
    expect(events[4]!.data).to.include({ companyId: doomed.companyId, contacts: 1, users: 0, apiKeys: 1 });
  });

  it('erases nothing of a company whose deletion a resume cancelled, nor of another company', async () => {
    const spared = await company('spared');
    const bystander = await company('bystander');
    expect((await admin('DELETE', `/admin/companies/${spared.companyId}`)).status).to.equal(202);
    const resumed = await api.request('POST', `/admin/companies/${spared.companyId}/resume`, { key: adminToken, body: {} });
    expect([resumed.status, resumed.body.data?.status, resumed.body.data?.eraseAfter], JSON.stringify(resumed.body)).to.deep.equal([200, 'active', null]);
    const events = await api.chronicle.stores.eventStore.readStream(`company-${spared.companyId}`);
    expect(events.map((event) => event.type).slice(-2)).to.deep.equal(['CompanyResumed', 'CompanyDeletionCancelled']);
    time.advance(3 * DAY_MS);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    for (const kept of [spared, bystander]) {
      expect((await admin('GET', `/admin/companies/${kept.companyId}`)).status).to.equal(200);
      const contact = await api.request('GET', `/contacts/${kept.contactId}`, { key: kept.key });
      expect(contact.status).to.equal(200);
      expect(contact.body.data.name).to.match(/^Person of /);
    }
  });

  it('answers 404 for an unknown company, 422 for a malformed now, 401 without an admin token', async () => {
    const unknown = await admin('DELETE', '/admin/companies/00000000-0000-4000-8000-000000000000');
    expect([unknown.status, unknown.body.error]).to.deep.equal([404, 'Company not found']);
    const target = await company('target');
    const malformed = await admin('DELETE', `/admin/companies/${target.companyId}?now=yes`);
    expect([malformed.status, malformed.body.error]).to.deep.equal([422, 'Validation failed']);
    expect((await api.request('DELETE', `/admin/companies/${target.companyId}`, { key: target.key })).status).to.equal(401);
    expect((await admin('GET', `/admin/companies/${target.companyId}`)).status).to.equal(200);
  });
});

describe('A waiting deletion survives a restart: the sweep of the next start erases the company', function () {
  this.timeout(60_000);

  it('erases, after a restart, a company whose deletion the process before recorded, once its period is over', async () => {
    const dir = tempDir();
    const time = clockAhead();
    const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', DELETED_COMPANIES_RETENTION_DAYS: '1', DELETED_RECORDS_SWEEP_SECONDS: '1' });
    const start = () => startChronicle(config, createLogger('silent', new PassThrough()), undefined, { clock: time });
    try {
      const first = await start();
      let companyId: string;
      try {
        const commands = { eventStore: first.stores.eventStore, newId, clock: time };
        const made = await createCompany(commands, { name: valid(CompanyName, 'Restarted Ltd'), metadata: { source: 'cli', correlationId: newId() } });
        if (E.isLeft(made)) throw new Error('no company');
        companyId = made.right.id;
        const requested = await requestCompanyDeletion(commands, { companyId, retentionMs: DAY_MS, metadata: { source: 'cli', correlationId: newId() } });
        expect(E.isRight(requested)).to.equal(true);
      } finally {
        await first.close();
      }
      time.advance(DAY_MS + 60_000);
      const second = await start();
      try {
        const types = async () => (await second.stores.eventStore.readStream(`company-${companyId}`)).map((event) => event.type);
        expect(await within(15_000, async () => (await types()).includes('CompanyErased'))).to.equal(true);
        expect(await types()).to.deep.equal(['CompanyCreated', 'CompanySuspended', 'CompanyDeletionRequested', 'CompanyErasureStarted', 'CompanyErased']);
      } finally {
        await second.close();
      }
    } finally {
      dir.dispose();
    }
  });
});
