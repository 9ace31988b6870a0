import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { changeDeliveryStatus } from '../../src/features/webhooks/application/changeDeliveryStatus.js';
import { systemClock } from '../../src/shared/Clock.js';
import { newId } from '../../src/shared/ids.js';
import { apiKeyStream } from '../../src/features/apiKeys/domain/apiKeyEvents.js';
import { consoleLinkStream } from '../../src/features/console/domain/consoleLinkEvents.js';
import { KEY_REUSE_MS } from '../../src/features/apiKeys/readModels/freshApiKeyVerifier.js';
import { clockAhead, manualClock } from '../support/clocks.js';
import { startHarness, type Harness } from '../support/httpHarness.js';
import { consoleGet, consolePost, issueLink, openConsole, sessionCookieOf } from '../support/consoleClient.js';
import { startSignedReceiver } from '../support/signedReceiver.js';

const STRICT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; " +
  "base-uri 'none'; object-src 'none'; frame-ancestors 'none'";

/** The first `<h1>` of a page. */
const titleOf = (text: string): string => /<h1[^>]*>([^<]*)</.exec(text)?.[1] ?? '';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HTTP: the customer console (links, sessions, CSRF, headers)', function () {
  this.timeout(20_000);
  let api: Harness;
  // The server's time, put ahead by the tests that need time to pass.
  const time = clockAhead();
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, undefined, { clock: time })));
  after(() => api.close());

  describe('a link', () => {
    it('shows a page that opens it with a POST (never on the GET), with the strict CSP and no framing', async () => {
      const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
      const page = await consoleGet(api.baseUrl, `/console/login?token=${link.token}`);
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-security-policy')).to.equal(STRICT_CSP);
      expect(page.headers.get('x-frame-options')).to.equal('DENY');
      expect(page.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(page.headers.get('cache-control')).to.equal('no-store');
      expect(page.headers.getSetCookie()).to.deep.equal([]);
      expect(page.text).to.match(/<form method="post" action="\/console\/login">/);
      expect(page.text).not.to.match(/<script>|style="/);
      // The GET used nothing: the link still opens a session.
      const opened = await consolePost(api.baseUrl, '/console/login', { token: link.token });
      expect(opened.status).to.equal(303);
      expect(opened.headers.get('location')).to.equal('/console');
    });

    it('sets an HttpOnly, SameSite=Lax session cookie for the console only (not Secure over plain HTTP), once', async () => {
      const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
      const opened = await consolePost(api.baseUrl, '/console/login', { token: link.token });
      const [cookie] = opened.headers.getSetCookie();
      expect(cookie).to.match(/^chronicle_console=[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Lax; Expires=/);
      expect(cookie).not.to.contain('Secure');
      const again = await consolePost(api.baseUrl, '/console/login', { token: link.token });
      expect([again.status, titleOf(again.text), sessionCookieOf(again)]).to.deep.equal([410, 'This link was already used', null]);
      expect((await consoleGet(api.baseUrl, `/console/login?token=${link.token}`)).status).to.equal(410);
    });

    it('records its issue and its one use in the log, with the session it opened', async () => {
      const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
      await consolePost(api.baseUrl, '/console/login', { token: link.token });
      await consolePost(api.baseUrl, '/console/login', { token: link.token });
      const events = await api.chronicle.stores.eventStore.readStream(consoleLinkStream(link.linkId));
      expect(events.map((event) => [event.type, event.metadata.source])).to.deep.equal([
        ['ConsoleLinkIssued', 'cli'],
        ['ConsoleLinkRedeemed', 'console'],
      ]);
      expect(events[1]!.metadata.sessionId).to.equal((events[1]!.data as { sessionId: string }).sessionId);
      expect(JSON.stringify(events)).not.to.contain(link.token.split('.')[1]);
    });

    it('opens one session however many uses race for it', async () => {
      const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
      const uses = await Promise.all(Array.from({ length: 8 }, () => consolePost(api.baseUrl, '/console/login', { token: link.token })));
      expect(uses.map((use) => use.status).sort()).to.deep.equal([303, 410, 410, 410, 410, 410, 410, 410]);
    });

    it('shows a clear page and opens nothing when expired, mistyped or unknown', async () => {
      const link = await issueLink(api.chronicle.stores.eventStore, api.companyId, 50);
      await sleep(100);
      const expired = await consolePost(api.baseUrl, '/console/login', { token: link.token });
      expect([expired.status, titleOf(expired.text), sessionCookieOf(expired)]).to.deep.equal([410, 'This link has expired', null]);
      const [id, secret] = (await issueLink(api.chronicle.stores.eventStore, api.companyId)).token.split('.');
      for (const token of [`${id}.${'A'.repeat(43)}`, `${id}.${secret!.slice(1)}`, 'nonsense', '']) {
        const page = await consoleGet(api.baseUrl, `/console/login?token=${encodeURIComponent(token)}`);
        expect([page.status, titleOf(page.text)], token).to.deep.equal([404, 'This link is not valid']);
        expect(page.headers.get('content-security-policy')).to.equal(STRICT_CSP);
      }
    });

    it('is refused when posted from another site', async () => {
      const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
      const posted = await consolePost(api.baseUrl, '/console/login', { token: link.token }, undefined, { Origin: 'https://evil.example' });
      expect(posted.status).to.equal(403);
      expect((await consolePost(api.baseUrl, '/console/login', { token: link.token })).status).to.equal(303);
    });
  });

  describe('a session', () => {
    it('opens the pages of its company; without it they are a 401 page', async () => {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      for (const path of ['/console', '/console/keys', '/console/webhooks', '/console/activity']) {
        const page = await session.get(path);
        expect(page.status, path).to.equal(200);
        expect(page.text, path).to.contain('Demo company');
        expect(page.headers.get('content-security-policy')).to.equal(STRICT_CSP);
        const without = await consoleGet(api.baseUrl, path);
        expect([without.status, titleOf(without.text)], path).to.deep.equal([401, 'You are signed out']);
        // Back to the console would be this page again: it says where to go instead.
        expect(without.text, path).not.to.contain('Back to the console');
        expect(without.text, path).to.contain('platform’s dashboard');
      }
      expect((await consoleGet(api.baseUrl, '/console', 'chronicle_console=garbage')).status).to.equal(401);
    });

    it('refuses a change without the CSRF token, with a wrong one, or from another origin, and changes nothing', async () => {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const keysBefore = (await session.get('/console/keys')).text.match(/<tr>/g)?.length;
      const fields = { name: 'Probe', type: 'generic', permissions: 'contacts:read' };
      for (const [why, posted] of [
        ['no token', await session.post('/console/keys', fields, { withoutCsrf: true })],
        ['a wrong token', await session.post('/console/keys', { ...fields, _csrf: 'x'.repeat(43) })],
        ['another origin', await session.post('/console/keys', fields, { headers: { Origin: 'https://evil.example' } })],
        ['another site', await session.post('/console/keys', fields, { headers: { 'Sec-Fetch-Site': 'cross-site' } })],
      ] as const) {
        expect([posted.status, titleOf(posted.text)], why).to.deep.equal([403, 'This change was refused']);
        expect(posted.text, why).not.to.contain('chr_');
      }
      expect((await session.get('/console/keys')).text.match(/<tr>/g)?.length).to.equal(keysBefore);
      expect((await session.post('/console/keys', fields)).status).to.equal(201);
    });

    it("reaches its own company's data only: another company's key, subscription and contact are as unknown", async () => {
      const other = await api.newCompany('Other company');
      const otherKeyId = other.keyId;
      const contact = await api.request('POST', '/contacts', { key: other.key, body: { name: 'Ada', phoneNumber: '+15555550111' } });
      const receiver = await startSignedReceiver();
      try {
        const subscribed = await api.request('POST', '/webhooks/subscribe', { key: other.key, body: { event: 'contact.created', target_url: receiver.url } });
        const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
        const pages = await Promise.all([
          session.get(`/console/webhooks/${subscribed.body.data.id}`),
          session.get(`/console/contacts/${contact.body.data.id}`),
          session.post(`/console/keys/${otherKeyId}/revoke`, { confirmed: 'yes' }),
          session.post(`/console/webhooks/${subscribed.body.data.id}/unsubscribe`, { confirmed: 'yes' }),
          session.post(`/console/webhooks/${subscribed.body.data.id}/test`),
        ]);
        expect(pages.map((page) => page.status)).to.deep.equal([404, 404, 404, 404, 404]);
        for (const page of pages) expect(page.text).not.to.contain('Other company');
        expect((await api.request('GET', '/test', { key: other.key })).status).to.equal(200);
        expect((await api.request('GET', '/webhooks', { key: other.key })).body.data).to.have.length(1);
        const overview = (await session.get('/console')).text;
        expect(overview).not.to.contain(other.companyId);
      } finally {
        await receiver.close();
      }
    });

    it("shows a contact's deletion and restore in its history as such, not as every field unset", async () => {
      const contact = await api.request('POST', '/contacts', { body: { name: 'Grace Hopper', phoneNumber: '+15555550177', city: 'Arlington' } });
      const id = contact.body.data.id as string;
      expect((await api.request('DELETE', `/contacts/${id}`)).status).to.equal(200);
      expect((await api.request('POST', `/contacts/${id}/restore`, { body: {} })).status).to.equal(200);
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const page = await session.get(`/console/contacts/${id}`);
      expect(page.status).to.equal(200);
      const entries = page.text.split('<li>').slice(1);
      const entryOf = (type: string) => entries.find((entry) => entry.includes(`<h3>${type} `)) ?? '';
      // Events named as everywhere else in the console (and in webhooks), not by their stored type.
      expect(page.text).not.to.contain('ContactCreated');
      expect(entryOf('contact.deleted')).to.contain('The contact was deleted');
      expect(entryOf('contact.deleted')).not.to.contain('not set');
      expect(entryOf('contact.restored')).to.contain('The contact was restored as it was before its deletion.');
      expect(entryOf('contact.restored')).not.to.contain('<table');
      expect(entryOf('contact.created')).to.contain('<th scope="row">city</th>');
    });

    it("shows a contact's erasure as such, and none of its values anywhere in its history", async () => {
      const contact = await api.request('POST', '/contacts', { body: { name: 'Ida Forgotten', phoneNumber: '+15555550178', city: 'Erasmusburg' } });
      const id = contact.body.data.id as string;
      expect((await api.request('PUT', `/contacts/${id}`, { body: { city: 'Oblivia' } })).status).to.equal(200);
      const { key: eraser } = await api.issueKey(api.companyId, ['contacts:erase']);
      expect((await api.request('POST', `/contacts/${id}/erase`, { body: {}, key: eraser })).status).to.equal(200);
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const page = await session.get(`/console/contacts/${id}`);
      expect(page.status).to.equal(200);
      const entries = page.text.split('<li>').slice(1);
      expect(entries.find((entry) => entry.includes('<h3>contact.erased ')) ?? '').to.contain('The contact was erased, for good');
      for (const value of ['Ida Forgotten', 'Erasmusburg', 'Oblivia', '5555550178']) expect(page.text).not.to.contain(value);
      const asOf = await session.get(`/console/contacts/${id}?asOf=${encodeURIComponent(new Date().toISOString().slice(0, 16))}`);
      for (const value of ['Ida Forgotten', 'Erasmusburg', 'Oblivia']) expect(asOf.text).not.to.contain(value);
    });

    it('leaves the same events as the API, with source console and the session', async () => {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const unnamed = await session.post('/console/keys', { name: ' ', type: 'zapier', permissions: ['contacts:read'] });
      expect([unnamed.status, /id="name-problem">([^<]*)</.exec(unnamed.text)?.[1]]).to.deep.equal([422, 'Give the key a name.']);
      const created = await session.post('/console/keys', { name: 'Zapier production', type: 'zapier', permissions: ['contacts:read', 'deals:read'] });
      expect(created.status).to.equal(201);
      expect(created.text).to.contain('<dt>Name</dt><dd>Zapier production</dd>');
      const key = /<code id="new-key"[^>]*>(chr_[A-Za-z0-9]+)<\/code>/.exec(created.text)![1]!;
      const keyId = /<dt>Id<\/dt><dd><code>([0-9a-f-]+)<\/code>/.exec(created.text)![1]!;
      expect((await api.request('GET', '/test', { key })).body.data.permissions).to.deep.equal(['contacts:read', 'deals:read']);
      const listed = await session.get('/console/keys');
      expect(listed.text).to.contain(keyId);
      expect(listed.text).not.to.contain(key);
      expect(listed.text).to.contain('<th scope="row">Zapier production<br>');
      const asked = await session.post(`/console/keys/${keyId}/revoke`);
      expect([asked.status, titleOf(asked.text)]).to.deep.equal([200, 'Revoke the key Zapier production?']);
      expect((await api.request('GET', '/test', { key })).status).to.equal(200);
      const revoked = await session.post(`/console/keys/${keyId}/revoke`, { confirmed: 'yes' });
      expect([revoked.status, revoked.headers.get('location')]).to.deep.equal([303, '/console/keys?done=revoked']);
      // Refused once the read models applied it and a key found active is no longer answered from memory
      // (part of the API's revocation bound; how soon a revocation is refused: `npm run bench:timings`).
      expect(await api.chronicle.projections!.waitFor((await api.chronicle.stores.eventStore.headPosition())!, 5_000)).to.equal(true);
      time.advance(KEY_REUSE_MS);
      expect((await api.request('GET', '/test', { key })).status).to.equal(401);
      const events = await api.chronicle.stores.eventStore.readStream(apiKeyStream(keyId));
      expect(events.map((event) => [event.type, event.metadata.source, event.metadata.companyId])).to.deep.equal([
        ['ApiKeyIssued', 'console', api.companyId],
        ['ApiKeyRevoked', 'console', api.companyId],
      ]);
      expect(events.every((event) => typeof event.metadata.sessionId === 'string')).to.equal(true);
    });

    it('explains the key types under their select, tied to it for assistive technology', async () => {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const page = (await session.get('/console/keys')).text;
      expect(page).to.contain('<select id="key-type" name="type" aria-describedby="key-type-hint">');
      const hint = /<p class="hint" id="key-type-hint">([\s\S]*?)<\/p>/.exec(page)![1]!;
      for (const type of ['generic', 'custom', 'zapier', 'make']) expect(hint).to.contain(`<strong>${type}</strong>`);
      expect(hint).to.contain('grants nothing by itself');
    });

    it('shows contacts:erase as a checkbox of its own, outside "Select all", with a warning; "Select all" gives the seven without it', async () => {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const page = (await session.get('/console/keys')).text;
      const boxes = (text: string) => [...text.matchAll(/<input type="checkbox" name="permissions" value="([^"]+)"/g)].map((match) => match[1]);
      const group = /<div id="key-permissions">([\s\S]*?)<\/div>/.exec(page)![1]!;
      // "Select all" stands for the boxes of its group: the seven of the specification, and not contacts:erase.
      expect(page).to.contain('<input type="checkbox" name="permissions" value="all" data-select-all="key-permissions"> Select all</label>');
      expect(boxes(group)).to.deep.equal(['contacts:read', 'contacts:write', 'deals:read', 'deals:write', 'agents:read', 'webhooks:read', 'webhooks:write']);
      const erasure = /<fieldset>\s*<legend>Permanent erasure<\/legend>([\s\S]*?)<\/fieldset>/.exec(page)![1]!;
      expect(boxes(erasure)).to.deep.equal(['contacts:erase']);
      expect(erasure).to.contain('aria-describedby="key-erase-warning"');
      expect(/<p class="hint" id="key-erase-warning">([\s\S]*?)<\/p>/.exec(erasure)![1]).to.contain('erase a contact permanently').and.contain('“Select all” leaves it out');

      const created = async (permissions: readonly string[]) => {
        const res = await session.post('/console/keys', { name: 'Erasure test', type: 'generic', permissions });
        expect(res.status, res.text.slice(0, 300)).to.equal(201);
        const key = /<code id="new-key"[^>]*>(chr_[A-Za-z0-9]+)<\/code>/.exec(res.text)![1]!;
        return { shown: /<dt>Permissions<\/dt><dd>([^<]*)<\/dd>/.exec(res.text)![1], permissions: (await api.request('GET', '/test', { key })).body.data.permissions };
      };
      const seven = ['contacts:read', 'contacts:write', 'deals:read', 'deals:write', 'agents:read', 'webhooks:read', 'webhooks:write'];
      // Without the page's script, the ticked "Select all" is sent alone.
      expect(await created(['all'])).to.deep.equal({ shown: seven.join(', '), permissions: seven });
      expect(await created(['contacts:erase'])).to.deep.equal({ shown: 'contacts:erase', permissions: ['contacts:erase'] });
      expect((await created(['all', 'contacts:erase', 'deals:read'])).permissions).to.deep.equal([...seven, 'contacts:erase']);
      // Sent back with a problem: what was ticked stays ticked, "Select all" and contacts:erase included.
      const refused = await session.post('/console/keys', { name: '', type: 'generic', permissions: ['all', 'contacts:erase'] });
      expect(refused.status).to.equal(422);
      expect(refused.text).to.contain('value="all" data-select-all="key-permissions" checked>').and.contain('value="contacts:erase" aria-describedby="key-erase-warning" checked>');
      // Nothing but unknown values is no permission.
      const unknown = await session.post('/console/keys', { name: 'x', type: 'generic', permissions: ['contacts:delete'] });
      expect([unknown.status, /id="permissions-problem">([^<]*)</.exec(unknown.text)?.[1]]).to.deep.equal([422, 'Choose at least one permission.']);
    });

    it('ends at logout, everywhere', async () => {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const out = await session.post('/console/logout');
      expect([out.status, out.headers.get('location')]).to.deep.equal([303, '/console/signed-out']);
      expect(out.headers.getSetCookie()[0]).to.match(/^chronicle_console=; Path=\/console; HttpOnly; SameSite=Lax.*; Max-Age=0$/);
      expect((await session.get('/console')).status).to.equal(401);
    });

    it('never writes a session cookie or a link token to the logs', async () => {
      const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
      await consoleGet(api.baseUrl, `/console/login?token=${link.token}`);
      const opened = await consolePost(api.baseUrl, '/console/login', { token: link.token });
      const cookie = sessionCookieOf(opened)!;
      await consoleGet(api.baseUrl, '/console', cookie);
      await consolePost(api.baseUrl, '/console/keys', { name: 'Logged', type: 'generic' }, cookie);
      expect(api.logs()).to.contain('"path":"/console/login"');
      expect(api.logs()).not.to.contain(link.token.split('.')[1]);
      expect(api.logs()).not.to.contain(cookie.split('.')[1]);
    });

    it('sends a test event to a subscription, shown in its delivery log, and redelivers it', async () => {
      const receiver = await startSignedReceiver();
      try {
        const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
        const subscribed = await session.post('/console/webhooks', { event: 'deal.won', target_url: receiver.url, tags: '' });
        expect(subscribed.status).to.equal(201);
        const secret = /<code id="signing-secret"[^>]*>([^<]+)<\/code>/.exec(subscribed.text)![1]!;
        const id = /\/console\/webhooks\/([0-9a-f-]{36})"/.exec(subscribed.text)![1]!;
        const tested = await session.post(`/console/webhooks/${id}/test`);
        expect([tested.status, tested.headers.get('location')]).to.deep.equal([303, `/console/webhooks/${id}?done=test`]);
        const deadline = Date.now() + 5000;
        while (receiver.verifiedWith(secret).length === 0 && Date.now() < deadline) await sleep(20);
        const [envelope] = receiver.verifiedWith(secret) as { event: string; metadata: { test: boolean; source: string; eventId: string } }[];
        expect([envelope?.event, envelope?.metadata.test, envelope?.metadata.source]).to.deep.equal(['deal.won', true, 'console']);
        let log = await session.get(`/console/webhooks/${id}`);
        while (!log.text.includes('state-delivered') && Date.now() < deadline) log = await session.get(`/console/webhooks/${id}`);
        expect(log.text).to.contain(envelope!.metadata.eventId);
        const again = await session.post(`/console/webhooks/${id}/redeliver`, { eventId: envelope!.metadata.eventId });
        expect(again.headers.get('location')).to.equal(`/console/webhooks/${id}?done=requeued-1`);
        while (receiver.received.length < 2 && Date.now() < deadline) await sleep(20);
        expect(receiver.verifiedWith(secret).map((e) => (e as typeof envelope)!.metadata.eventId)).to.deep.equal([
          envelope!.metadata.eventId,
          envelope!.metadata.eventId,
        ]);
      } finally {
        await receiver.close();
      }
    });

    it("shows the company's requests and 429s of this hour once counted", async () => {
      const { key } = await api.issueKey(api.companyId, ['contacts:read']);
      for (let i = 0; i < 3; i++) expect((await api.request('GET', '/test', { key })).status).to.equal(200);
      await api.chronicle.usage.flush();
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const overview = (await session.get('/console')).text;
      const row = new RegExp(`<th scope="row">chr_\\.\\.\\.${key.slice(-4)}</th><td>3 / 1,000</td><td>3 / 10,000</td>`);
      expect(overview).to.match(row);
    });
  });

  describe('unknown pages', () => {
    it('answers an unknown console path, signed in or not, with the console’s own 404 page and its headers; an unknown API path stays JSON', async () => {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      for (const page of [await consoleGet(api.baseUrl, '/console/no-such-page'), await session.get('/console/keys/extra/path'), await consolePost(api.baseUrl, '/console/nothing', {})]) {
        expect([page.status, titleOf(page.text)]).to.deep.equal([404, 'This page does not exist']);
        expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
        expect(page.headers.get('content-security-policy')).to.contain("default-src 'self'");
        expect(page.text).to.match(/^<!DOCTYPE html>\n<html lang="en">/);
      }
      const apiPath = await fetch(`${api.baseUrl}/no-such-route`);
      expect([apiPath.status, apiPath.headers.get('content-type')]).to.deep.equal([404, 'application/json; charset=utf-8']);
      // A path that merely starts with the same letters is not the console's.
      expect((await fetch(`${api.baseUrl}/consoles`)).headers.get('content-type')).to.equal('application/json; charset=utf-8');
    });
  });

  describe('assets', () => {
    it('serves the stylesheet and the script from a fixed list, cached by version', async () => {
      const page = await consoleGet(api.baseUrl, `/console/login?token=x`);
      const css = /href="(\/console\/assets\/console\.css\?v=[0-9a-f]+)"/.exec(page.text)![1]!;
      const served = await consoleGet(api.baseUrl, css);
      expect([served.status, served.headers.get('content-type'), served.headers.get('cache-control')]).to.deep.equal([
        200,
        'text/css; charset=utf-8',
        'public, max-age=31536000, immutable',
      ]);
      expect((await consoleGet(api.baseUrl, '/console/assets/console.js')).headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
      for (const path of ['/console/assets/..%2Fpackage.json', '/console/assets/constructor', '/console/assets/nothing.js']) {
        expect((await consoleGet(api.baseUrl, path)).status, path).to.equal(404);
      }
    });
  });
});

describe('HTTP: console sessions end when idle, and at their absolute end', function () {
  this.timeout(20_000);

  it('ends a session unused for CONSOLE_SESSION_IDLE_SECONDS, and keeps one in use', async () => {
    // The server's time moves only when the test says so.
    const time = manualClock();
    const api = await startHarness({ CONSOLE_SESSION_IDLE_SECONDS: '1' }, undefined, { clock: time });
    try {
      const idle = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const busy = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      for (let i = 0; i < 4; i++) {
        time.advance(999);
        expect((await busy.get('/console/keys')).status, '999 ms after its last request').to.equal(200);
      }
      expect((await idle.get('/console')).status, 'unused since it opened').to.equal(401);
      time.advance(1_000);
      expect((await busy.get('/console/keys')).status, '1 s after its last request').to.equal(401);
    } finally {
      await api.close();
    }
  });

  it('ends a session CONSOLE_SESSION_MAX_SECONDS after it opened, however busy', async () => {
    // The server's time moves only when the test says so.
    const time = manualClock();
    const api = await startHarness({ CONSOLE_SESSION_MAX_SECONDS: '2' }, undefined, { clock: time });
    try {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      for (let i = 0; i < 4; i++) {
        expect((await session.get('/console/keys')).status).to.equal(200);
        time.advance(499);
      }
      time.advance(3);
      expect((await session.get('/console/keys')).status, '1,999 ms after it opened').to.equal(200);
      time.advance(1);
      expect((await session.get('/console/keys')).status, '2 s after it opened').to.equal(401);
    } finally {
      await api.close();
    }
  });
});

describe('HTTP: the console embedded by the platform (CONSOLE_FRAME_ANCESTORS), behind a TLS proxy (TRUST_PROXY)', function () {
  this.timeout(20_000);
  let api: Harness;
  before(async () => (api = await startHarness({ CONSOLE_FRAME_ANCESTORS: "'self' https://dashboard.example.com", TRUST_PROXY: 'true' })));
  after(() => api.close());

  it('may be framed by the origins named, and its cookie is Secure, SameSite=None and Partitioned over HTTPS', async () => {
    const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
    const page = await consoleGet(api.baseUrl, `/console/login?token=${link.token}`);
    expect(page.headers.get('content-security-policy')).to.match(/; frame-ancestors 'self' https:\/\/dashboard\.example\.com$/);
    expect(page.headers.get('x-frame-options')).to.equal(null);
    const opened = await consolePost(api.baseUrl, '/console/login', { token: link.token }, undefined, { 'X-Forwarded-Proto': 'https' });
    expect(opened.headers.getSetCookie()[0]).to.match(/; Path=\/console; HttpOnly; SameSite=None; Partitioned; Secure; Expires=/);
  });

  it('keeps SameSite=Lax, without Secure, over plain HTTP (a browser refuses SameSite=None without Secure)', async () => {
    const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
    const opened = await consolePost(api.baseUrl, '/console/login', { token: link.token });
    expect(opened.headers.getSetCookie()[0]).to.match(/; Path=\/console; HttpOnly; SameSite=Lax; Expires=/);
  });
});

describe("HTTP: the console under BASE_PATH, framed by its own origin only", function () {
  this.timeout(20_000);

  it('serves every page and cookie under the base path, with X-Frame-Options SAMEORIGIN', async () => {
    const api = await startHarness({ BASE_PATH: '/api/external', CONSOLE_FRAME_ANCESTORS: 'self' });
    try {
      const origin = api.baseUrl.replace('/api/external', '');
      const link = await issueLink(api.chronicle.stores.eventStore, api.companyId);
      const page = await consoleGet(origin, `/api/external/console/login?token=${link.token}`);
      expect(page.headers.get('x-frame-options')).to.equal('SAMEORIGIN');
      expect(page.text).to.contain('action="/api/external/console/login"');
      const opened = await consolePost(origin, '/api/external/console/login', { token: link.token });
      expect(opened.headers.get('location')).to.equal('/api/external/console');
      expect(opened.headers.getSetCookie()[0]).to.contain('Path=/api/external/console;');
      expect((await consoleGet(origin, '/console/login?token=x')).status).to.equal(404);
    } finally {
      await api.close();
    }
  });
});

describe('HTTP: console webhooks under the API’s rules (the subscription cap, paused deliveries)', function () {
  this.timeout(20_000);
  let api: Harness;
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY: '1' })));
  after(() => api.close());

  it('refuses a subscription past the cap, as the API does', async () => {
    const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
    const first = await session.post('/console/webhooks', { event: 'contact.created', target_url: 'http://127.0.0.1:9/hook' });
    expect(first.status).to.equal(201);
    const second = await session.post('/console/webhooks', { event: 'deal.won', target_url: 'http://127.0.0.1:9/other' });
    expect(second.status).to.equal(409);
    expect(second.text).to.contain('Your company has 1 subscriptions, the most it may have');
    expect((await api.request('GET', '/webhooks')).body.data).to.have.length(1);
  });

  it('enables a subscription whose deliveries were disabled, recorded as the API records it', async () => {
    const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
    const [subscription] = (await api.request('GET', '/webhooks')).body.data as { id: string }[];
    // Disabled as the dispatcher disables a receiver that kept failing.
    const commands = { eventStore: api.chronicle.stores.eventStore, newId, clock: systemClock };
    const disabled = await changeDeliveryStatus(commands, {
      subscriptionId: subscription!.id,
      companyId: api.companyId,
      change: { to: 'disabled', failingSince: new Date(Date.now() - 3_600_000) },
      metadata: { source: 'system', correlationId: newId(), companyId: api.companyId },
    });
    if (E.isLeft(disabled) || disabled.right.position === null) throw new Error('not disabled');
    await api.chronicle.projections!.waitFor(disabled.right.position, 5000);
    const page = await session.get(`/console/webhooks/${subscription!.id}`);
    expect(page.text).to.match(/class="state-disabled">disabled<br><span class="hint">failing since/);
    const enabled = await session.post(`/console/webhooks/${subscription!.id}/enable`);
    expect(enabled.headers.get('location')).to.equal(`/console/webhooks/${subscription!.id}?done=enabled`);
    expect((await session.get(`/console/webhooks/${subscription!.id}`)).text).to.contain('class="state-active">active');
    const history = await api.request('GET', `/webhooks/${subscription!.id}/history`);
    expect(history.body.data.map((entry: { type: string; metadata: { source: string } }) => [entry.type, entry.metadata.source])).to.deep.equal([
      ['WebhookSubscribed', 'console'],
      ['WebhookDisabled', 'system'],
      ['WebhookEnabled', 'console'],
    ]);
  });
});

