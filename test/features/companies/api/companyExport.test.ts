import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { hashApiKey } from '../../../../src/shared/apiKeyFormat.js';
import { hashAdminToken } from '../../../../src/shared/adminTokenFormat.js';
import { hashConsoleSecret } from '../../../../src/shared/consoleTokens.js';
import { startHarness, type ApiResponse, type Harness } from '../../../support/httpHarness.js';
import { exportOverHttp } from '../../../support/companyExports.js';
import { ndjson, sha256, tarEntries } from '../../../support/tarArchive.js';

/**
 * POST /admin/companies/:id/exports: a company's records and events in one tar,
 * followed until ready and downloaded over HTTP; what it holds, what it never
 * holds (a secret, another company's data), and its refusals.
 */
describe('HTTP admin API: exporting a company', function () {
  this.timeout(60_000);
  let api: Harness;
  let token: string;
  const admin = (method: string, path: string, body?: unknown): Promise<ApiResponse> => api.request(method, path, { key: token, ...(body === undefined ? {} : { body }) });
  /** The data of a 201 (the test fails, showing the body, on anything else). */
  const created = (res: ApiResponse) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data;
  };
  const as = (key: string) => (method: string, path: string, body?: unknown) => api.request(method, path, { key, ...(body === undefined ? {} : { body }) });

  before(async () => {
    api = await startHarness();
    ({ token } = await api.issueAdminToken());
  });
  after(() => api.close());

  it('holds every record and every event of the company, personal values as reads show them, each part as the manifest says', async () => {
    const companyId = (await admin('POST', '/admin/companies', { name: 'Exported Ltd' })).body.data.id as string;
    const key = (await admin('POST', `/admin/companies/${companyId}/keys`, { name: 'all', type: 'generic', permissions: ['contacts:read', 'contacts:write', 'contacts:erase', 'deals:read', 'deals:write', 'webhooks:write'] })).body
      .data.key as string;
    const customer = as(key);
    const kept = created(await customer('POST', '/contacts', { name: 'Kept Person', email: 'kept.person@example.com', phoneNumber: '+442079460001', tags: ['vip'] }));
    const erased = created(await customer('POST', '/contacts', { name: 'Erased Person', email: 'erased.person@example.com', phoneNumber: '+442079460002' }));
    const deal = created(await customer('POST', '/deals', { title: 'Engines', value: 1000, currency: 'GBP', contactId: kept.id }));
    expect((await customer('PUT', `/deals/${deal.id}/status`, { status: 'won' })).status).to.equal(200);
    expect((await customer('POST', `/contacts/${erased.id}/erase`, {})).status).to.equal(200);
    const user = (await admin('POST', `/admin/companies/${companyId}/users`, { name: 'Ada Lovelace', email: 'ada@example.com' })).body.data;

    const other = (await admin('POST', '/admin/companies', { name: 'Someone else' })).body.data.id as string;
    const otherKey = (await admin('POST', `/admin/companies/${other}/keys`, { name: 'all', type: 'generic', permissions: ['contacts:write'] })).body.data.key as string;
    await as(otherKey)('POST', '/contacts', { name: 'Not Exported', email: 'not.exported@example.com', phoneNumber: '+442079460003' });

    const { archive, ready } = await exportOverHttp(admin, api.baseUrl, token, companyId);
    expect(ready.progress).to.deep.equal({ events: ready.progress.eventsTotal, eventsTotal: ready.progress.eventsTotal, records: 4, recordsTotal: 4 });
    const entries = tarEntries(archive);
    expect(entries.map((entry) => entry.name)).to.deep.equal([
      'manifest.json',
      'records/contacts.ndjson',
      'records/deals.ndjson',
      'records/agents.ndjson',
      'records/users.ndjson',
      'records/api_keys.ndjson',
      'records/webhook_subscriptions.ndjson',
      'events.ndjson',
    ]);
    const manifest = JSON.parse(entries[0]!.content.toString('utf8'));
    expect(manifest).to.deep.include({ format: 'chronicle-company-export', version: 1, exportId: ready.id });
    expect(manifest.company).to.deep.include({ id: companyId, name: 'Exported Ltd' });
    for (const entry of entries.slice(1)) {
      const part = (manifest.parts as { name: string }[]).find((p) => p.name === entry.name);
      expect(part, entry.name).to.deep.equal({ name: entry.name, count: ndjson(entry.content).length, bytes: entry.content.length, sha256: sha256(entry.content) });
    }
    const part = (name: string) => ndjson(entries.find((entry) => entry.name === name)!.content);

    // Records as the API shows them: the erased contact is gone, as from GET /contacts.
    expect(part('records/contacts.ndjson')).to.deep.equal([(await customer('GET', `/contacts/${kept.id}`)).body.data]);
    expect(part('records/deals.ndjson')).to.deep.equal([(await customer('GET', `/deals/${deal.id}`)).body.data]);
    expect(part('records/users.ndjson')).to.deep.equal([user]);
    expect(part('records/api_keys.ndjson').map((k: { id: string }) => k.id)).to.have.length(1);

    // Events: the company's alone, in log order, with what identifies each; the erased person's values null.
    const events = part('events.ndjson');
    expect(events.length).to.equal(ready.progress.eventsTotal);
    for (const event of events) {
      expect(Object.keys(event)).to.include.members(['id', 'type', 'stream', 'revision', 'position', 'recordedAt', 'data', 'metadata']);
      expect(event.metadata.companyId ?? event.data.companyId).to.equal(companyId);
    }
    const positions = events.map((event: { position: string }) => BigInt(event.position));
    expect([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).to.deep.equal(positions);
    // The contact's history, event by event: the same revision, time, type and data.
    const keptHistory = (await customer('GET', `/contacts/${kept.id}/history`)).body.data as { revision: number; timestamp: string; type: string; data: unknown }[];
    const keptEvents = events.filter((event: { stream: string }) => event.stream === `contact-${kept.id}`);
    expect(keptEvents.map((e: { revision: number; recordedAt: string; type: string; data: unknown }) => [e.revision, e.recordedAt, e.type, e.data])).to.deep.equal(
      keptHistory.map((item) => [item.revision, item.timestamp, item.type, item.data]),
    );
    const erasedCreated = events.find((event: { type: string; data: { contactId?: string } }) => event.type === 'ContactCreated' && event.data.contactId === erased.id);
    expect(erasedCreated.erasedFields).to.include('email');
    expect(erasedCreated.data.email).to.equal(null);
    const keptCreated = events.find((event: { type: string; data: { contactId?: string } }) => event.type === 'ContactCreated' && event.data.contactId === kept.id);
    expect(keptCreated.data.email).to.equal('kept.person@example.com');

    const text = archive.toString('latin1');
    expect(text).to.not.contain('erased.person@example.com');
    expect(text).to.not.contain('Erased Person');
    expect(text).to.not.contain('not.exported@example.com');
    expect(text).to.not.contain(other);
  });

  it('holds no secret: no key, token or webhook secret, nor a hash of one', async () => {
    const companyId = (await admin('POST', '/admin/companies', { name: 'Secretive' })).body.data.id as string;
    const key = (await admin('POST', `/admin/companies/${companyId}/keys`, { name: 'hooks', type: 'generic', permissions: ['contacts:read', 'contacts:write', 'webhooks:read', 'webhooks:write'] })).body.data.key as string;
    const subscribed = await as(key)('POST', '/webhooks/subscribe', { event: 'contact.created', target_url: 'https://93.184.215.14/hooks' });
    expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
    const webhookSecret = subscribed.body.data.secret as string;
    const link = (await admin('POST', `/admin/companies/${companyId}/console-sessions`, {})).body.data.url as string;
    const consoleToken = new URL(link).searchParams.get('token')!;
    const consoleSecret = consoleToken.slice(consoleToken.indexOf('.') + 1);

    const { archive } = await exportOverHttp(admin, api.baseUrl, token, companyId);
    const entries = tarEntries(archive);
    const subscriptions = ndjson(entries.find((entry) => entry.name === 'records/webhook_subscriptions.ndjson')!.content);
    expect(subscriptions.map((s: { id: string }) => s.id)).to.deep.equal([subscribed.body.data.id]);
    const issued = ndjson(entries.find((entry) => entry.name === 'events.ndjson')!.content).find((event: { type: string }) => event.type === 'ApiKeyIssued');
    expect([issued.data.keyHash, issued.removedFields]).to.deep.equal([null, ['keyHash']]);

    const text = archive.toString('latin1');
    for (const secret of [key, hashApiKey(key), webhookSecret, token, hashAdminToken(token), consoleToken, consoleSecret, hashConsoleSecret(consoleSecret)]) {
      expect(text.includes(secret), `a secret in the archive: ${secret.slice(0, 8)}…`).to.equal(false);
    }
  });

  it('answers 404 for an unknown company, an unknown export, and another company\'s export; 401 without an admin token', async () => {
    const companyId = (await admin('POST', '/admin/companies', { name: 'Asked' })).body.data.id as string;
    const other = (await admin('POST', '/admin/companies', { name: 'Other' })).body.data.id as string;
    const unknownCompany = await admin('POST', `/admin/companies/${randomUUID()}/exports`, {});
    expect([unknownCompany.status, unknownCompany.body.error]).to.deep.equal([404, 'Company not found']);
    const { location, ready } = await exportOverHttp(admin, api.baseUrl, token, companyId);
    const unknownExport = await admin('GET', `/admin/companies/${companyId}/exports/${randomUUID()}`);
    expect([unknownExport.status, unknownExport.body.error]).to.deep.equal([404, 'Export not found']);
    const elsewhere = await admin('GET', `/admin/companies/${other}/exports/${ready.id}`);
    expect([elsewhere.status, elsewhere.body.error]).to.deep.equal([404, 'Export not found']);
    const elsewhereDownload = await fetch(`${api.baseUrl}/admin/companies/${other}/exports/${ready.id}/download`, { headers: { Authorization: `Bearer ${token}` } });
    expect([elsewhereDownload.status, ((await elsewhereDownload.json()) as { error: string }).error]).to.deep.equal([404, 'Export not found']);
    expect((await api.request('GET', location, { key: null })).status).to.equal(401);
    const customerKey = await api.request('GET', location, { key: api.key });
    expect(customerKey.status).to.equal(401);
  });
});
