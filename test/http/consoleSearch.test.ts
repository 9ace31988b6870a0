import { expect } from 'chai';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../support/postgres.js';
import { startHarness, type Harness } from '../support/httpHarness.js';
import { consoleGet, openConsole, type ConsoleSession } from '../support/consoleClient.js';
import { skipLine } from '../support/integration.js';

/** The first `<h1>` of a page. */
const titleOf = (text: string): string => /<h1[^>]*>([^<]*)</.exec(text)?.[1] ?? '';

/** The links of a results section (`contacts-found`, `deals-found`): each result's href and text. */
const resultsOf = (page: string, section: string): { href: string; text: string }[] => {
  const start = page.indexOf(`aria-labelledby="${section}"`);
  if (start < 0) return [];
  const body = page.slice(start, page.indexOf('</section>', start));
  return [...body.matchAll(/<li>\s*<a href="([^"]+)">([^<]*)<\/a>/g)].map((m) => ({ href: m[1]!, text: m[2]! }));
};

const ENGINES: { readonly name: string; readonly database?: () => Promise<FreshDatabase> }[] = [
  { name: 'the embedded engine' },
  ...(postgresTestUrl() ? [{ name: 'PostgreSQL', database: () => freshPostgresDatabase() }] : []),
];
if (!postgresTestUrl()) skipLine('HTTP: the console’s search on PostgreSQL', 'POSTGRES_TEST_URL');

