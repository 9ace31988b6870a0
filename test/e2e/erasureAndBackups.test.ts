import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { eventually } from '../support/events.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';
import { bytesFound, filesUnder, spellingsOf } from '../support/personalValues.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../support/postgres.js';
import { skipLine } from '../support/integration.js';

const run = promisify(execFile);

/** A person with values no other test uses, and every spelling of them. */
const uniquePerson = () => {
  const unique = randomBytes(4).toString('hex');
  const phoneDigits = `1512${String(parseInt(unique, 16) % 10_000_000).padStart(7, '0')}`;
  const person = {
    name: `Hieronyma Backupwell${unique}`,
    email: `hb.${unique}@example.org`,
    phoneNumber: `+49 ${phoneDigits.slice(0, 4)} ${phoneDigits.slice(4)}`,
    city: `Restorfeld${unique}`,
  };
  const spellings = [person.name, person.email, `+49${phoneDigits}`, person.city].flatMap(spellingsOf);
  return { person, spellings };
};

/** DATA_DIR's files put back as they were in `backup` (the server stopped): what an operator's restore does. */
const restore = (backup: string, dataDir: string): void => {
  for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { recursive: true, force: true });
  cpSync(backup, dataDir, { recursive: true });
};

interface Api {
  readonly companyId: string;
  readonly key: string;
  readonly eraser: string;
}

/** On the first start of an empty DATA_DIR: the demo company, a key with every permission and one that erases. */
const keysOf = async (server: ServerProcess, env: NodeJS.ProcessEnv): Promise<Api> => {
  const companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())?.[1];
  expect(companyId, server.output()).to.be.a('string');
  const keyWith = async (permissions: string): Promise<string> => {
    const created = await runCli(['keys', 'create', '--company', companyId!, '--permissions', permissions, '--json'], env);
    expect(created.code, created.stderr).to.equal(0);
    return (JSON.parse(created.stdout) as { key: string }).key;
  };
  return { companyId: companyId!, key: await keyWith('all'), eraser: await keyWith('contacts:erase') };
};

const call = async (server: ServerProcess, key: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as { data?: any } & Record<string, unknown> };
};

/** Waits until both keys are known to the server (made by the CLI, in another process). */
const keysReady = (server: ServerProcess, api: Api): Promise<void> =>
  eventually(async () => (await call(server, api.key, 'GET', '/test')).status === 200 && (await call(server, api.eraser, 'GET', '/test')).status === 200, 10_000);

const createContact = async (server: ServerProcess, api: Api, person: object): Promise<string> => {
  const created = await call(server, api.key, 'POST', '/contacts', person);
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data.id as string;
};

const erase = async (server: ServerProcess, api: Api, contactId: string): Promise<void> => {
  const erased = await call(server, api.eraser, 'POST', `/contacts/${contactId}/erase`, {});
  expect(erased.status, JSON.stringify(erased.body)).to.equal(200);
};

/** The contact is gone from every view the API has: 404, and no search finds it. */
const expectGone = async (server: ServerProcess, api: Api, contactId: string, name: string): Promise<void> => {
  expect((await call(server, api.key, 'GET', `/contacts/${contactId}`)).status).to.equal(404);
  expect((await call(server, api.key, 'GET', `/contacts?search=${encodeURIComponent(name)}`)).body.data).to.deep.equal([]);
};

