import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { consoleLinkStream } from '../../../../src/features/console/domain/consoleLinkEvents.js';
import { consoleGet, consolePost, sessionCookieOf } from '../../../support/consoleClient.js';
import { startHarness, type ApiResponse, type Harness } from '../../../support/httpHarness.js';

const tokenOf = (url: string): string => new URL(url).searchParams.get('token') ?? '';

/**
 * POST /admin/companies/:id/console-sessions: the platform asks for a link into
 * its customer's console and hands it over; the link signs in once.
 */
describe('HTTP admin API: links into the customer console', function () {
  this.timeout(30_000);

  describe('without CONSOLE_PUBLIC_URL', () => {
    let api: Harness;
    let token: string;
    let tokenId: string;
    let companyId: string;
    before(async () => {
      api = await startHarness();
      ({ token, tokenId } = await api.issueAdminToken());
      companyId = (await admin('POST', '/admin/companies', { name: 'Consoled' })).body.data.id;
    });
    after(() => api.close());

    const admin = (method: string, path: string, body?: unknown, key = token): Promise<ApiResponse> =>
      api.request(method, path, { key, ...(body === undefined ? {} : { body }) });

    it('answers 201 with a link to this server and when it expires (at most 15 minutes on); the link signs in once', async () => {
      const before = Date.now();
      const issued = await admin('POST', `/admin/companies/${companyId}/console-sessions`, {});
      const after = Date.now();
      expect(issued.status, JSON.stringify(issued.body)).to.equal(201);
      expect(Object.keys(issued.body.data)).to.deep.equal(['url', 'expiresAt']);
      const { url, expiresAt } = issued.body.data as { url: string; expiresAt: string };
      expect(url.startsWith(`${api.baseUrl}/console/login?token=`), url).to.equal(true);
      // Issued between `before` and `after`: at most 15 minutes on from then.
      expect(Date.parse(expiresAt)).to.be.within(before + 14 * 60_000, after + 15 * 60_000);
      expect(issued.headers.get('X-Log-Position')).to.match(/^\d+$/);

      const signedIn = await consolePost(api.baseUrl, '/console/login', { token: tokenOf(url) });
      expect(signedIn.status).to.equal(303);
      const cookie = sessionCookieOf(signedIn);
      expect(cookie).to.be.a('string');
      const overview = await consoleGet(api.baseUrl, '/console', cookie!);
      expect(overview.status).to.equal(200);
      expect(overview.text).to.include('Consoled');
      const again = await consolePost(api.baseUrl, '/console/login', { token: tokenOf(url) });
      expect([again.status, sessionCookieOf(again)]).to.deep.equal([410, null]);
    });

    it('issues a new link at each call, records it with source admin and the admin token id, never the link', async () => {
      const first = (await admin('POST', `/admin/companies/${companyId}/console-sessions`, {})).body.data.url as string;
      const second = (await admin('POST', `/admin/companies/${companyId}/console-sessions`, {})).body.data.url as string;
      expect(first).to.not.equal(second);
      const linkId = tokenOf(second).split('.')[0]!;
      const [issued] = await api.chronicle.stores.eventStore.readStream(consoleLinkStream(linkId));
      expect(issued?.type).to.equal('ConsoleLinkIssued');
      expect(issued?.metadata).to.include({ source: 'admin', adminTokenId: tokenId, companyId });
      expect(JSON.stringify(issued)).to.not.include(tokenOf(second).split('.')[1]!);
      expect(api.logs()).to.not.include(tokenOf(second));
    });

    it('answers a replay of an Idempotency-Key with the same expiry and no link (shown once), and issues no other', async () => {
      const headers = { 'Idempotency-Key': randomUUID() };
      const path = `/admin/companies/${companyId}/console-sessions`;
      const first = await api.request('POST', path, { key: token, body: {}, headers });
      const replay = await api.request('POST', path, { key: token, body: {}, headers });
      expect(first.status).to.equal(201);
      expect(first.body.data.url).to.be.a('string');
      expect([replay.status, replay.headers.get('Idempotent-Replayed')]).to.deep.equal([201, 'true']);
      expect(replay.body.data).to.deep.equal({ url: null, expiresAt: first.body.data.expiresAt });
      expect(replay.headers.get('X-Log-Position')).to.equal(first.headers.get('X-Log-Position'));
    });

    it('answers 404 Company not found for an unknown company, and 401 to a customer API key', async () => {
      const unknown = await admin('POST', `/admin/companies/${randomUUID()}/console-sessions`, {});
      expect([unknown.status, unknown.body.success, unknown.body.error]).to.deep.equal([404, false, 'Company not found']);
      const notAnObject = await admin('POST', `/admin/companies/${companyId}/console-sessions`, [1]);
      expect([notAnObject.status, notAnObject.body.details]).to.deep.equal([422, { '(body)': 'must be a JSON object' }]);
      const customer = await admin('POST', `/admin/companies/${companyId}/console-sessions`, {}, api.key);
      expect([customer.status, customer.body.error]).to.deep.equal([401, 'Invalid admin token format']);
    });
  });

  it('points the link at CONSOLE_PUBLIC_URL under BASE_PATH when it is set', async () => {
    const api = await startHarness({ CONSOLE_PUBLIC_URL: 'https://console.example.com/', BASE_PATH: '/api/external' });
    try {
      const { token } = await api.issueAdminToken();
      const companyId = (await api.request('POST', '/admin/companies', { key: token, body: { name: 'Elsewhere' } })).body.data.id;
      const issued = await api.request('POST', `/admin/companies/${companyId}/console-sessions`, { key: token, body: {} });
      expect(issued.status).to.equal(201);
      expect((issued.body.data.url as string).startsWith('https://console.example.com/api/external/console/login?token=')).to.equal(true);
    } finally {
      await api.close();
    }
  });
});
