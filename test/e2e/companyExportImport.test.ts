import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { eventually } from '../support/events.js';
import { startCountingReceiver } from '../support/personalValues.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../support/postgres.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { ndjson, tarEntries } from '../support/tarArchive.js';
import { tempDir } from '../support/tempStore.js';
import { skipLine } from '../support/integration.js';

/** One Chronicle over HTTP, as a client sees it: an admin token and a key of the company. */
interface Client {
  readonly server: ServerProcess;
  readonly adminToken: string;
  call(method: string, path: string, body?: unknown, as?: string): Promise<{ status: number; headers: Headers; body: any }>;
}

const clientOf = async (server: ServerProcess, env: NodeJS.ProcessEnv): Promise<Client> => {
  const issued = await runCli(['admin-tokens', 'create', '--name', 'export test', '--json'], env);
  expect(issued.code, issued.stderr).to.equal(0);
  const adminToken = (JSON.parse(issued.stdout) as { token: string }).token;
  const call: Client['call'] = async (method, path, body, as = adminToken) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
  // Admin tokens made by the CLI are seen once the server's read models have them.
  await eventually(async () => (await call('GET', '/admin/companies')).status === 200, 10_000);
  return { server, adminToken, call };
};

const keyFor = async (env: NodeJS.ProcessEnv, companyId: string, permissions = 'all'): Promise<string> => {
  const created = await runCli(['keys', 'create', '--company', companyId, '--permissions', permissions, '--json'], env);
  expect(created.code, created.stderr).to.equal(0);
  return (JSON.parse(created.stdout) as { key: string }).key;
};

/** Asks for an export over HTTP, follows it until ready, downloads it. */
const exportArchive = async (client: Client, companyId: string): Promise<Buffer> => {
  const asked = await client.call('POST', `/admin/companies/${companyId}/exports`, {});
  expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
  let state = asked.body.data;
  while (state.state === 'pending' || state.state === 'running') state = (await client.call('GET', asked.headers.get('location')!)).body.data;
  expect(state.state).to.equal('ready');
  const response = await fetch(`${client.server.baseUrl}${state.download.url}`, { headers: { Authorization: `Bearer ${client.adminToken}` } });
  expect(response.status).to.equal(200);
  return Buffer.from(await response.arrayBuffer());
};

/** The events of an archive by stream and revision: id, type, time and data (positions differ from store to store). */
const eventsOf = (archive: Buffer) =>
  ndjson(tarEntries(archive).find((entry) => entry.name === 'events.ndjson')!.content).map((event) => ({
    stream: event.stream,
    revision: event.revision,
    id: event.id,
    type: event.type,
    recordedAt: event.recordedAt,
    data: event.data,
    metadata: event.metadata,
  }));

/** A history as the API shows it, without the log positions (another store's). */
const historyOf = async (client: Client, path: string, key: string) => {
  const history = await client.call('GET', path, undefined, key);
  expect(history.status, JSON.stringify(history.body)).to.equal(200);
  return (history.body.data as { position: string }[]).map(({ position: _position, ...item }) => item);
};

/** Waits until the webhook fan-out has passed the whole log (its position in /metrics at the log's head). */
const fanOutPassedTheLog = async (client: Client): Promise<void> => {
  await eventually(async () => {
    const metrics = await (await fetch(`${client.server.baseUrl}/metrics`)).text();
    const head = /^chronicle_log_head_position (\d+)/m.exec(metrics)?.[1];
    const fanOut = /^chronicle_projection_position\{subscription="webhook-fan-out"\} (\d+)/m.exec(metrics)?.[1];
    return head !== undefined && fanOut !== undefined && BigInt(fanOut) >= BigInt(head);
  }, 15_000);
};

/**
 * A company with contacts (one deleted, one erased), a deal whose status changed, a
 * user and a webhook subscription, exported over HTTP from one Chronicle, imported
 * with `chronicle companies import` into a fresh one, then compared over HTTP.
 */
