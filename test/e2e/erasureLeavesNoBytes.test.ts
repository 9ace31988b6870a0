import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { eventually } from '../support/events.js';
import { postgresServerInstalled, startPostgresCluster, type TestCluster } from '../support/postgresCluster.js';
import { runCli, startServer } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';
import { bytesFound, filesUnder, spellingsOf, startCountingReceiver, startEchoReceiver } from '../support/personalValues.js';
import { GOLDEN_LOGS_DIR } from '../support/goldenLog.js';
import { exportOverHttp } from '../support/exportOverHttp.js';
import { noValuesAfterReplay } from '../support/scanAfterReplay.js';
import { consoleGet, consolePost, sessionCookieOf } from '../support/consoleClient.js';

const run = promisify(execFile);

interface Engine {
  readonly env: NodeJS.ProcessEnv;
  /** Every file whose bytes must not hold an erased value, after the compaction (a dump made first where the engine has one). */
  readonly files: () => Promise<string[]>;
  /** The files that hold none of the values as soon as the erase has answered and the fan-out passed it, the server still running. */
  readonly atOnce?: () => string[];
}

/**
 * A contact with unique values along every path (created with an Idempotency-Key and
 * replayed, updated, found by search, linked to a deal that is won (which the console's search
 * finds by the contact's name and phone number, and by neither once it is erased), delivered to a
 * receiver that succeeds and one that fails, and to two that echo the body back in their
 * response, one with 200 and one with 500 (the delivery log keeps responses), its history read), then erased; the
 * user the deal is assigned to, with unique values too (created through the admin
 * API with an Idempotency-Key), erased after it; a second contact found by search,
 * deleted, then erased by its e-mail address; an export of the company made
 * before the erasures (which held the values, and which they delete); the
 * server stops and `chronicle erasures compact` runs. Then no spelling of any value
 * is in any byte the engine keeps, nor in what the processes wrote; and again after
 * a restart, a replay and a verify.
 */
