import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { companyStream } from '../../src/features/companies/domain/companyEvents.js';
import { contactStream } from '../../src/features/contacts/domain/contactEvents.js';
import { openConsole } from '../support/consoleClient.js';
import { startHarness, type ApiResponse, type Harness } from '../support/httpHarness.js';

const BIDI = 'must not contain bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)';
const INVISIBLE = 'must contain a visible character';

/** Names that would show as another name, or as nothing. */
const OVERRIDDEN = 'invoice\u202Egnp.exe'; // shows as "invoiceexe.png"
const ISOLATED = '\u2067Acme\u2069';
const ZERO_WIDTH = '\u200B\u200C\u200D\u2060';
const SOFT_HYPHENS = '\u00AD \u00AD';

/** Names that stay allowed. */
const ALLOWED = {
  accented: 'Zoë Ångström-Núñez',
  rlm: '\u200Fשלום עולם\u200F',
  lrm: 'Acme\u200E (EU)',
  emoji: 'Family 👨\u200D👩\u200D👧',
  persian: 'می\u200Cخواهم',
};

/**
 * Names that lie are refused on input, with 422 `Validation failed` saying why:
 * a bidirectional embedding, override or isolate anywhere, or nothing visible once
 * invisible characters are removed. Names already in the log keep loading.
 */