describe('HTTP: console secret rotation and delivery pages, without a script', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })));
  after(() => api.close());

  it('asks first, then rotates with the overlap chosen, showing the new secret once, recorded with source console', async () => {
    const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
    expect((await session.post('/console/webhooks', { event: 'contact.created', target_url: 'http://127.0.0.1:9/rotated' })).status).to.equal(201);
    const [subscription] = (await api.request('GET', '/webhooks')).body.data as { id: string }[];
    const before = await api.chronicle.stores.webhookSecrets.get(subscription!.id);

    const asked = await session.post(`/console/webhooks/${subscription!.id}/rotate-secret`, { overlapHours: '72' });
    expect(asked.status).to.equal(200);
    expect(titleOf(asked.text)).to.match(/^Rotate the signing secret of /);
    expect(asked.text).to.contain('name="overlapHours" value="72"').and.contain('for 72 hours');
    expect(await api.chronicle.stores.webhookSecrets.get(subscription!.id)).to.equal(before);

    const rotated = await session.post(`/console/webhooks/${subscription!.id}/rotate-secret`, { overlapHours: '72', confirmed: 'yes' });
    expect(rotated.status).to.equal(200);
    expect(titleOf(rotated.text)).to.equal('Signing secret rotated');
    const secret = /<code id="signing-secret"[^>]*>([^<]+)</.exec(rotated.text)?.[1];
    expect(secret).to.match(/^whsec_/);
    const page = await session.get(`/console/webhooks/${subscription!.id}`);
    expect(page.text).not.to.contain(secret!.slice(6));
    const history = await api.request('GET', `/webhooks/${subscription!.id}/history`);
    const entry = (history.body.data as { type: string; data: { overlapHours: number }; metadata: { source: string } }[]).find((e) => e.type === 'WebhookSecretRotated');
    expect([entry?.data.overlapHours, entry?.metadata.source]).to.deep.equal([72, 'console']);

    const refused = await session.post(`/console/webhooks/${subscription!.id}/rotate-secret`, { overlapHours: '500', confirmed: 'yes' });
    expect(refused.status).to.equal(422);
  });

  it('answers 404 for another company’s subscription and delivery, and for an unknown delivery', async () => {
    const other = await api.newCompany('Console neighbours');
    const theirs = await api.request('POST', '/webhooks/subscribe', { key: other.key, body: { event: 'contact.created', target_url: 'http://127.0.0.1:9/theirs' } });
    const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
    const rotate = await session.post(`/console/webhooks/${theirs.body.data.id}/rotate-secret`, { overlapHours: '24', confirmed: 'yes' });
    expect(rotate.status).to.equal(404);
    expect(await api.chronicle.stores.webhookSecrets.get(theirs.body.data.id)).to.equal(theirs.body.data.secret);
    expect((await session.get(`/console/webhooks/${theirs.body.data.id}/deliveries/any-event`)).status).to.equal(404);
    const [mine] = (await api.request('GET', '/webhooks')).body.data as { id: string }[];
    const missing = await session.get(`/console/webhooks/${mine!.id}/deliveries/no-such-event`);
    expect([missing.status, titleOf(missing.text)]).to.deep.equal([404, 'No such delivery']);
  });
});
