import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { companyStream } from '../../../../src/features/companies/domain/companyEvents.js';
import { KEY_REUSE_MS } from '../../../../src/application/credentials/freshCredentialVerifier.js';
import { clockAhead } from '../../../support/clocks.js';
import { consoleGet, consolePost, sessionCookieOf } from '../../../support/consoleClient.js';
import { startHarness, type ApiResponse, type Harness } from '../../../support/httpHarness.js';

const tokenOf = (url: string): string => new URL(url).searchParams.get('token') ?? '';

/**
 * POST /admin/companies/:id/suspend and /resume: what a suspension stops (the
 * company's API keys and polling triggers, 403 `Company suspended`; its console
 * sessions and links) and what a resumption gives back; what the log records
 * (who acted, why); the refusals (404, 422); both idempotent (200, nothing recorded).
 */
describe('HTTP admin API: suspending and resuming a company', function () {
  this.timeout(30_000);
  let api: Harness;
  let token: string;
  let tokenId: string;
  // The server's time, put ahead past the time a key found active is answered from memory.
  const time = clockAhead();
  before(async () => {
    api = await startHarness({}, undefined, { clock: time });
    ({ token, tokenId } = await api.issueAdminToken());
  });
  after(() => api.close());

  const admin = (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
    api.request(method, path, { key: token, ...(body === undefined ? {} : { body }) });
  const customer = (key: string, path = '/test'): Promise<ApiResponse> => api.request('GET', path, { key });
  const signIn = async (companyId: string): Promise<string> => {
    const issued = await admin('POST', `/admin/companies/${companyId}/console-sessions`, {});
    expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
    const cookie = sessionCookieOf(await consolePost(api.baseUrl, '/console/login', { token: tokenOf(issued.body.data.url as string) }));
    expect(cookie).to.be.a('string');
    expect((await consoleGet(api.baseUrl, '/console', cookie!)).status).to.equal(200);
    return cookie!;
  };
  const stream = async (companyId: string) => api.chronicle.stores.eventStore.readStream(companyStream(companyId));

  it('suspends: 200 with the company suspended, its keys and triggers refused with 403 `Company suspended`, its console signed out; another company untouched', async () => {
    const { companyId, key } = await api.newCompany('Suspended Ltd');
    const other = await api.newCompany('Bystander Ltd');
    const cookie = await signIn(companyId);
    expect((await customer(key)).status).to.equal(200);

    const res = await admin('POST', `/admin/companies/${companyId}/suspend`, { reason: '  Unpaid invoices since March  ' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.deep.include({ id: companyId, name: 'Suspended Ltd', status: 'suspended', suspensionReason: 'Unpaid invoices since March' });
    expect(Number.isNaN(Date.parse(res.body.data.suspendedAt as string)), 'suspendedAt is a time').to.equal(false);
    expect(res.headers.get('X-Log-Position')).to.match(/^\d+$/);
    expect((await admin('GET', `/admin/companies/${companyId}`)).body.data).to.deep.equal(res.body.data);

    time.advance(KEY_REUSE_MS);
    for (const path of ['/test', '/contacts', '/triggers/contact.created/recent']) {
      const refused = await customer(key, path);
      expect(refused.status, path).to.equal(403);
      expect(Object.keys(refused.body).sort(), path).to.deep.equal(['code', 'error', 'message', 'success', 'timestamp']);
      expect(refused.body).to.include({ success: false, error: 'Company suspended', code: 'COMPANY_SUSPENDED' });
    }
    expect((await customer(other.key)).status, 'another company\'s key').to.equal(200);

    const signedOut = await consoleGet(api.baseUrl, '/console', cookie);
    expect(signedOut.status).to.equal(401);
    expect(signedOut.text).to.include('You are signed out');
    const link = await admin('POST', `/admin/companies/${companyId}/console-sessions`, {});
    expect([link.status, link.body.error]).to.deep.equal([409, 'Company suspended']);
    expect(link.body.success).to.equal(false);

    const [, suspended] = await stream(companyId);
    expect(suspended?.type).to.equal('CompanySuspended');
    expect(suspended?.data).to.deep.include({ companyId, reason: 'Unpaid invoices since March', by: { kind: 'admin', adminTokenId: tokenId } });
    expect(suspended?.metadata).to.include({ source: 'admin', adminTokenId: tokenId, companyId });
    expect(JSON.stringify(suspended), 'never the admin token').not.to.contain(token);
  });

  it('is idempotent: suspending a suspended company answers its suspension as it is and records nothing; resuming an active one too', async () => {
    const { companyId } = await api.newCompany('Twice Ltd');
    const first = await admin('POST', `/admin/companies/${companyId}/suspend`, { reason: 'First reason' });
    const again = await admin('POST', `/admin/companies/${companyId}/suspend`, { reason: 'Second reason' });
    expect(again.status).to.equal(200);
    expect(again.body.data).to.deep.equal(first.body.data);
    expect(again.headers.get('X-Log-Position')).to.equal(null);
    expect((await stream(companyId)).map((e) => e.type)).to.deep.equal(['CompanyCreated', 'CompanySuspended']);

    const resumed = await admin('POST', `/admin/companies/${companyId}/resume`, {});
    expect(resumed.headers.get('X-Log-Position')).to.match(/^\d+$/);
    const resumedAgain = await admin('POST', `/admin/companies/${companyId}/resume`, {});
    expect(resumedAgain.status).to.equal(200);
    expect(resumedAgain.body.data).to.deep.equal(resumed.body.data);
    expect(resumedAgain.headers.get('X-Log-Position')).to.equal(null);
    expect((await stream(companyId)).map((e) => e.type)).to.deep.equal(['CompanyCreated', 'CompanySuspended', 'CompanyResumed']);
  });

  it('resumes: 200 with the company active, its keys accepted, console links issued again', async () => {
    const { companyId, key } = await api.newCompany('Resumed Ltd');
    await admin('POST', `/admin/companies/${companyId}/suspend`, { reason: 'Checking' });
    time.advance(KEY_REUSE_MS);
    expect((await customer(key)).status).to.equal(403);

    const res = await admin('POST', `/admin/companies/${companyId}/resume`, {});
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.deep.include({ id: companyId, status: 'active', suspendedAt: null, suspensionReason: null });
    expect((await customer(key)).status).to.equal(200);
    await signIn(companyId);
    const [, , resumed] = await stream(companyId);
    expect(resumed?.data).to.deep.include({ companyId, by: { kind: 'admin', adminTokenId: tokenId } });
  });

  it('answers 404 for an unknown company, and 422 in the spec\'s body for a missing or invalid reason, recording nothing', async () => {
    for (const path of [`/admin/companies/${randomUUID()}/suspend`, `/admin/companies/${randomUUID()}/resume`]) {
      const res = await admin('POST', path, { reason: 'x' });
      expect([res.status, res.body.error], path).to.deep.equal([404, 'Company not found']);
    }
    const { companyId } = await api.newCompany('Refusals Ltd');
    const path = `/admin/companies/${companyId}/suspend`;
    const missing = await admin('POST', path, {});
    expect([missing.status, missing.body.error, missing.body.details]).to.deep.equal([422, 'Missing required fields', { missingFields: ['reason'] }]);
    const nullReason = await admin('POST', path, { reason: null });
    expect([nullReason.status, nullReason.body.error]).to.deep.equal([422, 'Missing required fields']);
    for (const reason of ['   ', 'x'.repeat(501), 42, ['a']]) {
      const res = await admin('POST', path, { reason });
      expect([res.status, res.body.error, Object.keys(res.body.details)], JSON.stringify(reason).slice(0, 20)).to.deep.equal([422, 'Validation failed', ['reason']]);
    }
    const notAnObject = await admin('POST', path, ['reason']);
    expect(notAnObject.status).to.equal(422);
    expect((await admin('POST', path, { reason: 'x'.repeat(500) })).status, 'the longest reason').to.equal(200);
    expect((await stream(companyId)).map((e) => e.type)).to.deep.equal(['CompanyCreated', 'CompanySuspended']);
  });

  it('is refused to a customer API key (the admin token\'s 401)', async () => {
    const res = await api.request('POST', `/admin/companies/${api.companyId}/suspend`, { key: api.key, body: { reason: 'x' } });
    expect(res.status).to.equal(401);
    expect((await admin('GET', `/admin/companies/${api.companyId}`)).body.data.status).to.equal('active');
  });
});