describe('HTTP: names that lie (bidirectional overrides, invisible names)', function () {
  this.timeout(30_000);
  let api: Harness;
  let token: string;
  let companyId: string;
  before(async () => {
    api = await startHarness();
    ({ token } = await api.issueAdminToken());
    companyId = (await admin('POST', '/admin/companies', { name: 'Named' })).body.data.id;
  });
  after(() => api.close());

  const admin = (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
    api.request(method, path, { key: token, ...(body === undefined ? {} : { body }) });
  const refused = (res: ApiResponse, details: Record<string, string>): void => {
    expect([res.status, res.body.error, res.body.details], JSON.stringify(res.body)).to.deep.equal([422, 'Validation failed', details]);
  };
  let phones = 0;
  const phone = () => `+49151${String(2_000_000 + (phones += 1))}`;

  describe('contacts', () => {
    it('refuses a name, first name or last name holding an override or isolate, or nothing visible (422)', async () => {
      refused(await api.request('POST', '/contacts', { body: { name: OVERRIDDEN, phoneNumber: phone() } }), { name: `name ${BIDI}` });
      refused(await api.request('POST', '/contacts', { body: { name: ZERO_WIDTH, phoneNumber: phone() } }), { name: `name ${INVISIBLE}` });
      refused(await api.request('POST', '/contacts', { body: { name: 'Ada', phoneNumber: phone(), firstName: ISOLATED, lastName: SOFT_HYPHENS } }), {
        firstName: `firstName ${BIDI}`,
        lastName: `lastName ${INVISIBLE}`,
      });
      const created = await api.request('POST', '/contacts', { body: { name: 'Ada', phoneNumber: phone() } });
      refused(await api.request('PUT', `/contacts/${created.body.data.id}`, { body: { name: 'Ada\u202D' } }), { name: `name ${BIDI}` });
      refused(await api.request('PUT', `/contacts/${created.body.data.id}`, { body: { lastName: '\u200B' } }), { lastName: `lastName ${INVISIBLE}` });
    });

    it('accepts accented names, RLM, LRM, emoji ZWJ sequences and Persian ZWNJ, as sent', async () => {
      for (const [what, name] of Object.entries(ALLOWED)) {
        const res = await api.request('POST', '/contacts', { body: { name, firstName: name, lastName: name, phoneNumber: phone() } });
        expect(res.status, `${what}: ${JSON.stringify(res.body)}`).to.equal(201);
        expect(res.body.data).to.deep.include({ name, firstName: name, lastName: name });
      }
    });
  });

  describe('deals', () => {
    it('refuses a title holding an override or isolate, or nothing visible (422)', async () => {
      refused(await api.request('POST', '/deals', { body: { title: OVERRIDDEN, value: 10 } }), { title: `title ${BIDI}` });
      refused(await api.request('POST', '/deals', { body: { title: ISOLATED, value: 10 } }), { title: `title ${BIDI}` });
      refused(await api.request('POST', '/deals', { body: { title: ZERO_WIDTH, value: 10 } }), { title: `title ${INVISIBLE}` });
    });

    it('accepts the allowed titles', async () => {
      for (const [what, title] of Object.entries(ALLOWED)) {
        const res = await api.request('POST', '/deals', { body: { title, value: 10 } });
        expect([res.status, res.body.data?.title], what).to.deep.equal([201, title]);
      }
    });
  });

  describe('the admin API', () => {
    it('refuses such a company name (422)', async () => {
      refused(await admin('POST', '/admin/companies', { name: OVERRIDDEN }), { name: BIDI });
      refused(await admin('POST', '/admin/companies', { name: ZERO_WIDTH }), { name: INVISIBLE });
    });

    it('refuses such a key, user or agent name (422)', async () => {
      refused(await admin('POST', `/admin/companies/${companyId}/keys`, { name: ISOLATED, type: 'generic', permissions: ['contacts:read'] }), { name: BIDI });
      refused(await admin('POST', `/admin/companies/${companyId}/keys`, { name: SOFT_HYPHENS, type: 'generic', permissions: ['contacts:read'] }), { name: INVISIBLE });
      refused(await admin('POST', `/admin/companies/${companyId}/users`, { name: OVERRIDDEN, email: 'eve@example.com' }), { name: BIDI });
      refused(await admin('POST', `/admin/companies/${companyId}/users`, { name: ZERO_WIDTH, email: 'eve@example.com' }), { name: INVISIBLE });
      refused(await admin('POST', `/admin/companies/${companyId}/agents`, { name: 'Helper\u202A' }), { name: BIDI });
      const agent = await admin('POST', `/admin/companies/${companyId}/agents`, { name: 'Helper' });
      refused(await admin('PATCH', `/admin/companies/${companyId}/agents/${agent.body.data.id}`, { name: '\u2060' }), { name: INVISIBLE });
    });

    it('accepts the allowed names for companies, keys, users and agents', async () => {
      for (const [what, name] of Object.entries(ALLOWED)) {
        const company = await admin('POST', '/admin/companies', { name });
        expect([company.status, company.body.data?.name], what).to.deep.equal([201, name]);
        const key = await admin('POST', `/admin/companies/${companyId}/keys`, { name, type: 'generic', permissions: ['contacts:read'] });
        expect([key.status, key.body.data?.name], what).to.deep.equal([201, name]);
        const user = await admin('POST', `/admin/companies/${companyId}/users`, { name, email: `${what}@example.com` });
        expect([user.status, user.body.data?.name], what).to.deep.equal([201, name]);
        const agent = await admin('POST', `/admin/companies/${companyId}/agents`, { name });
        expect([agent.status, agent.body.data?.name], what).to.deep.equal([201, name]);
      }
    });
  });

  describe('the console', () => {
    const problemOf = (text: string): string | undefined => /id="name-problem">([^<]*)</.exec(text)?.[1];

    it('shows why a key name is refused on the form (422), and creates a key with an allowed one', async () => {
      const session = await openConsole(api.baseUrl, api.chronicle.stores.eventStore, api.companyId);
      const overridden = await session.post('/console/keys', { name: OVERRIDDEN, type: 'zapier', permissions: ['contacts:read'] });
      expect([overridden.status, problemOf(overridden.text)]).to.deep.equal([
        422,
        'Remove the bidirectional override and isolate characters (U+202A–U+202E, U+2066–U+2069).',
      ]);
      const invisible = await session.post('/console/keys', { name: ZERO_WIDTH, type: 'zapier', permissions: ['contacts:read'] });
      expect([invisible.status, problemOf(invisible.text)]).to.deep.equal([422, 'Give the key a name with at least one visible character.']);
      const allowed = await session.post('/console/keys', { name: ALLOWED.rlm, type: 'zapier', permissions: ['contacts:read'] });
      expect(allowed.status).to.equal(201);
      expect(allowed.text).to.contain(`<dt>Name</dt><dd>${ALLOWED.rlm}</dd>`);
    });
  });

  describe('names already in the log', () => {
    it('keep loading: a company and a contact stored with an override are shown, and can be used and changed', async () => {
      const { eventStore } = api.chronicle.stores;
      const storedCompanyId = randomUUID();
      const companyName = `Old ${OVERRIDDEN}`;
      await eventStore.append(
        companyStream(storedCompanyId),
        [
          {
            id: randomUUID(),
            type: 'CompanyCreated',
            data: { companyId: storedCompanyId, name: companyName, createdAt: new Date().toISOString() },
            metadata: { source: 'cli', correlationId: randomUUID(), companyId: storedCompanyId },
          },
        ],
        'no_stream',
      );
      const contactId = randomUUID();
      const contactName = `Ada ${ISOLATED}`;
      const { position } = await eventStore.append(
        contactStream(contactId),
        [
          {
            id: randomUUID(),
            type: 'ContactCreated',
            data: { contactId, companyId: api.companyId, name: contactName, phoneNumber: phone(), tags: [], firstName: ZERO_WIDTH, createdAt: new Date().toISOString() },
            metadata: { source: 'api', correlationId: randomUUID(), companyId: api.companyId },
          },
        ],
        'no_stream',
      );
      expect(await api.chronicle.projections!.waitFor(position, 5000)).to.equal(true);

      const company = await admin('GET', `/admin/companies/${storedCompanyId}`);
      expect([company.status, company.body.data?.name]).to.deep.equal([200, companyName]);
      const key = await admin('POST', `/admin/companies/${storedCompanyId}/keys`, { name: 'Still works', type: 'generic', permissions: ['contacts:read'] });
      expect(key.status, JSON.stringify(key.body)).to.equal(201);

      const contact = await api.request('GET', `/contacts/${contactId}`);
      expect([contact.status, contact.body.data?.name, contact.body.data?.firstName]).to.deep.equal([200, contactName, ZERO_WIDTH]);
      const changed = await api.request('PUT', `/contacts/${contactId}`, { body: { city: 'Paris' } });
      expect([changed.status, changed.body.data?.name, changed.body.data?.city], JSON.stringify(changed.body)).to.deep.equal([200, contactName, 'Paris']);
    });
  });
});
