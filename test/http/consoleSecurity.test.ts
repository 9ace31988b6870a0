import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { issueConsoleLink } from '../../src/features/console/application/issueConsoleLink.js';
import { CONSOLE_JS } from '../../src/console/assets/consoleScript.js';
import { systemClock } from '../../src/shared/Clock.js';
import { newId } from '../../src/shared/ids.js';
import { consoleGet, consolePost, csrfOf, issueLink, openConsole, sessionCookieOf, type ConsoleSession } from '../support/consoleClient.js';
import { startHarness, type Harness } from '../support/httpHarness.js';
import { valueOf } from '../support/prometheusText.js';

/** The first `<h1>` of a page. */
const titleOf = (text: string): string => /<h1[^>]*>([^<]*)</.exec(text)?.[1] ?? '';

/** The company name in a signed-in page's header. */
const companyOf = (text: string): string | undefined => /class="company"[^>]*>([^<]*)</.exec(text)?.[1];

describe('HTTP: the console against an attacker (links, cross-site changes, ending sessions, origins)', function () {
  this.timeout(30_000);
  let api: Harness;
  let bravo: string;
  before(async () => {
    api = await startHarness();
    bravo = (await api.newCompany('Bravo')).companyId;
  });
  after(() => api.close());

  const eventStore = () => api.chronicle.stores.eventStore;
  const signedIn = (companyId: string): Promise<ConsoleSession> => openConsole(api.baseUrl, eventStore(), companyId);

  describe('a link never replaces a session by itself', () => {
    it('its page names the company it opens and waits for a click: no form is sent by the page or its script', async () => {
      const link = await issueLink(eventStore(), bravo);
      const page = await consoleGet(api.baseUrl, `/console/login?token=${link.token}`);
      expect(page.status).to.equal(200);
      expect(titleOf(page.text)).to.equal('Open Bravo’s console');
      expect(page.text).to.contain(bravo);
      expect(page.text).to.match(/<form method="post" action="\/console\/login">/);
      expect(page.text).to.match(/<button type="submit">Open Bravo’s console<\/button>/);
      expect(page.text).not.to.contain('data-autosubmit');
      expect(page.text).not.to.contain('data-other-session');
      // The console's only script submits nothing by itself.
      expect(CONSOLE_JS).not.to.match(/\.submit\(\)|requestSubmit/);
      // A GET alone used nothing up.
      expect((await consolePost(api.baseUrl, '/console/login', { token: link.token })).status).to.equal(303);
    });

    it("says so when the browser holds another company's session, and only the click replaces it (the old one ends)", async () => {
      const alpha = await signedIn(api.companyId);
      const link = await issueLink(eventStore(), bravo);
      const page = await consoleGet(api.baseUrl, `/console/login?token=${link.token}`, alpha.cookie);
      expect(page.text).to.match(/data-other-session>This browser is signed in to <strong>Demo company<\/strong>’s console\. Opening this link signs it out of that console and into Bravo’s/);
      // Showing the page changed nothing: the session is still Alpha's.
      expect(companyOf((await alpha.get('/console')).text)).to.equal('Demo company');
      const opened = await consolePost(api.baseUrl, '/console/login', { token: link.token }, alpha.cookie);
      expect(opened.status).to.equal(303);
      const bravoCookie = sessionCookieOf(opened)!;
      expect(companyOf((await consoleGet(api.baseUrl, '/console', bravoCookie)).text)).to.equal('Bravo');
      // The replaced session ended on the server too.
      expect((await alpha.get('/console')).status).to.equal(401);
    });

    it("says so when the browser is already in that company's console", async () => {
      const alpha = await signedIn(api.companyId);
      const link = await issueLink(eventStore(), api.companyId);
      const page = await consoleGet(api.baseUrl, `/console/login?token=${link.token}`, alpha.cookie);
      expect(page.text).to.contain('This browser is already signed in to Demo company’s console.');
    });
  });

  describe('a change from another site without the CSRF token changes nothing, neither the server nor the cookie', () => {
    const crossSite = { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' };

    it('sign-out, key revocation and key creation, sent cross-site without the session cookie (SameSite=Lax): 403, no Set-Cookie', async () => {
      const alpha = await signedIn(api.companyId);
      const { keyId, key } = await api.issueKey(api.companyId, ['contacts:read']);
      for (const [path, fields] of [
        ['/console/logout', {}],
        [`/console/keys/${keyId}/revoke`, { confirmed: 'yes' }],
        ['/console/keys', { name: 'Planted', type: 'generic', permissions: 'contacts:read' }],
      ] as const) {
        const posted = await consolePost(api.baseUrl, path, fields, undefined, crossSite);
        expect([posted.status, titleOf(posted.text)], path).to.deep.equal([403, 'This change was refused']);
        expect(posted.headers.getSetCookie(), path).to.deep.equal([]);
      }
      expect((await alpha.get('/console')).status).to.equal(200);
      expect((await api.request('GET', '/contacts', { key })).status).to.equal(200);
      expect((await alpha.get('/console/keys')).text).not.to.contain('Planted');
    });

    it('the same, when the browser does send the cookie (a framed console, SameSite=None): 403, the session and its cookie kept', async () => {
      const alpha = await signedIn(api.companyId);
      const posted = await consolePost(api.baseUrl, '/console/logout', {}, alpha.cookie, crossSite);
      expect(posted.status).to.equal(403);
      expect(posted.headers.getSetCookie()).to.deep.equal([]);
      expect((await alpha.get('/console')).status).to.equal(200);
    });

    it('a change of this origin with a dead session gets the 401 page without touching the cookie; a page clears it', async () => {
      const alpha = await signedIn(api.companyId);
      await alpha.post('/console/logout');
      const posted = await alpha.post('/console/keys', { name: 'Late', type: 'generic', permissions: 'contacts:read' });
      expect(posted.status).to.equal(401);
      expect(posted.headers.getSetCookie()).to.deep.equal([]);
      const page = await alpha.get('/console');
      expect(page.status).to.equal(401);
      expect(page.headers.getSetCookie()[0]).to.match(/^chronicle_console=; .*Max-Age=0/);
    });
  });

  describe('ending sessions', () => {
    it("DELETE /admin/companies/:id/console-sessions ends every session of the company at once, and no other company's", async () => {
      const { token } = await api.issueAdminToken('offboarding');
      // Sessions other tests opened go first.
      expect((await api.request('DELETE', `/admin/companies/${bravo}/console-sessions`, { key: token })).status).to.equal(200);
      const [first, second] = [await signedIn(bravo), await signedIn(bravo)];
      const other = await signedIn(api.companyId);
      const ended = await api.request('DELETE', `/admin/companies/${bravo}/console-sessions`, { key: token });
      expect(ended.status).to.equal(200);
      expect(ended.body.data).to.deep.equal({ companyId: bravo, ended: 2 });
      for (const session of [first, second]) {
        expect((await session.get('/console')).status).to.equal(401);
        expect((await session.post('/console/keys', { name: 'After', type: 'generic', permissions: 'contacts:read' })).status).to.equal(401);
      }
      expect((await other.get('/console')).status).to.equal(200);
      const again = await api.request('DELETE', `/admin/companies/${bravo}/console-sessions`, { key: token });
      expect(again.body.data).to.deep.equal({ companyId: bravo, ended: 0 });
      const unknown = await api.request('DELETE', `/admin/companies/${newId()}/console-sessions`, { key: token });
      expect([unknown.status, unknown.body.error]).to.deep.equal([404, 'Company not found']);
    });

    it('offboarding: once every key is revoked and the sessions are ended, the console can mint no key', async () => {
      const { token } = await api.issueAdminToken('offboarding');
      const session = await signedIn(bravo);
      const keys = await api.request('GET', `/admin/companies/${bravo}/keys`, { key: token });
      for (const key of keys.body.data as { id: string; revokedAt: string | null }[]) {
        if (key.revokedAt === null) expect((await api.request('DELETE', `/admin/companies/${bravo}/keys/${key.id}`, { key: token })).status).to.equal(200);
      }
      expect((await api.request('DELETE', `/admin/companies/${bravo}/console-sessions`, { key: token })).status).to.equal(200);
      const minted = await session.post('/console/keys', { name: 'Backdoor', type: 'generic', permissions: 'contacts:read' });
      expect(minted.status).to.equal(401);
      expect(minted.text).not.to.contain('chr_');
    });

    it('revoking an admin token ends the sessions its links opened, and only those', async () => {
      const platform = await api.issueAdminToken('platform backend');
      const asked = await api.request('POST', `/admin/companies/${bravo}/console-sessions`, { key: platform.token, body: {} });
      const url = new URL((asked.body.data as { url: string }).url);
      const opened = await consolePost(api.baseUrl, '/console/login', { token: url.searchParams.get('token')! });
      const viaToken = sessionCookieOf(opened)!;
      const viaCli = await signedIn(bravo);
      await api.revokeAdminToken(platform.tokenId);
      expect((await consoleGet(api.baseUrl, '/console', viaToken)).status).to.equal(401);
      expect((await viaCli.get('/console')).status).to.equal(200);
    });

    it('a link records the admin token that asked for it, and its session carries it', async () => {
      const platform = await api.issueAdminToken('platform backend');
      const issued = await issueConsoleLink(
        { eventStore: eventStore(), newId, clock: systemClock },
        { companyId: bravo, metadata: { source: 'admin', correlationId: newId(), adminTokenId: platform.tokenId } },
      );
      if (E.isLeft(issued)) throw new Error(issued.left.kind);
      const opened = await consolePost(api.baseUrl, '/console/login', { token: issued.right.token });
      const cookie = sessionCookieOf(opened)!;
      const sessionId = cookie.split('=')[1]!.split('.')[0]!;
      expect(await api.chronicle.stores.consoleSessions.endAll({ adminTokenId: platform.tokenId })).to.equal(1);
      expect((await consoleGet(api.baseUrl, '/console', cookie)).status, sessionId).to.equal(401);
    });
  });
});

describe('HTTP: the console behind a proxy, with CONSOLE_PUBLIC_URL', function () {
  this.timeout(20_000);
  let api: Harness;
  before(async () => (api = await startHarness({ CONSOLE_PUBLIC_URL: 'https://console.example.com', TRUST_PROXY: 'true' })));
  after(() => api.close());

  it("compares a change's Origin with CONSOLE_PUBLIC_URL's origin, whatever Host the server sees", async () => {
    const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
    // The proxy passed its upstream's name as the Host: the Origin is still the public one.
    const signedIn = await consolePost(api.baseUrl, '/console/login', { token: link.token }, undefined, {
      Origin: 'https://console.example.com',
      'Sec-Fetch-Site': 'same-origin',
    });
    expect(signedIn.status).to.equal(303);
    const cookie = sessionCookieOf(signedIn)!;
    const csrf = csrfOf(await consoleGet(api.baseUrl, '/console/keys', cookie));
    const fields = { _csrf: csrf, name: 'Behind a proxy', type: 'generic', permissions: 'contacts:read' };
    const made = await consolePost(api.baseUrl, '/console/keys', fields, cookie, { Origin: 'https://console.example.com' });
    expect(made.status).to.equal(201);
    expect(titleOf(made.text)).to.equal('API key created');
    for (const origin of ['http://console.example.com', 'https://console.example.com:8443', 'https://evil.example', new URL(api.baseUrl).origin]) {
      const refused = await consolePost(api.baseUrl, '/console/keys', fields, cookie, { Origin: origin });
      expect(refused.status, origin).to.equal(403);
    }
  });
});

describe('HTTP: failed credentials counted per client address (FAILED_CREDENTIALS_LIMIT)', function () {
  this.timeout(30_000);
  const LIMIT = 5;
  let api: Harness;
  beforeEach(async () => (api = await startHarness({ FAILED_CREDENTIALS_LIMIT: String(LIMIT), FAILED_CREDENTIALS_WINDOW_SECONDS: '600' })));
  afterEach(() => api.close());

  const unknownKey = 'chr_' + 'A'.repeat(43);

  const metric = async (kind: string, throttled: boolean): Promise<number | undefined> => {
    const text = await (await fetch(`${api.baseUrl}/metrics`)).text();
    return valueOf(text, `chronicle_failed_credentials_total{kind="${kind}",throttled="${throttled}"}`);
  };

  it('refused API keys: 401 up to the limit, then 429 with Retry-After and the rate-limit body; a valid key is never refused', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await api.request('GET', '/contacts', { key: i % 2 ? unknownKey : 'garbage' })).status).to.equal(401);
    const refused = await api.request('GET', '/contacts', { key: unknownKey });
    expect(refused.status).to.equal(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 600);
    expect(refused.body).to.deep.include({
      success: false,
      error: 'Rate limit exceeded',
      code: 'TOO_MANY_FAILED_CREDENTIALS',
      retryAfter,
      limits: { failedCredentials: LIMIT, windowSeconds: 600 },
    });
    // The valid key from the same address: answered as ever, with its own rate-limit headers.
    const valid = await api.request('GET', '/contacts');
    expect(valid.status).to.equal(200);
    expect(valid.headers.get('x-ratelimit-hourly-limit')).to.equal('1000');
    expect(await metric('api_key', false)).to.equal(LIMIT);
    expect(await metric('api_key', true)).to.equal(1);
  });

  it('admin tokens, console links and session cookies count into the same limit, each answered 429 past it', async () => {
    const { token } = await api.issueAdminToken();
    expect((await api.request('GET', '/admin/companies', { key: 'chradm_' + 'B'.repeat(43) })).status).to.equal(401);
    expect((await consoleGet(api.baseUrl, '/console/login?token=nonsense')).status).to.equal(404);
    expect((await consolePost(api.baseUrl, '/console/login', { token: `${newId()}.${'C'.repeat(43)}` })).status).to.equal(404);
    expect((await consoleGet(api.baseUrl, '/console', `chronicle_console=${newId()}.${'D'.repeat(43)}`)).status).to.equal(401);
    // No cookie at all is a browser that never signed in: not counted.
    expect((await consoleGet(api.baseUrl, '/console')).status).to.equal(401);
    expect((await api.request('GET', '/contacts', { key: unknownKey })).status).to.equal(401);

    const admin = await api.request('GET', '/admin/companies', { key: 'chradm_' + 'B'.repeat(43) });
    expect([admin.status, admin.body.code]).to.deep.equal([429, 'TOO_MANY_FAILED_CREDENTIALS']);
    const link = await consoleGet(api.baseUrl, '/console/login?token=nonsense');
    expect([link.status, titleOf(link.text)]).to.deep.equal([429, 'Too many failed attempts']);
    expect(Number(link.headers.get('retry-after'))).to.be.within(1, 600);
    const cookie = await consoleGet(api.baseUrl, '/console', `chronicle_console=${newId()}.${'D'.repeat(43)}`);
    expect([cookie.status, titleOf(cookie.text)]).to.deep.equal([429, 'Too many failed attempts']);

    // Valid credentials of every kind still pass.
    expect((await api.request('GET', '/admin/companies', { key: token })).status).to.equal(200);
    const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
    expect((await session.get('/console')).status).to.equal(200);
    expect(await metric('admin_token', true)).to.equal(1);
    expect(await metric('console_link', false)).to.equal(2);
    expect(await metric('console_session', true)).to.equal(1);
  });

  it('another address is not held back by this one (TRUST_PROXY: the proxy names the client)', async () => {
    await api.close();
    api = await startHarness({ FAILED_CREDENTIALS_LIMIT: String(LIMIT), TRUST_PROXY: 'true' });
    const from = (address: string) => ({ key: unknownKey, headers: { 'X-Forwarded-For': address } });
    for (let i = 0; i < LIMIT; i++) expect((await api.request('GET', '/contacts', from('203.0.113.7'))).status).to.equal(401);
    expect((await api.request('GET', '/contacts', from('203.0.113.7'))).status).to.equal(429);
    expect((await api.request('GET', '/contacts', from('198.51.100.9'))).status).to.equal(401);
  });
});