describe('restoring a backup taken before an erasure', function () {
  this.timeout(180_000);
  let dirs: { path: string; dispose: () => void }[] = [];
  const folder = (): string => {
    const dir = tempDir();
    dirs.push(dir);
    return dir.path;
  };
  afterEach(() => {
    for (const dir of dirs) dir.dispose();
    dirs = [];
  });

  it('with ERASURE_JOURNAL, the next start erases the person again before it answers: 404, and after the compaction no byte of DATA_DIR holds their values', async () => {
    const [dataDir, backup, journalDir] = [folder(), folder(), folder()];
    const journal = join(journalDir, 'erasures.jsonl');
    const env = { DATA_DIR: dataDir, ERASURE_JOURNAL: journal, LOG_LEVEL: 'debug' };
    const { person, spellings } = uniquePerson();
    let output = '';

    const first = await startServer(env);
    let api: Api;
    let contactId: string;
    try {
      api = await keysOf(first, env);
      await keysReady(first, api);
      contactId = await createContact(first, api, person);
      expect((await call(first, api.key, 'GET', `/contacts?search=${encodeURIComponent(person.name)}`)).body.data).to.have.length(1);
    } finally {
      await first.stop();
      output += first.output();
    }
    cpSync(dataDir, backup, { recursive: true });

    const second = await startServer(env);
    try {
      await erase(second, api, contactId);
      await expectGone(second, api, contactId, person.name);
    } finally {
      await second.stop();
      output += second.output();
    }
    const lines = readFileSync(journal, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>).map(({ erasedAt, ...line }) => ((erasedAt as string).length > 0 ? line : null))).to.deep.equal([
      { kind: 'contact', id: contactId, companyId: api.companyId },
    ]);
    expect(spellings.filter((spelling) => lines.join('\n').includes(spelling)), 'values in the journal').to.deep.equal([]);

    restore(backup, dataDir);
    expect(bytesFound(filesUnder(dataDir), spellings), 'the restored backup holds the values').not.to.deep.equal([]);

    const third = await startServer(env);
    try {
      await expectGone(third, api, contactId, person.name);
      const history = await call(third, api.key, 'GET', `/contacts/${contactId}/history`);
      expect(JSON.stringify(history.body)).not.to.contain(person.name);
      expect(third.output()).to.match(/erasure journal re-applied/);
    } finally {
      await third.stop();
      output += third.output();
    }
    // Re-applied once: the journal keeps its one line.
    expect(readFileSync(journal, 'utf8').trimEnd().split('\n')).to.have.length(1);
    const compacted = await runCli(['erasures', 'compact'], env);
    expect(compacted.code, compacted.stdout + compacted.stderr).to.equal(0);
    expect(bytesFound(filesUnder(dataDir), spellings), 'values in the stored bytes').to.deep.equal([]);
    expect(spellings.filter((spelling) => output.includes(spelling)), 'values in stdout and stderr').to.deep.equal([]);
    const verified = await runCli(['verify'], env);
    expect(verified.code, verified.stdout + verified.stderr).to.equal(0);
  });

  it('with ERASURE_JOURNAL, a company deleted after the backup is suspended again at the next start, then erased by its sweep: no byte of DATA_DIR holds its people\'s values', async () => {
    const [dataDir, backup, journalDir] = [folder(), folder(), folder()];
    const journal = join(journalDir, 'erasures.jsonl');
    const env = { DATA_DIR: dataDir, ERASURE_JOURNAL: journal, LOG_LEVEL: 'debug', DELETED_RECORDS_SWEEP_SECONDS: '1' };
    const { person, spellings } = uniquePerson();
    let output = '';

    const first = await startServer(env);
    let api: Api;
    let contactId: string;
    let adminToken: string;
    try {
      api = await keysOf(first, env);
      await keysReady(first, api);
      contactId = await createContact(first, api, person);
      const issued = await runCli(['admin-tokens', 'create', '--name', 'backup test', '--json'], env);
      expect(issued.code, issued.stderr).to.equal(0);
      adminToken = (JSON.parse(issued.stdout) as { token: string }).token;
      await eventually(async () => (await call(first, adminToken, 'GET', `/admin/companies/${api.companyId}`)).status === 200, 10_000);
    } finally {
      await first.stop();
      output += first.output();
    }
    cpSync(dataDir, backup, { recursive: true });

    const second = await startServer(env);
    try {
      const deleted = await call(second, adminToken, 'DELETE', `/admin/companies/${api.companyId}?now=true`);
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
    } finally {
      await second.stop();
      output += second.output();
    }
    const lines = readFileSync(journal, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { kind: string; id: string });
    expect(lines.map(({ kind, id }) => [kind, id])).to.deep.equal([
      ['contact', contactId],
      ['company', api.companyId],
    ]);

    restore(backup, dataDir);
    const third = await startServer(env);
    try {
      // Suspended before the first answer: the deletion asked for again, due at once.
      const refused = await call(third, api.key, 'GET', '/test');
      expect([403, 401]).to.include(refused.status);
      // The projector's sweep erases it: 404 for the platform, 401 for its keys.
      await eventually(async () => (await call(third, adminToken, 'GET', `/admin/companies/${api.companyId}`)).status === 404, 20_000);
      expect((await call(third, api.key, 'GET', `/contacts/${contactId}`)).status).to.equal(401);
      expect(third.output()).to.match(/erasure journal re-applied/);
    } finally {
      await third.stop();
      output += third.output();
    }
    const compacted = await runCli(['erasures', 'compact'], env);
    expect(compacted.code, compacted.stdout + compacted.stderr).to.equal(0);
    expect(bytesFound(filesUnder(dataDir), spellings), 'values in the stored bytes').to.deep.equal([]);
    expect(spellings.filter((spelling) => output.includes(spelling)), 'values in stdout and stderr').to.deep.equal([]);
  });

  it('without a journal, `erasures export` then `erasures reapply` after the restore erases them again; a second reapply applies none, and a contact made after the backup is counted apart', async () => {
    const [dataDir, backup, exportDir] = [folder(), folder(), folder()];
    const exported = join(exportDir, 'erasures.jsonl');
    const env = { DATA_DIR: dataDir };
    const before = uniquePerson();
    const after = uniquePerson();

    // A user too, erased through the admin API.
    const userName = `Ottilie Usermark${randomBytes(4).toString('hex')}`;
    const userSpellings = [userName, `${userName.replace(/\s/g, '.').toLowerCase()}@example.org`].flatMap(spellingsOf);

    const first = await startServer(env);
    // Made before the backup, so that the restored log has it too.
    const adminToken = await runCli(['admin-tokens', 'create', '--name', 'erasures', '--json'], env);
    expect(adminToken.code, adminToken.stderr).to.equal(0);
    const admin = (JSON.parse(adminToken.stdout) as { token: string }).token;
    let api: Api;
    let contactId: string;
    let userId: string;
    try {
      api = await keysOf(first, env);
      await keysReady(first, api);
      contactId = await createContact(first, api, before.person);
      const user = await runCli(['users', 'create', '--company', api.companyId, '--name', userName, '--email', `${userName.replace(/\s/g, '.').toLowerCase()}@example.org`, '--json'], env);
      expect(user.code, user.stderr).to.equal(0);
      userId = (JSON.parse(user.stdout) as { id: string }).id;
    } finally {
      await first.stop();
    }
    cpSync(dataDir, backup, { recursive: true });

    const second = await startServer(env);
    let laterId: string;
    try {
      laterId = await createContact(second, api, after.person);
      await erase(second, api, contactId);
      await erase(second, api, laterId);
      // The token, made by the CLI, is known once the server's read models have it.
      await eventually(async () => (await call(second, admin, 'GET', `/admin/companies/${api.companyId}/users`)).status === 200, 10_000);
      const erasedUser = await call(second, admin, 'POST', `/admin/companies/${api.companyId}/users/${userId}/erase`, {});
      expect(erasedUser.status, JSON.stringify(erasedUser.body)).to.equal(200);
    } finally {
      await second.stop();
    }
    const written = await runCli(['erasures', 'export', '--out', exported], env);
    expect(written.code, written.stderr).to.equal(0);
    expect(written.stdout).to.contain('Wrote 3 erasures');
    const lines = readFileSync(exported, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; id: string; companyId: string; erasedAt: string });
    expect(lines.map(({ kind, id, companyId }) => ({ kind, id, companyId }))).to.have.deep.members([
      { kind: 'contact', id: contactId, companyId: api.companyId },
      { kind: 'contact', id: laterId, companyId: api.companyId },
      { kind: 'user', id: userId, companyId: api.companyId },
    ]);
    const toStdout = await runCli(['erasures', 'export'], env);
    expect(toStdout.stdout.trimEnd()).to.equal(readFileSync(exported, 'utf8').trimEnd());

    restore(backup, dataDir);
    const reapplied = await runCli(['erasures', 'reapply', exported, '--json'], env);
    expect(reapplied.code, reapplied.stderr).to.equal(0);
    expect(JSON.parse(reapplied.stdout)).to.deep.equal({ applied: 2, skipped: 0, unknown: 1 });
    const again = await runCli(['erasures', 'reapply', exported], env);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.match(/^Applied 0, skipped 3: 3 erased here already, 0 of subjects/);

    const third = await startServer(env);
    try {
      await expectGone(third, api, contactId, before.person.name);
      const history = await call(third, api.key, 'GET', `/contacts/${contactId}/history`);
      expect(history.status).to.equal(200);
      const erasedItem = (history.body.data as { type?: string; eventType?: string; metadata?: { source?: string } }[]).at(-1);
      expect(JSON.stringify(erasedItem)).to.contain('ContactErased');
      expect(erasedItem?.metadata?.source).to.equal('system');
      expect(JSON.stringify(history.body)).not.to.contain(before.person.name);
      await eventually(async () => (await call(third, admin, 'GET', `/admin/companies/${api.companyId}/users`)).status === 200, 10_000);
      const users = await call(third, admin, 'GET', `/admin/companies/${api.companyId}/users`);
      expect((users.body.data as { id: string }[]).map(({ id }) => id)).not.to.include(userId);
    } finally {
      await third.stop();
    }
    const compacted = await runCli(['erasures', 'compact'], env);
    expect(compacted.code, compacted.stdout + compacted.stderr).to.equal(0);
    expect(bytesFound(filesUnder(dataDir), before.spellings), 'values in the stored bytes').to.deep.equal([]);
    expect(bytesFound(filesUnder(dataDir), userSpellings), 'the user’s values in the stored bytes').to.deep.equal([]);
    // Never in this log, and its key, made by nobody here, is recorded as erased: it could never be sealed again.
    expect(bytesFound(filesUnder(dataDir), after.spellings), 'the later contact’s values').to.deep.equal([]);
  });

  it('a journal line that is not an erasure stops the start: exit code not 0, the line named, nothing left listening', async () => {
    const [dataDir, journalDir] = [folder(), folder()];
    const journal = join(journalDir, 'erasures.jsonl');
    writeFileSync(journal, '{"kind":"contact","id":"c-1","companyId":"co-1","erasedAt":"2026-03-01T10:00:00.000Z"}\n{"kind":"contact","id":"c-2"}\n');
    let failure: Error | null = null;
    try {
      const server = await startServer({ DATA_DIR: dataDir, ERASURE_JOURNAL: journal });
      await server.stop();
    } catch (error) {
      failure = error as Error;
    }
    expect(failure?.message).to.match(/server exited with [1-9]\d* before listening/);
    expect(failure?.message).to.contain('line 2: not an erasure');
  });

  it('a journal inside DATA_DIR is refused as a configuration error', async () => {
    const dataDir = folder();
    const refused = await runCli(['erasures', 'export'], { DATA_DIR: dataDir, ERASURE_JOURNAL: join(dataDir, 'erasures.jsonl') });
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.contain('ERASURE_JOURNAL must be outside DATA_DIR');
  });

  if (!postgresTestUrl()) {
    skipLine('restoring a PostgreSQL dump taken before an erasure', 'POSTGRES_TEST_URL');
    return;
  }

  it('on PostgreSQL: a pg_dump taken before the erasure, restored into a fresh database, then `erasures reapply` of the export: 404, and no dump of it holds the values', async () => {
    const databases: FreshDatabase[] = [];
    try {
      const [before, restored] = [await freshPostgresDatabase(), await freshPostgresDatabase()];
      databases.push(before, restored);
      const [dataDir, work] = [folder(), folder()];
      const [dump, exported, after] = [join(work, 'before.sql'), join(work, 'erasures.jsonl'), join(work, 'after.sql')];
      const env = { DATA_DIR: dataDir, POSTGRES_URL: before.url };
      const { person, spellings } = uniquePerson();

      const first = await startServer(env);
      let api: Api;
      let contactId: string;
      try {
        api = await keysOf(first, env);
        await keysReady(first, api);
        contactId = await createContact(first, api, person);
      } finally {
        await first.stop();
      }
      await run('pg_dump', ['--dbname', before.url, '--file', dump]);

      const second = await startServer(env);
      try {
        await erase(second, api, contactId);
      } finally {
        await second.stop();
      }
      const written = await runCli(['erasures', 'export', '--out', exported], env);
      expect(written.code, written.stderr).to.equal(0);

      await run('psql', ['--dbname', restored.url, '--quiet', '--set', 'ON_ERROR_STOP=1', '--file', dump]);
      const restoredEnv = { DATA_DIR: folder(), POSTGRES_URL: restored.url };
      const reapplied = await runCli(['erasures', 'reapply', exported, '--json'], restoredEnv);
      expect(reapplied.code, reapplied.stderr).to.equal(0);
      expect(JSON.parse(reapplied.stdout)).to.deep.equal({ applied: 1, skipped: 0, unknown: 0 });

      const third = await startServer(restoredEnv);
      try {
        await expectGone(third, api, contactId, person.name);
      } finally {
        await third.stop();
      }
      const compacted = await runCli(['erasures', 'compact'], restoredEnv);
      expect(compacted.code, compacted.stdout + compacted.stderr).to.equal(0);
      await run('pg_dump', ['--dbname', restored.url, '--file', after]);
      expect(bytesFound([after], spellings), 'values in a dump of the restored database').to.deep.equal([]);
      expect(bytesFound([dump], spellings), 'the dump before held them').not.to.deep.equal([]);
    } finally {
      for (const database of databases) await database.drop();
    }
  });
});