const eraseAndScan = async (engine: Engine): Promise<void> => {
  const [ok, failing] = [await startCountingReceiver(200), await startCountingReceiver(500)];
  const [echoing, echoingFailure] = [await startEchoReceiver(200), await startEchoReceiver(500)];
  const env = {
    ...engine.env,
    LOG_LEVEL: 'debug',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_DELAYS_MS: '20,40',
    WEBHOOK_PAUSE_DELAYS_MS: '50',
  };
  const server = await startServer(env);
  const unique = randomBytes(4).toString('hex');
  const phoneDigits = `1512${String(parseInt(unique, 16) % 10_000_000).padStart(7, '0')}`;
  const person = {
    name: `Zephyrine Quillfeather${unique}`,
    email: `Zq.${unique}@Example.ORG`,
    phoneNumber: `+49 ${phoneDigits.slice(0, 4)} ${phoneDigits.slice(4)}`,
    city: `Oberwaldhausen${unique}`,
    currentCompany: `Quillwerk${unique} GmbH`,
    tags: [`vip${unique}`],
  };
  const movedTo = `Unterbrunnwies${unique}`;
  const user = { name: `Ottokar Vellhaven${unique}`, email: `Ov.${unique}@Example.NET` };
  // A second person: deleted first, then erased by e-mail (POST /contacts/erase).
  const deletedDigits = `660${String(parseInt(unique, 16) % 10_000_000).padStart(7, '0')}`;
  const deletedPerson = {
    name: `Theodora Brackwater${unique}`,
    email: `Tb.${unique}@Example.NET`,
    phoneNumber: `+43 ${deletedDigits.slice(0, 3)} ${deletedDigits.slice(3)}`,
    city: `Kleinmoosbach${unique}`,
  };
  let output = '';
  try {
    const companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())?.[1];
    expect(companyId, server.output()).to.be.a('string');
    const keyWith = async (permissions: string): Promise<string> => {
      const created = await runCli(['keys', 'create', '--company', companyId!, '--permissions', permissions, '--json'], env);
      expect(created.code, created.stderr).to.equal(0);
      return (JSON.parse(created.stdout) as { key: string }).key;
    };
    const key = await keyWith('all');
    const eraser = await keyWith('contacts:erase');
    const issued = await runCli(['admin-tokens', 'create', '--name', 'erasure test', '--json'], env);
    expect(issued.code, issued.stderr).to.equal(0);
    const adminToken = (JSON.parse(issued.stdout) as { token: string }).token;
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, as = key) => {
      const response = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } & Record<string, unknown> };
    };
    await eventually(async () => (await call('GET', '/test')).status === 200 && (await call('GET', '/test', undefined, {}, eraser)).status === 200, 10_000);

    for (const receiver of [ok, failing, echoing, echoingFailure]) {
      for (const event of ['contact.created', 'contact.updated', 'deal.created', 'deal.won']) {
        const subscribed = await call('POST', '/webhooks/subscribe', { event, target_url: receiver.url });
        expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
      }
    }

    const first = await call('POST', '/contacts', person, { 'Idempotency-Key': `create-${unique}` });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const contactId = first.body.data!.id as string;
    expect((await call('POST', '/contacts', person, { 'Idempotency-Key': `create-${unique}` })).status).to.equal(201);
    expect((await call('PUT', `/contacts/${contactId}`, { city: movedTo })).status).to.equal(200);
    const found = await call('GET', `/contacts?search=${encodeURIComponent(person.name)}`);
    expect(found.body.data).to.have.length(1);
    const userCreate = () => call('POST', `/admin/companies/${companyId}/users`, user, { 'Idempotency-Key': `user-${unique}` }, adminToken);
    const createdUser = await userCreate();
    expect(createdUser.status, JSON.stringify(createdUser.body)).to.equal(201);
    const userId = createdUser.body.data!.id as string;
    expect((await userCreate()).status).to.equal(201);
    const deal = await call('POST', '/deals', { title: 'Quills', value: 100, currency: 'EUR', contactId, assignedToId: userId }, { 'Idempotency-Key': `deal-${unique}` });
    expect(deal.status, JSON.stringify(deal.body)).to.equal(201);
    const dealId = deal.body.data!.id as string;
    expect((await call('PUT', `/deals/${dealId}/status`, { status: 'won' })).status).to.equal(200);
    expect((await call('GET', `/contacts/${contactId}/history`)).status).to.equal(200);
    // The console's search finds the deal by its contact's name (the deals read model's searched texts hold it).
    const link = await call('POST', `/admin/companies/${companyId}/console-sessions`, {}, {}, adminToken);
    const signedIn = await consolePost(server.baseUrl, '/console/login', { token: new URL(link.body.data!.url as string).searchParams.get('token')! });
    const cookie = sessionCookieOf(signedIn);
    expect(cookie, signedIn.text.slice(0, 300)).to.be.a('string');
    const consoleSearch = async (text: string) => (await consoleGet(server.baseUrl, `/console/search?q=${encodeURIComponent(text)}`, cookie!)).text;
    expect(await consoleSearch(person.name.toUpperCase())).to.contain(`/console/deals/${dealId}`);
    expect(await consoleSearch(`49${phoneDigits.slice(0, 6)}`)).to.contain(`/console/deals/${dealId}`);
    await eventually(() => [ok, failing, echoing, echoingFailure].every((receiver) => receiver.count() >= 4), 15_000);
    // The delivery log kept what the echoing receivers answered: the person's values, until the erasure.
    const logged = await call('GET', '/webhooks');
    const echoed = ((logged.body.data as unknown as { id: string; target_url: string }[] | undefined) ?? []).filter((s) => s.target_url === echoing.url);
    const keptBefore = await call('GET', `/webhooks/${echoed[0]!.id}/deliveries`);
    const firstEvent = (keptBefore.body.data as unknown as { eventId: string }[])[0]!.eventId;
    const attempt = await call('GET', `/webhooks/${echoed[0]!.id}/deliveries/${firstEvent}`);
    expect(JSON.stringify(attempt.body), 'the response kept in the delivery log').to.contain(person.name);
    // An export made before the erasures holds the person's values (in exports.sqlite, or in PostgreSQL's tables).
    const exported = await exportOverHttp(server.baseUrl, adminToken, companyId!);
    expect(exported.archive.toString('utf8')).to.contain(person.name);

    const erased = await call('POST', `/contacts/${contactId}/erase`, {}, {}, eraser);
    expect(erased.status, JSON.stringify(erased.body)).to.equal(200);
    const userErased = await call('POST', `/admin/companies/${companyId}/users/${userId}/erase`, {}, {}, adminToken);
    expect(userErased.status, JSON.stringify(userErased.body)).to.equal(200);
    const other = await call('POST', '/contacts', deletedPerson);
    expect(other.status, JSON.stringify(other.body)).to.equal(201);
    const otherId = other.body.data!.id as string;
    expect((await call('GET', `/contacts?search=${encodeURIComponent(deletedPerson.name)}`)).body.data).to.have.length(1);
    expect((await call('DELETE', `/contacts/${otherId}`)).status).to.equal(200);
    const byEmail = await call('POST', '/contacts/erase', { email: deletedPerson.email.toLowerCase() }, {}, eraser);
    expect(byEmail.body, JSON.stringify(byEmail.body)).to.deep.equal({ success: true, data: { erased: [otherId] } });
    // Every erasure in the company deleted its exports.
    const gone = await call('GET', exported.location, undefined, {}, adminToken);
    expect([gone.status, gone.body.error]).to.deep.equal([404, 'Export not found']);
    const dealNow = await call('GET', `/deals/${dealId}`);
    expect(dealNow.body.data!.contact).to.deep.equal({ id: contactId, name: null, email: null, phoneNumber: null, currentCompany: null });
    expect(dealNow.body.data!.assignedTo).to.equal(null);
    expect((await userCreate()).status).to.equal(404);
    expect((await call('POST', '/contacts', person, { 'Idempotency-Key': `create-${unique}` })).status).to.equal(404);
    expect((await call('GET', `/contacts?search=${encodeURIComponent(person.name)}`)).body.data).to.deep.equal([]);
    for (const text of [person.name, person.email, `49${phoneDigits.slice(0, 6)}`]) {
      const page = await consoleSearch(text);
      expect(page, text).not.to.contain(`/console/deals/${dealId}`);
      expect(page, text).not.to.contain(`/console/contacts/${contactId}`);
    }
    expect(await consoleSearch('quills')).to.contain(`/console/deals/${dealId}`);
    // The fan-out has passed the erasure once the feed's contact.erased is there and the receivers got what was pending.
    await eventually(async () => {
      const feed = await call('GET', '/events?types=contact.erased');
      return ((feed.body.data as unknown as { data: { id: string } }[] | undefined) ?? []).some((item) => item.data.id === contactId);
    }, 10_000);
    const atOnce = [
      ...[person.name, person.email, `+49${phoneDigits}`, person.city, person.currentCompany, person.tags[0]!, movedTo, user.name, user.email],
      ...[deletedPerson.name, deletedPerson.email, `+43${deletedDigits}`, deletedPerson.city],
    ].flatMap(spellingsOf);
    expect(bytesFound(engine.atOnce?.() ?? [], atOnce), 'values in the stored bytes at once').to.deep.equal([]);
  } finally {
    await server.stop();
    await ok.close();
    await failing.close();
    await echoing.close();
    await echoingFailure.close();
    output = server.output();
  }

  const compacted = await runCli(['erasures', 'compact'], env);
  expect(compacted.code, compacted.stdout + compacted.stderr).to.equal(0);

  const values = [
    ...[person.name, person.email, `+49${phoneDigits}`, person.city, person.currentCompany, person.tags[0]!, movedTo, user.name, user.email],
    ...[deletedPerson.name, deletedPerson.email, `+43${deletedDigits}`, deletedPerson.city],
  ];
  const spellings = values.flatMap(spellingsOf);
  expect(bytesFound(await engine.files(), spellings), 'values in the stored bytes').to.deep.equal([]);
  expect(spellings.filter((spelling) => output.includes(spelling)), 'values in stdout and stderr').to.deep.equal([]);

  // Again after a restart, a replay of every read model and a verify.
  await noValuesAfterReplay(env, engine.files, spellings, compacted.stdout + compacted.stderr);
};

