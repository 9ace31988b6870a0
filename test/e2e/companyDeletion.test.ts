import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { eventually } from '../support/events.js';
import { postgresServerInstalled, startPostgresCluster, type TestCluster } from '../support/postgresCluster.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { exportOverHttp } from '../support/exportOverHttp.js';
import { tempDir } from '../support/tempStore.js';
import { bytesFound, filesUnder, spellingsOf, startCountingReceiver } from '../support/personalValues.js';
import { noValuesAfterReplay } from '../support/scanAfterReplay.js';

const run = promisify(execFile);

interface Engine {
  readonly env: NodeJS.ProcessEnv;
  /** Every file whose bytes must not hold an erased value, after the compaction (a dump made first where the engine has one). */
  readonly files: () => Promise<string[]>;
  /** The files that hold none of the values as soon as the erase has answered, the server still running. */
  readonly atOnce?: () => string[];
}

type Call = (
  method: string,
  path: string,
  as: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: { data?: Record<string, unknown> } & Record<string, unknown> }>;

const caller =
  (server: ServerProcess): Call =>
  async (method, path, as, body, headers = {}) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } & Record<string, unknown> };
  };

/** A company with everything a customer leaves behind, its people's values unique to it. */
interface BuiltCompany {
  readonly id: string;
  readonly key: string;
  readonly contactId: string;
  readonly userId: string;
  /** Every personal value it holds, as sent. */
  readonly values: readonly string[];
  readonly replayContact: () => ReturnType<Call>;
  readonly replayUser: () => ReturnType<Call>;
}

/**
 * A company made through the admin API (with an Idempotency-Key), an API key, webhook
 * subscriptions to a receiver that succeeds and one that fails, two contacts (one
 * created with an Idempotency-Key and replayed, one deleted), a user made with an
 * Idempotency-Key, a deal linking the contact and assigned to the user, won; the
 * deliveries waited for.
 */
const buildCompany = async (
  call: Call,
  env: NodeJS.ProcessEnv,
  adminToken: string,
  receivers: readonly { url: string; count: () => number }[],
  tag: string,
): Promise<BuiltCompany> => {
  const unique = `${tag}${randomBytes(4).toString('hex')}`;
  const digits = (prefix: string) => `${prefix}${String(parseInt(randomBytes(4).toString('hex'), 16) % 10_000_000).padStart(7, '0')}`;
  const company = await call('POST', '/admin/companies', adminToken, { name: `Firm ${unique}` }, { 'Idempotency-Key': `company-${unique}` });
  expect(company.status, JSON.stringify(company.body)).to.equal(201);
  const id = company.body.data!.id as string;
  const created = await runCli(['keys', 'create', '--company', id, '--permissions', 'all', '--json'], env);
  expect(created.code, created.stderr).to.equal(0);
  const key = (JSON.parse(created.stdout) as { key: string }).key;
  await eventually(async () => (await call('GET', '/test', key)).status === 200, 10_000);
  for (const receiver of receivers) {
    for (const event of ['contact.created', 'deal.created', 'deal.won']) {
      const subscribed = await call('POST', '/webhooks/subscribe', key, { event, target_url: receiver.url });
      expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
    }
  }
  const phone = digits('1512');
  const person = { name: `Wilhelmina Farthingale${unique}`, email: `Wf.${unique}@Example.ORG`, phoneNumber: `+49 ${phone.slice(0, 4)} ${phone.slice(4)}` };
  const otherPhone = digits('660');
  const other = { name: `Barnaby Quicksilver${unique}`, email: `Bq.${unique}@Example.NET`, phoneNumber: `+43 ${otherPhone.slice(0, 3)} ${otherPhone.slice(3)}` };
  const user = { name: `Leopoldine Ashcombe${unique}`, email: `La.${unique}@Example.COM` };
  const replayContact = () => call('POST', '/contacts', key, person, { 'Idempotency-Key': `contact-${unique}` });
  const first = await replayContact();
  expect(first.status, JSON.stringify(first.body)).to.equal(201);
  const contactId = first.body.data!.id as string;
  expect((await replayContact()).status).to.equal(201);
  const second = await call('POST', '/contacts', key, other);
  expect(second.status, JSON.stringify(second.body)).to.equal(201);
  expect((await call('DELETE', `/contacts/${second.body.data!.id as string}`, key)).status).to.equal(200);
  const replayUser = () => call('POST', `/admin/companies/${id}/users`, adminToken, user, { 'Idempotency-Key': `user-${unique}` });
  const madeUser = await replayUser();
  expect(madeUser.status, JSON.stringify(madeUser.body)).to.equal(201);
  const userId = madeUser.body.data!.id as string;
  const deal = await call('POST', '/deals', key, { title: `Deal ${unique}`, value: 100, currency: 'EUR', contactId, assignedToId: userId }, { 'Idempotency-Key': `deal-${unique}` });
  expect(deal.status, JSON.stringify(deal.body)).to.equal(201);
  expect((await call('PUT', `/deals/${deal.body.data!.id as string}/status`, key, { status: 'won' })).status).to.equal(200);
  expect((await call('GET', `/contacts?search=${encodeURIComponent(person.name)}`, key)).body.data).to.have.length(1);
  const values = [person.name, person.email, `+49${phone}`, other.name, other.email, `+43${otherPhone}`, user.name, user.email];
  return { id, key, contactId, userId, values, replayContact, replayUser };
};