describe('exporting a company and importing it into a fresh Chronicle', function () {
  this.timeout(180_000);
  const source = tempDir('chronicle-export-source-');
  const sourceEnv = { DATA_DIR: source.path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
  let from: Client;
  let receiver: Awaited<ReturnType<typeof startCountingReceiver>>;
  let companyId: string;
  let key: string;
  let archiveFile: string;
  let archive: Buffer;
  const ids = { contacts: [] as string[], deals: [] as string[], subscription: '', user: '' };

  before(async () => {
    receiver = await startCountingReceiver(200);
    from = await clientOf(await startServer(sourceEnv), sourceEnv);
    companyId = (await from.call('POST', '/admin/companies', { name: 'Round Trip Ltd' })).body.data.id;
    key = await keyFor(sourceEnv, companyId);
    const customer = (method: string, path: string, body?: unknown) => from.call(method, path, body, key);
    const created = async (path: string, body: unknown) => {
      const res = await customer('POST', path, body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.data.id as string;
    };
    const subscribed = await customer('POST', '/webhooks/subscribe', { event: 'contact.created', target_url: receiver.url });
    expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
    ids.subscription = subscribed.body.data.id;
    const kept = await created('/contacts', { name: 'Kept Person', email: 'kept@example.com', phoneNumber: '+442079460101', tags: ['vip'] });
    const deleted = await created('/contacts', { name: 'Deleted Person', email: 'deleted@example.com', phoneNumber: '+442079460102' });
    const erased = await created('/contacts', { name: 'Erased Person', email: 'erased@example.com', phoneNumber: '+442079460103' });
    ids.contacts = [kept, deleted, erased];
    expect((await customer('PUT', `/contacts/${kept}`, { city: 'London' })).status).to.equal(200);
    expect((await customer('DELETE', `/contacts/${deleted}`)).status).to.equal(200);
    ids.user = (await from.call('POST', `/admin/companies/${companyId}/users`, { name: 'Ada Lovelace', email: 'ada@example.com' })).body.data.id;
    const deal = await created('/deals', { title: 'Engines', value: 1000, currency: 'GBP', contactId: kept, assignedToId: ids.user });
    const lost = await created('/deals', { title: 'Looms', value: 50, currency: 'GBP', contactId: erased });
    ids.deals = [deal, lost];
    expect((await customer('PUT', `/deals/${deal}/status`, { stage: 'negotiation' })).status).to.equal(200);
    expect((await customer('PUT', `/deals/${deal}/status`, { status: 'won' })).status).to.equal(200);
    expect((await customer('PUT', `/deals/${lost}/status`, { status: 'lost' })).status).to.equal(200);
    const eraser = await keyFor(sourceEnv, companyId, 'contacts:erase');
    expect((await from.call('POST', `/contacts/${erased}/erase`, {}, eraser)).status).to.equal(200);
    await eventually(() => receiver.count() >= 3, 10_000);

    archive = await exportArchive(from, companyId);
    archiveFile = join(source.path, 'export.tar');
    writeFileSync(archiveFile, archive);
  });

  after(async () => {
    await from?.server.stop();
    await receiver?.close();
    source.dispose();
  });

  /** Imports the archive into a fresh store (`env`), starts a server on it, and compares it with the source over HTTP. */
  const importAndCompare = async (env: NodeJS.ProcessEnv): Promise<void> => {
    const imported = await runCli(['companies', 'import', archiveFile, '--json'], env);
    expect(imported.code, imported.stdout + imported.stderr).to.equal(0);
    expect(JSON.parse(imported.stdout)).to.deep.include({ companyId, streamsEnded: 1, erasedSubjects: 1 });

    const again = await runCli(['companies', 'import', archiveFile], env);
    expect(again.code).to.not.equal(0);
    expect(again.stderr).to.contain(`company ${companyId} exists in this store already`);

    const deliveredBefore = receiver.count();
    const to = await clientOf(await startServer({ ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }), env);
    try {
      const newKey = await keyFor(env, companyId);
      await eventually(async () => (await to.call('GET', `/contacts/${ids.contacts[0]}`, undefined, newKey)).status === 200, 10_000);

      // The records, as each side's API shows them.
      for (const path of ['/contacts?limit=100', '/deals?limit=100', ...ids.deals.map((id) => `/deals/${id}`), `/contacts/${ids.contacts[0]}`]) {
        const [a, b] = [await from.call('GET', path, undefined, key), await to.call('GET', path, undefined, newKey)];
        expect([b.status, b.body.data], path).to.deep.equal([a.status, a.body.data]);
      }
      for (const id of ids.contacts.slice(1)) expect((await to.call('GET', `/contacts/${id}`, undefined, newKey)).status).to.equal(404);
      const users = `/admin/companies/${companyId}/users`;
      expect((await to.call('GET', users)).body.data).to.deep.equal((await from.call('GET', users)).body.data);
      expect((await to.call('GET', `/admin/companies/${companyId}`)).body.data).to.deep.equal((await from.call('GET', `/admin/companies/${companyId}`)).body.data);

      // Each record's history: the same events, times, data and metadata (positions are this store's).
      const histories = [...ids.contacts.map((id) => `/contacts/${id}/history`), ...ids.deals.map((id) => `/deals/${id}/history`)];
      for (const path of histories) expect(await historyOf(to, path, newKey), path).to.deep.equal(await historyOf(from, path, key));

      // The subscription came without its secret: inactive, its history the source's and its end.
      expect((await to.call('GET', '/webhooks', undefined, newKey)).body.data).to.deep.equal([]);
      const hookHistory = await historyOf(to, `/webhooks/${ids.subscription}/history`, newKey);
      expect(hookHistory.slice(0, -1)).to.deep.equal(await historyOf(from, `/webhooks/${ids.subscription}/history`, key));
      expect(hookHistory.at(-1)).to.deep.include({ type: 'WebhookEndedByImport' });

      // Nothing imported is sent: the outbox is empty once the fan-out has passed the whole log.
      await fanOutPassedTheLog(to);
      const deliveries = await to.call('GET', `/webhooks/${ids.subscription}/deliveries`, undefined, newKey);
      expect([deliveries.status, deliveries.body.data], JSON.stringify(deliveries.body)).to.deep.equal([200, []]);
      expect(receiver.count()).to.equal(deliveredBefore);

      // The same event ids and times, stream by stream: an export of the imported company holds the source's events.
      const reexported = eventsOf(await exportArchive(to, companyId));
      // The reservations of phone numbers are named with each store's own secret: the import left the source's out and reserved again here.
      const original = eventsOf(archive).filter((event) => !event.stream.startsWith('phone-'));
      const key2 = (event: { stream: string; revision: number }) => `${event.stream}@${event.revision}`;
      const originalByKey = new Map(original.map((event) => [key2(event), event]));
      // Added here: the kept contact's number reserved again, the subscription's end, and the key this test issued to read the imported company.
      expect(reexported.filter((event) => !originalByKey.has(key2(event))).map((event) => event.type).sort()).to.deep.equal([
        'ApiKeyIssued',
        'PhoneNumberReserved',
        'WebhookEndedByImport',
      ]);
      for (const event of reexported) if (originalByKey.has(key2(event))) expect(event, key2(event)).to.deep.equal(originalByKey.get(key2(event)));
      expect(reexported.filter((event) => originalByKey.has(key2(event))).length).to.equal(original.length);

      // The imported contacts' numbers are reserved here: a new contact cannot take one; a deleted contact's number is free.
      const taken = await to.call('POST', '/contacts', { name: 'Copycat', phoneNumber: '+442079460101' }, newKey);
      expect([taken.status, taken.body.existingContactId], JSON.stringify(taken.body)).to.deep.equal([409, ids.contacts[0]]);
      const freed = await to.call('POST', '/contacts', { name: 'New Person', phoneNumber: '+442079460102' }, newKey);
      expect(freed.status, JSON.stringify(freed.body)).to.equal(201);
    } finally {
      await to.server.stop();
    }
    // The read models built from the imported log are what the log says.
    const verified = await runCli(['verify'], env);
    expect(verified.code, verified.stdout + verified.stderr).to.equal(0);
  };

  it('on the embedded engine (SQLite), into an empty DATA_DIR', async () => {
    const target = tempDir('chronicle-export-target-');
    try {
      await importAndCompare({ DATA_DIR: target.path });
    } finally {
      target.dispose();
    }
  });

  if (postgresTestUrl()) {
    it('on PostgreSQL, into a fresh database', async () => {
      const target = tempDir('chronicle-export-target-');
      let database: FreshDatabase | null = null;
      try {
        database = await freshPostgresDatabase();
        await importAndCompare({ DATA_DIR: target.path, POSTGRES_URL: database.url });
      } finally {
        await database?.drop();
        target.dispose();
      }
    });
  } else {
    skipLine('export and import on PostgreSQL', 'POSTGRES_TEST_URL');
  }

  it('refuses an archive whose part does not match its manifest\'s SHA-256, importing nothing', async () => {
    const target = tempDir('chronicle-export-target-');
    try {
      const damaged = Buffer.from(archive);
      const eventsAt = damaged.indexOf(Buffer.from('"type":"ContactCreated"'));
      expect(eventsAt).to.be.greaterThan(0);
      damaged.write('"type":"ContactCreatee"', eventsAt);
      const file = join(target.path, 'damaged.tar');
      writeFileSync(file, damaged);
      const env = { DATA_DIR: join(target.path, 'data') };
      const refused = await runCli(['companies', 'import', file], env);
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.contain('the SHA-256 of events.ndjson does not match the manifest');
      const listed = await runCli(['companies', 'list', '--json'], env);
      expect((JSON.parse(listed.stdout) as { id: string }[]).map((company) => company.id)).to.not.include(companyId);
    } finally {
      target.dispose();
    }
  });
});