describe('erasing a contact and a user leaves none of their values in any byte Chronicle keeps', function () {
  this.timeout(180_000);

  it('on the embedded engine: every file under DATA_DIR, stdout and stderr', async () => {
    const dir = tempDir();
    try {
      await eraseAndScan({ env: { DATA_DIR: dir.path }, files: async () => filesUnder(dir.path), atOnce: () => filesUnder(dir.path) });
    } finally {
      dir.dispose();
    }
  });

  it('on a copy of the golden log of release 283063c: a contact and a user that exist only in its events, sealed in place at the first start', async () => {
    const dir = tempDir();
    try {
      const release = join(GOLDEN_LOGS_DIR, '283063c');
      copyFileSync(join(release, 'chronicle.sqlite'), join(dir.path, 'chronicle.sqlite'));
      const credentials = JSON.parse(readFileSync(join(release, 'credentials.json'), 'utf8')) as {
        companyId: string;
        key: string;
        ids: { contacts: Record<string, string>; users: Record<string, string> };
      };
      const ada = credentials.ids.contacts['ada']!;
      const dana = credentials.ids.users['dana']!;
      const env = { DATA_DIR: dir.path, LOG_LEVEL: 'debug' };
      // Her values as the release showed them that are hers alone (her number is also another company's contact's).
      // And the values of Dana, a user some of the release's deals are assigned to.
      const values = ['Ada King, Countess of Lovelace', 'countess@example.com', 'Babbage & Lovelace', 'Lead analyst', 'Dana Seller', 'Dana.Seller@example.com'];
      const spellings = values.flatMap(spellingsOf);
      expect(bytesFound(filesUnder(dir.path), spellings), 'the release stored her values in the clear').not.to.deep.equal([]);
      expect(bytesFound(filesUnder(dir.path), spellingsOf('Dana Seller')), 'the release stored the user\'s name in the clear').not.to.deep.equal([]);

      const server = await startServer(env);
      let output = '';
      try {
        const created = await runCli(['keys', 'create', '--company', credentials.companyId, '--permissions', 'contacts:erase', '--json'], env);
        expect(created.code, created.stderr).to.equal(0);
        const eraser = (JSON.parse(created.stdout) as { key: string }).key;
        const issued = await runCli(['admin-tokens', 'create', '--name', 'erasure test', '--json'], env);
        expect(issued.code, issued.stderr).to.equal(0);
        const adminToken = (JSON.parse(issued.stdout) as { token: string }).token;
        const call = async (method: string, path: string, key: string, body?: unknown) => {
          const response = await fetch(`${server.baseUrl}${path}`, {
            method,
            headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return { status: response.status, body: (await response.json()) as Record<string, unknown> };
        };
        // The first start sealed the release's events in place: she reads as she did.
        const before = await call('GET', `/contacts/${ada}`, credentials.key);
        expect(before.status).to.equal(200);
        expect((before.body.data as { name: string }).name).to.equal(values[0]);
        await eventually(async () => (await call('GET', '/test', eraser)).status === 200, 10_000);
        expect((await call('POST', `/contacts/${ada}/erase`, eraser, {})).status).to.equal(200);
        expect((await call('GET', `/contacts/${ada}`, credentials.key)).status).to.equal(404);
        const history = await call('GET', `/contacts/${ada}/history`, credentials.key);
        expect(history.status).to.equal(200);
        expect(JSON.stringify(history.body)).not.to.contain('Lovelace');
        const users = `/admin/companies/${credentials.companyId}/users`;
        await eventually(async () => (await call('GET', users, adminToken)).status === 200, 10_000);
        expect(JSON.stringify((await call('GET', users, adminToken)).body)).to.contain('Dana Seller');
        expect((await call('POST', `${users}/${dana}/erase`, adminToken, {})).status).to.equal(200);
        expect(JSON.stringify((await call('GET', users, adminToken)).body)).not.to.contain('Dana');
        const deals = await call('GET', '/deals?limit=100', credentials.key);
        expect(deals.status).to.equal(200);
        expect(JSON.stringify(deals.body)).not.to.contain('Dana');
        await eventually(async () => {
          const feed = await call('GET', '/events?types=contact.erased', credentials.key);
          return ((feed.body.data as { data: { id: string } }[] | undefined) ?? []).some((item) => item.data.id === ada);
        }, 10_000);
      } finally {
        await server.stop();
        output = server.output();
      }
      const compacted = await runCli(['erasures', 'compact'], env);
      expect(compacted.code, compacted.stdout + compacted.stderr).to.equal(0);
      expect(bytesFound(filesUnder(dir.path), spellings), 'their values in the stored bytes').to.deep.equal([]);
      expect(spellings.filter((spelling) => output.includes(spelling)), 'their values in stdout and stderr').to.deep.equal([]);
      const verified = await runCli(['verify'], env);
      expect(verified.code, verified.stdout + verified.stderr).to.equal(0);
    } finally {
      dir.dispose();
    }
  });

  if (!postgresServerInstalled()) {
    console.log('  skipped: erasure on PostgreSQL, the byte scan of a dump and of the data directory (no PostgreSQL server under /usr/lib/postgresql)');
  } else {
    it('on PostgreSQL: a pg_dump, every file of the data directory but pg_wal, stdout and stderr', async () => {
      const dir = tempDir();
      let cluster: TestCluster | null = null;
      try {
        cluster = await startPostgresCluster();
        const url = cluster.url();
        const dump = join(dir.path, 'dump.sql');
        await eraseAndScan({
          env: { DATA_DIR: dir.path, POSTGRES_URL: url },
          files: async () => {
            await run('pg_dump', ['--dbname', url, '--file', dump]);
            return [dump, ...filesUnder(cluster!.dataDir, ['pg_wal'])];
          },
        });
      } finally {
        await cluster?.stop();
        dir.dispose();
      }
    });
  }
});