/**
 * Two companies built alike; the first exported, then deleted with `now=true`. Then the first
 * answers 404 and is listed nowhere, its export too, its key 401; the second is untouched (its
 * contact, its replays, its values in the read models' bytes). None of the first's
 * values is in any byte the engine keeps, nor in what the processes wrote, after
 * the compaction, and again after a restart, a replay and a verify.
 */
const deleteAndScan = async (engine: Engine): Promise<void> => {
  const [ok, failing] = [await startCountingReceiver(200), await startCountingReceiver(500)];
  const env = { ...engine.env, LOG_LEVEL: 'debug', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_DELAYS_MS: '20,40', WEBHOOK_PAUSE_DELAYS_MS: '50' };
  const server = await startServer(env);
  let output = '';
  let gone: BuiltCompany | undefined;
  let kept: BuiltCompany | undefined;
  try {
    const call = caller(server);
    const issued = await runCli(['admin-tokens', 'create', '--name', 'company deletion test', '--json'], env);
    expect(issued.code, issued.stderr).to.equal(0);
    const adminToken = (JSON.parse(issued.stdout) as { token: string }).token;
    await eventually(async () => (await call('GET', '/admin/companies', adminToken)).status === 200, 10_000);
    gone = await buildCompany(call, env, adminToken, [ok, failing], 'gone');
    kept = await buildCompany(call, env, adminToken, [ok, failing], 'kept');
    // Each company's three subscriptions, to each receiver: contact.created, deal.created and deal.won.
    await eventually(() => ok.count() >= 6 && failing.count() >= 6, 15_000);

    expect((await call('DELETE', '/admin/companies/00000000-0000-4000-8000-000000000000', adminToken)).body).to.include({ error: 'Company not found' });
    const badNow = await call('DELETE', `/admin/companies/${gone.id}?now=soon`, adminToken);
    expect(badNow.status, JSON.stringify(badNow.body)).to.equal(422);
    expect(badNow.body.error).to.equal('Validation failed');
    expect((await call('GET', `/admin/companies/${gone.id}`, adminToken)).status, 'a refused delete records nothing').to.equal(200);

    // An export made before the deletion holds the company's values (in exports.sqlite, or in PostgreSQL's tables).
    const exported = await exportOverHttp(server.baseUrl, adminToken, gone.id);
    expect(exported.archive.toString('utf8')).to.contain(gone.values[1]);

    const deleted = await call('DELETE', `/admin/companies/${gone.id}?now=true`, adminToken);
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
    expect(Object.keys(deleted.body.data!).sort()).to.deep.equal(['deletionRequestedAt', 'eraseAfter', 'erasedAt', 'id']);
    expect(deleted.body.data!.id).to.equal(gone.id);

    // The company is gone everywhere the platform looks, its export with it.
    expect((await call('GET', exported.location, adminToken)).status).to.equal(404);
    expect((await call('GET', `/admin/companies/${gone.id}`, adminToken)).status).to.equal(404);
    expect((await call('DELETE', `/admin/companies/${gone.id}`, adminToken)).status).to.equal(404);
    expect((await call('DELETE', `/admin/companies/${gone.id}?now=true`, adminToken)).status).to.equal(404);
    expect((await call('GET', `/admin/companies/${gone.id}/users`, adminToken)).status).to.equal(404);
    expect((await call('GET', `/admin/companies/${gone.id}/keys`, adminToken)).status).to.equal(404);
    const listed = await call('GET', '/admin/companies?limit=100', adminToken);
    const ids = (listed.body.data as unknown as { id: string }[]).map((company) => company.id);
    expect(ids).to.include(kept.id).and.not.to.include(gone.id);
    const listedByCli = await runCli(['companies', 'list', '--json'], env);
    expect((JSON.parse(listedByCli.stdout) as { id: string }[]).map((company) => company.id)).not.to.include(gone.id);
    expect((await call('GET', '/test', gone.key)).status).to.equal(401);
    expect((await call('GET', `/contacts/${gone.contactId}`, gone.key)).status).to.equal(401);
    expect((await gone.replayUser()).status, 'the admin API\'s kept response of the user').to.equal(404);

    // The other company is untouched.
    const contact = await call('GET', `/contacts/${kept.contactId}`, kept.key);
    expect(contact.status).to.equal(200);
    expect(contact.body.data!.name).to.equal(kept.values[0]);
    const replayed = await kept.replayContact();
    expect([replayed.status, replayed.body.data!.id]).to.deep.equal([201, kept.contactId]);
    const replayedUser = await kept.replayUser();
    expect([replayedUser.status, replayedUser.body.data!.name]).to.deep.equal([201, kept.values[6]]);
    expect((await call('GET', `/admin/companies/${kept.id}/users`, adminToken)).body.data).to.have.length(1);
    const webhooks = await call('GET', '/webhooks', kept.key);
    expect(webhooks.body.data).to.have.length(6);

    const spellings = gone.values.flatMap(spellingsOf);
    if (engine.atOnce) expect(bytesFound(engine.atOnce(), spellings), 'values in the stored bytes at once').to.deep.equal([]);
  } finally {
    await server.stop();
    await ok.close();
    await failing.close();
    output = server.output();
  }

  const compacted = await runCli(['erasures', 'compact'], env);
  expect(compacted.code, compacted.stdout + compacted.stderr).to.equal(0);
  // Every person of the deleted company, and the company itself, has lost their key (what the log sealed of them is unreadable); no one else has.
  const exported = await runCli(['erasures', 'export'], env);
  expect(exported.code, exported.stderr).to.equal(0);
  const erasures = exported.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { kind: string; id: string; companyId: string });
  const ofGone = erasures.filter((erasure) => erasure.companyId === gone!.id);
  expect(ofGone.map((erasure) => erasure.kind).sort()).to.deep.equal(['company', 'contact', 'contact', 'user']);
  expect(ofGone.map((erasure) => erasure.id)).to.include(gone!.contactId).and.to.include(gone!.userId).and.to.include(gone!.id);
  expect(erasures.filter((erasure) => erasure.companyId === kept!.id)).to.deep.equal([]);
  const spellings = gone!.values.flatMap(spellingsOf);
  const files = await engine.files();
  expect(bytesFound(files, spellings), 'values in the stored bytes').to.deep.equal([]);
  expect(bytesFound(files, spellingsOf(kept!.values[0]!)), 'the other company\'s contact is still in the read models').not.to.deep.equal([]);
  expect(spellings.filter((spelling) => output.includes(spelling)), 'values in stdout and stderr').to.deep.equal([]);

  // Again after a restart, a replay of every read model and a verify.
  await noValuesAfterReplay(env, engine.files, spellings, compacted.stdout + compacted.stderr);
};