for (const engine of ENGINES) {
  describe(`HTTP: the console’s search of contacts and deals (${engine.name})`, function () {
    this.timeout(60_000);
    let api: Harness;
    let database: FreshDatabase | undefined;
    let session: ConsoleSession;
    const ids: Record<string, string> = {};

    const created = async (path: string, body: unknown, key?: string): Promise<string> => {
      const res = await api.request('POST', path, { body, ...(key ? { key } : {}) });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).to.equal(201);
      return res.body.data.id as string;
    };
    const search = (q: string) => session.get(`/console/search?q=${encodeURIComponent(q)}`);

    before(async () => {
      database = engine.database ? await engine.database() : undefined;
      api = await startHarness(database ? { POSTGRES_URL: database.url, POSTGRES_POOL_SIZE: '4' } : {});
      const other = await api.newCompany('Other company');
      // The demo company's records…
      ids.ada = await created('/contacts', { name: 'Ada Lovelace', phoneNumber: '+442079460001', email: 'ada@engines.example' });
      ids.charles = await created('/contacts', { name: 'Charles Babbage', phoneNumber: '+442079460002', email: 'charles@engines.example' });
      ids.analytical = await created('/deals', { title: 'Analytical Engine', value: 5000, currency: 'GBP', stage: 'Proposal', contactId: ids.ada });
      ids.difference = await created('/deals', { title: 'Difference Engine', value: 1200, currency: 'GBP' });
      // …one deleted contact and one deleted deal…
      ids.adaDeleted = await created('/contacts', { name: 'Ada Deleted', phoneNumber: '+442079460003' });
      expect((await api.request('DELETE', `/contacts/${ids.adaDeleted}`)).status).to.equal(200);
      ids.engineDeleted = await created('/deals', { title: 'Steam Engine (deleted)', value: 1, currency: 'GBP' });
      expect((await api.request('DELETE', `/deals/${ids.engineDeleted}`)).status).to.equal(200);
      // …one erased contact, whose deal stays but no longer names it…
      ids.adaErased = await created('/contacts', { name: 'Ada Forgotten', phoneNumber: '+442079460004', email: 'forgotten@engines.example' });
      ids.loom = await created('/deals', { title: 'Jacquard loom', value: 300, currency: 'GBP', contactId: ids.adaErased });
      const { key: eraser } = await api.issueKey(api.companyId, ['contacts:erase']);
      expect((await api.request('POST', `/contacts/${ids.adaErased}/erase`, { body: {}, key: eraser })).status).to.equal(200);
      // …markup in a contact's name and a deal's title…
      ids.mallory = await created('/contacts', { name: '<script>alert("contact")</script> Mallory & Co', phoneNumber: '+15555550666' });
      ids.markup = await created('/deals', { title: '<img src=x onerror=alert(1)> Engine "deal"', value: 1, currency: 'USD', contactId: ids.mallory });
      // …and another company's, with the same names.
      ids.theirAda = await created('/contacts', { name: 'Ada Lovelace', phoneNumber: '+442079460001', email: 'ada@engines.example' }, other.key);
      ids.theirDeal = await created('/deals', { title: 'Analytical Engine (theirs)', value: 1, currency: 'GBP', contactId: ids.theirAda }, other.key);
      session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
    });
    after(async () => {
      await api?.close();
      await database?.drop();
    });

    it('puts a search box in the header of every signed-in page, a GET form to /console/search', async () => {
      for (const path of ['/console', '/console/keys', '/console/webhooks', '/console/activity', `/console/contacts/${ids.ada}`, '/console/search']) {
        const page = await session.get(path);
        expect(page.status, path).to.equal(200);
        expect(page.text, path).to.match(/<form class="search" role="search" method="get" action="\/console\/search">/);
        expect(page.text, path).to.match(/<label for="header-search"[^>]*>Find a contact or deal<\/label>\s*<input type="search" id="header-search" name="q"/);
      }
      // Signed out: no header search, and the search itself is a 401 page.
      const without = await consoleGet(api.baseUrl, '/console/search?q=ada');
      expect([without.status, titleOf(without.text)]).to.deep.equal([401, 'You are signed out']);
      expect(without.text).not.to.contain('Ada Lovelace');
    });

    it('finds the company’s contacts by name, e-mail or phone number and its deals by title or by their contact, each linked to its history', async () => {
      const byName = await search('  ada  ');
      expect(byName.status).to.equal(200);
      expect(titleOf(byName.text)).to.equal('Results for “ada”');
      expect(resultsOf(byName.text, 'contacts-found')).to.deep.equal([{ href: `/console/contacts/${ids.ada}`, text: 'Ada Lovelace' }]);
      // Found by its contact's name.
      expect(resultsOf(byName.text, 'deals-found')).to.deep.equal([{ href: `/console/deals/${ids.analytical}`, text: 'Analytical Engine' }]);
      expect(byName.text).to.contain('value="ada"');

      expect(resultsOf((await search('ENGINE')).text, 'deals-found').map((r) => r.text)).to.deep.equal([
        '&lt;img src=x onerror=alert(1)&gt; Engine &quot;deal&quot;',
        'Difference Engine',
        'Analytical Engine',
      ]);
      const byEmail = await search('charles@engines');
      expect(resultsOf(byEmail.text, 'contacts-found').map((r) => r.text)).to.deep.equal(['Charles Babbage']);
      expect(resultsOf(byEmail.text, 'deals-found')).to.deep.equal([]);
      const byPhone = await search('+4420794600');
      expect(resultsOf(byPhone.text, 'contacts-found').map((r) => r.text)).to.deep.equal(['Charles Babbage', 'Ada Lovelace']);
      expect(resultsOf(byPhone.text, 'deals-found').map((r) => r.text)).to.deep.equal(['Analytical Engine']);

      // Each result opens that record's history.
      for (const { href, text } of [...resultsOf(byName.text, 'contacts-found'), ...resultsOf(byName.text, 'deals-found')]) {
        const history = await session.get(href);
        expect([history.status, titleOf(history.text)], href).to.deep.equal([200, text]);
        expect(history.text).to.contain('History, oldest first');
      }
    });

    it('never finds another company’s records, nor deleted or erased ones, nor a deal by its erased contact', async () => {
      const page = (await search('ada')).text + (await search('engine')).text + (await search('forgotten')).text + (await search('theirs')).text;
      for (const id of [ids.theirAda, ids.theirDeal, ids.adaDeleted, ids.engineDeleted, ids.adaErased]) expect(page).not.to.contain(id);
      expect(page).not.to.contain('Ada Deleted');
      expect(page).not.to.contain('Steam Engine');
      expect(page).not.to.contain('Ada Forgotten');
      expect(page).not.to.contain('Other company');
      // The erased contact's deal is found by its own title, and shows no contact.
      const loom = await search('jacquard');
      expect(resultsOf(loom.text, 'deals-found')).to.deep.equal([{ href: `/console/deals/${ids.loom}`, text: 'Jacquard loom' }]);
      expect(loom.text).not.to.contain(' · with ');
      expect(resultsOf((await search('forgotten@engines')).text, 'deals-found')).to.deep.equal([]);
    });

    it('escapes what it shows: the records’ markup and the query itself', async () => {
      const found = await search('<script>');
      expect(resultsOf(found.text, 'contacts-found')).to.deep.equal([
        { href: `/console/contacts/${ids.mallory}`, text: '&lt;script&gt;alert(&quot;contact&quot;)&lt;/script&gt; Mallory &amp; Co' },
      ]);
      expect(resultsOf(found.text, 'deals-found').map((r) => r.href)).to.deep.equal([`/console/deals/${ids.markup}`]);
      expect(found.text).not.to.contain('<script>alert');
      expect(found.text).not.to.contain('<img src=x');
      const injected = await search('"><svg onload=alert(1)>');
      expect(injected.status).to.equal(200);
      expect(injected.text).not.to.contain('<svg onload');
      expect(injected.text).to.contain('value="&quot;&gt;&lt;svg onload=alert(1)&gt;"');
      expect(titleOf(injected.text)).to.equal('Results for “&quot;&gt;&lt;svg onload=alert(1)&gt;”');
    });

    it('says what to do for an empty search, no match, and a search too long (422), never a 500', async () => {
      for (const q of ['', '   ']) {
        const empty = await search(q);
        expect([empty.status, titleOf(empty.text)], JSON.stringify(q)).to.deep.equal([200, 'Search']);
        expect(empty.text).to.contain('Type what you are looking for');
      }
      const bare = await session.get('/console/search');
      expect([bare.status, titleOf(bare.text)]).to.deep.equal([200, 'Search']);

      const none = await search('zzzz-nobody');
      expect(none.status).to.equal(200);
      expect(none.text).to.contain('Nothing matches “zzzz-nobody”');
      expect(none.text).to.contain('No contact matches.');
      expect(none.text).to.contain('No deal matches.');

      const long = await search('a'.repeat(201));
      expect([long.status, titleOf(long.text)]).to.deep.equal([422, 'Search']);
      expect(long.text).to.contain('That search is too long');
      expect(long.text).to.contain('at most 200 characters; this one has 201');
      expect((await search('é'.repeat(200))).status, '200 characters that are not ASCII').to.equal(200);
      // A repeated q, as a hand-made URL may carry: the first one is searched.
      const twice = await session.get('/console/search?q=babbage&q=ada');
      expect(resultsOf(twice.text, 'contacts-found').map((r) => r.text)).to.deep.equal(['Charles Babbage']);
      // Characters a URL may carry badly.
      for (const q of ['%', '%%', '_', '\\', '"', "'", '*', 'a AND b', 'NEAR(', '\u0000', '😀']) {
        expect((await search(q)).status, JSON.stringify(q)).to.equal(200);
      }
    });

    it('writes no search text to the logs', async () => {
      await search('Lovelace-in-no-log');
      expect(api.logs()).to.contain('/console/search');
      expect(api.logs()).not.to.contain('Lovelace-in-no-log');
    });
  });
}