describe('deleting a company erases everything of it, and nothing of another', function () {
  this.timeout(240_000);

  it('on the embedded engine: every file under DATA_DIR, stdout and stderr', async () => {
    const dir = tempDir();
    try {
      await deleteAndScan({ env: { DATA_DIR: dir.path }, files: async () => filesUnder(dir.path), atOnce: () => filesUnder(dir.path) });
    } finally {
      dir.dispose();
    }
  });

  it('with the CLI: `chronicle companies delete` waits, asked again answers the same, `--now` erases', async () => {
    const dir = tempDir();
    try {
      const env = { DATA_DIR: dir.path, DELETED_COMPANIES_RETENTION_DAYS: '7' };
      const made = await runCli(['companies', 'create', '--name', 'Doomed Ltd', '--json'], env);
      expect(made.code, made.stderr).to.equal(0);
      const { id } = JSON.parse(made.stdout) as { id: string };
      const first = await runCli(['companies', 'delete', id, '--json'], env);
      expect(first.code, first.stderr).to.equal(0);
      const waiting = JSON.parse(first.stdout) as { id: string; deletionRequestedAt: string; eraseAfter: string };
      expect(waiting.id).to.equal(id);
      expect(Date.parse(waiting.eraseAfter) - Date.parse(waiting.deletionRequestedAt)).to.equal(7 * 86_400_000);
      const again = await runCli(['companies', 'delete', id, '--json'], env);
      expect(JSON.parse(again.stdout)).to.deep.equal(waiting);
      expect((JSON.parse((await runCli(['companies', 'list', '--json'], env)).stdout) as { id: string }[]).map((c) => c.id)).to.include(id);
      const now = await runCli(['companies', 'delete', id, '--now', '--json'], env);
      expect(now.code, now.stderr).to.equal(0);
      expect(JSON.parse(now.stdout)).to.include(waiting).and.to.have.property('erasedAt');
      expect((JSON.parse((await runCli(['companies', 'list', '--json'], env)).stdout) as { id: string }[]).map((c) => c.id)).not.to.include(id);
      const erased = await runCli(['companies', 'delete', id], env);
      expect(erased.code).to.equal(1);
      expect(erased.stderr).to.contain(`Company ${id} not found`);
      const unknown = await runCli(['companies', 'delete', 'no-such-company'], env);
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.contain('Company no-such-company not found');
    } finally {
      dir.dispose();
    }
  });

  if (!postgresServerInstalled()) {
    console.log('  skipped: company deletion on PostgreSQL (no PostgreSQL server under /usr/lib/postgresql)');
  } else {
    it('on PostgreSQL: a pg_dump, every file of the data directory but pg_wal, stdout and stderr', async () => {
      const dir = tempDir();
      let cluster: TestCluster | null = null;
      try {
        cluster = await startPostgresCluster();
        const url = cluster.url();
        const dump = join(dir.path, 'dump.sql');
        await deleteAndScan({
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
