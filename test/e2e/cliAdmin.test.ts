import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServer, type CliRun } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/** stdout holds exactly one JSON document (one line) and nothing else. */
const oneJson = <T>(run: CliRun): T => {
  expect(run.code, run.stderr).to.equal(0);
  expect(run.stdout.endsWith('\n')).to.equal(true);
  expect(run.stdout.trimEnd().split('\n')).to.have.length(1);
  return JSON.parse(run.stdout) as T;
};

/** stdout is one readable line that is not JSON. */
const oneLine = (run: CliRun): string => {
  expect(run.code, run.stderr).to.equal(0);
  const lines = run.stdout.trimEnd().split('\n');
  expect(lines).to.have.length(1);
  expect(() => JSON.parse(lines[0]!)).to.throw();
  return lines[0]!;
};

const failed = (run: CliRun, message: RegExp): void => {
  expect(run.code).to.not.equal(0);
  expect(run.stdout).to.equal('');
  expect(run.stderr).to.match(message);
};

interface CreatedKey {
  id: string;
  key: string;
  companyId: string;
  name: string | null;
  type: string;
  permissions: string[];
  expiresAt: string | null;
}
interface ListedKey {
  id: string;
  companyId: string;
  name: string | null;
  type: string;
  permissions: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  keyHint: string;
  createdAt: string;
}

const ALL = ['contacts:read', 'contacts:write', 'deals:read', 'deals:write', 'agents:read', 'webhooks:read', 'webhooks:write'];

describe('chronicle CLI: companies, keys, users', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let companyId: string;
  const cli = (...args: string[]) => runCli(args, env);

  before(async () => {
    dir = tempDir();
    env = { DATA_DIR: dir.path };
    companyId = oneJson<{ id: string }>(await cli('companies', 'create', '--name', 'Acme', '--json')).id;
  });
  after(() => dir.dispose());

  describe('companies create', () => {
    it('prints {id, name} with --json', async () => {
      const company = oneJson<Record<string, unknown>>(await cli('companies', 'create', '--name', '  Globex ', '--json'));
      expect(Object.keys(company)).to.deep.equal(['id', 'name']);
      expect(company.name).to.equal('Globex');
      expect(company.id).to.match(/^[0-9a-f-]{36}$/);
    });
    it('prints one readable line without it', async () => {
      expect(oneLine(await cli('companies', 'create', '--name', 'Initech'))).to.match(/Created company "Initech" with id [0-9a-f-]{36}/);
    });
    it('refuses a blank name', async () => failed(await cli('companies', 'create', '--name', ' '), /--name must be/));
    it('refuses a name that lies: a bidirectional override, or nothing visible', async () => {
      failed(await cli('companies', 'create', '--name', 'Acme\u202Egnp.exe'), /--name must not contain bidirectional override or isolate characters \(U\+202A–U\+202E, U\+2066–U\+2069\)/);
      failed(await cli('users', 'create', '--company', companyId, '--name', '\u200B\u200D', '--email', 'x@example.com'), /--name must contain a visible character/);
      failed(await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--name', '\u2066Zapier\u2069'), /--name must not contain bidirectional/);
    });
  });

  describe('keys create', () => {
    it('prints the key once, with --json, and stores it nowhere in the SQLite files', async () => {
      const run = await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--json');
      const created = oneJson<CreatedKey>(run);
      expect(Object.keys(created)).to.deep.equal(['id', 'key', 'companyId', 'name', 'type', 'permissions', 'expiresAt']);
      expect(created).to.deep.include({ companyId, name: null, type: 'generic', permissions: ALL, expiresAt: null });
      expect(created.key).to.match(/^chr_[0-9A-Za-z]{36}$/);
      expect(run.stdout.split(created.key)).to.have.length(2);
      expect(run.stderr).to.not.contain(created.key);

      const random = created.key.slice(4, 34);
      const files = readdirSync(dir.path);
      expect(files).to.include('chronicle.sqlite');
      for (const file of files) {
        const bytes = readFileSync(join(dir.path, file));
        expect(bytes.includes(created.key), file).to.equal(false);
        expect(bytes.includes(random), file).to.equal(false);
      }
    });

    it('gives with --permissions all the seven permissions of the specification, never contacts:erase, and says so', async () => {
      const created = oneJson<CreatedKey>(await cli('keys', 'create', '--company', companyId, '--permissions', 'ALL', '--json'));
      expect(created.permissions).to.deep.equal(ALL);
      expect(created.permissions).to.not.include('contacts:erase');
      expect(oneLine(await cli('keys', 'create', '--company', companyId, '--permissions', 'all'))).to.contain('(generic, all permissions but contacts:erase, expires never)');
    });

    it('takes contacts:erase when it is named, alone or with others (after the seven), and names it in its line', async () => {
      const alone = oneJson<CreatedKey>(await cli('keys', 'create', '--company', companyId, '--permissions', 'contacts:erase', '--json'));
      expect(alone.permissions).to.deep.equal(['contacts:erase']);
      const withOthers = oneJson<CreatedKey>(await cli('keys', 'create', '--company', companyId, '--permissions', `contacts:erase,${ALL.join(',')}`, '--json'));
      expect(withOthers.permissions).to.deep.equal([...ALL, 'contacts:erase']);
      const line = oneLine(await cli('keys', 'create', '--company', companyId, '--permissions', 'deals:read,contacts:erase'));
      expect(line).to.contain('(generic, deals:read,contacts:erase, expires never)');
    });

    it('takes a permission list, a type and an expiry', async () => {
      const created = oneJson<CreatedKey>(
        await cli('keys', 'create', '--company', companyId, '--permissions', 'deals:write, contacts:read', '--type', 'zapier', '--expires-at', '2099-01-31T12:00:00+01:00', '--json'),
      );
      expect(created).to.deep.include({ type: 'zapier', permissions: ['contacts:read', 'deals:write'], expiresAt: '2099-01-31T11:00:00.000Z' });
    });

    it('takes a name, trimmed, and refuses a blank one', async () => {
      const created = oneJson<CreatedKey>(await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--name', ' Zapier production ', '--json'));
      expect(created.name).to.equal('Zapier production');
      expect(oneLine(await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--name', 'CRM sync'))).to.contain('"CRM sync"');
      failed(await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--name', '  '), /--name must be 1 to 200 characters/);
    });

    it('prints one readable line holding the key without --json', async () => {
      const line = oneLine(await cli('keys', 'create', '--company', companyId, '--permissions', 'contacts:read'));
      expect(line).to.match(/chr_[0-9A-Za-z]{36}/);
      expect(line).to.contain(companyId);
    });

    it('refuses an unknown company', async () =>
      failed(await cli('keys', 'create', '--company', 'no-such-company', '--permissions', 'all', '--json'), /Company no-such-company not found/));
    it('refuses an unknown permission, naming it and every permission there is', async () =>
      failed(
        await cli('keys', 'create', '--company', companyId, '--permissions', 'contacts:read,contacts:delete', '--json'),
        /unknown permission "contacts:delete"; give "all" \(every permission but contacts:erase\) or a comma-separated list of contacts:read, .*, webhooks:write, contacts:erase/,
      ));
    it('refuses an empty permission list', async () =>
      failed(await cli('keys', 'create', '--company', companyId, '--permissions', ',', '--json'), /--permissions is empty/));
    it('refuses an unknown type', async () =>
      failed(await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--type', 'ifttt'), /--type must be one of/));
    it('refuses an expiry in the past', async () =>
      failed(await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--expires-at', '2001-01-01T00:00:00Z'), /not in the future/));
    it('refuses an expiry that is not an ISO date-time', async () => {
      for (const bad of ['tomorrow', '2099-01-01', '2099-02-30T00:00:00Z', '2099-01-01T00:00:00']) {
        failed(await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--expires-at', bad), /--expires-at must be an ISO 8601 date-time/);
      }
    });
    it('needs --company and --permissions', async () => {
      expect((await cli('keys', 'create', '--permissions', 'all')).code).to.not.equal(0);
      expect((await cli('keys', 'create', '--company', companyId)).code).to.not.equal(0);
    });
  });

  describe('keys list and revoke', () => {
    let listCompany: string;
    let first: CreatedKey;
    let second: CreatedKey;
    before(async () => {
      listCompany = oneJson<{ id: string }>(await cli('companies', 'create', '--name', 'Listed', '--json')).id;
      first = oneJson<CreatedKey>(await cli('keys', 'create', '--company', listCompany, '--permissions', 'all', '--json'));
      second = oneJson<CreatedKey>(
        await cli('keys', 'create', '--company', listCompany, '--permissions', 'deals:read', '--type', 'make', '--name', 'Make scenario', '--json'),
      );
    });

    it("lists the company's keys in creation order with hints, never the keys", async () => {
      const run = await cli('keys', 'list', '--company', listCompany, '--json');
      const keys = oneJson<ListedKey[]>(run);
      expect(keys.map((k) => k.id)).to.deep.equal([first.id, second.id]);
      expect(Object.keys(keys[0]!)).to.deep.equal(['id', 'companyId', 'name', 'type', 'permissions', 'expiresAt', 'revokedAt', 'keyHint', 'createdAt']);
      expect(keys[0]!.name).to.equal(null);
      expect(keys[1]).to.deep.include({ companyId: listCompany, name: 'Make scenario', type: 'make', permissions: ['deals:read'], revokedAt: null, keyHint: `chr_...${second.key.slice(-4)}` });
      for (const key of [first, second]) expect(run.stdout).to.not.contain(key.key.slice(4, 34));
    });

    it('lists one readable line per key without --json', async () => {
      const run = await cli('keys', 'list', '--company', listCompany);
      expect(run.code).to.equal(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).to.have.length(2);
      expect(lines[0]).to.contain(first.id).and.contain(`chr_...${first.key.slice(-4)}`).and.contain('active').and.contain('(no name)');
      expect(lines[1]).to.contain('"Make scenario"');
      expect(run.stdout).to.not.contain(first.key);
    });

    it('lists an empty company as [] or a readable line', async () => {
      const empty = oneJson<{ id: string }>(await cli('companies', 'create', '--name', 'Empty', '--json')).id;
      expect(oneJson<unknown[]>(await cli('keys', 'list', '--company', empty, '--json'))).to.deep.equal([]);
      expect(oneLine(await cli('keys', 'list', '--company', empty))).to.contain('No API keys');
    });

    it('refuses to list an unknown company', async () => failed(await cli('keys', 'list', '--company', 'nope'), /Company nope not found/));

    it('revokes a key, which the list then shows, and refuses to revoke it twice', async () => {
      const revoked = oneJson<{ id: string; revoked: boolean; revokedAt: string }>(await cli('keys', 'revoke', first.id, '--json'));
      expect(Object.keys(revoked)).to.deep.equal(['id', 'revoked', 'revokedAt']);
      expect(revoked).to.include({ id: first.id, revoked: true });
      expect(Date.parse(revoked.revokedAt)).to.be.closeTo(Date.now(), 60_000);

      const keys = oneJson<ListedKey[]>(await cli('keys', 'list', '--company', listCompany, '--json'));
      expect(keys.find((k) => k.id === first.id)?.revokedAt).to.equal(revoked.revokedAt);
      expect(keys.find((k) => k.id === second.id)?.revokedAt).to.equal(null);
      expect((await cli('keys', 'list', '--company', listCompany)).stdout).to.contain(`revoked ${revoked.revokedAt}`);

      failed(await cli('keys', 'revoke', first.id, '--json'), /already revoked/);
    });

    it('revokes with one readable line, and refuses an unknown key', async () => {
      expect(oneLine(await cli('keys', 'revoke', second.id))).to.contain(`Revoked API key ${second.id}`);
      failed(await cli('keys', 'revoke', 'no-such-key'), /API key no-such-key not found/);
    });
  });

  describe('users create', () => {
    it('prints {id, companyId, name, email, createdAt} with --json', async () => {
      const user = oneJson<Record<string, unknown>>(await cli('users', 'create', '--company', companyId, '--name', 'Ada Lovelace', '--email', 'ada@Example.com', '--json'));
      expect(Object.keys(user)).to.deep.equal(['id', 'companyId', 'name', 'email', 'createdAt']);
      expect(user).to.include({ companyId, name: 'Ada Lovelace', email: 'ada@example.com' });
    });
    it('prints one readable line without it', async () => {
      expect(oneLine(await cli('users', 'create', '--company', companyId, '--name', 'Grace', '--email', 'grace@example.com'))).to.contain('grace@example.com');
    });
    it('refuses a bad email and an unknown company', async () => {
      failed(await cli('users', 'create', '--company', companyId, '--name', 'X', '--email', 'not-an-email'), /--email must be an email address/);
      failed(await cli('users', 'create', '--company', 'nope', '--name', 'X', '--email', 'x@example.com'), /Company nope not found/);
    });
  });

  describe('console link', () => {
    it('prints {url, expiresAt} with --json: a link at CONSOLE_PUBLIC_URL and BASE_PATH, valid 15 minutes', async () => {
      const before = Date.now();
      const link = oneJson<{ url: string; expiresAt: string }>(
        await runCli(['console', 'link', '--company', companyId, '--json'], { ...env, CONSOLE_PUBLIC_URL: 'https://api.example.com/', BASE_PATH: '/api/external' }),
      );
      const after = Date.now();
      expect(Object.keys(link)).to.deep.equal(['url', 'expiresAt']);
      expect(link.url).to.match(/^https:\/\/api\.example\.com\/api\/external\/console\/login\?token=[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
      // Issued between `before` and `after`: at most 15 minutes on from then.
      expect(Date.parse(link.expiresAt)).to.be.within(before + 14 * 60_000, after + 15 * 60_000);
    });
    it('prints one readable line without it, at this machine’s address by default', async () => {
      expect(oneLine(await cli('console', 'link', '--company', companyId))).to.match(/valid once until .*: http:\/\/localhost:3000\/console\/login\?token=/);
    });
    it('refuses an unknown company', async () => failed(await cli('console', 'link', '--company', 'nope'), /Company nope not found/));
  });

  describe('while the server runs on the same SQLite file', () => {
    it('creates, lists and revokes keys', async () => {
      const server = await startServer(env);
      try {
        const company = oneJson<{ id: string }>(await cli('companies', 'create', '--name', 'Live', '--json')).id;
        const key = oneJson<CreatedKey>(await cli('keys', 'create', '--company', company, '--permissions', 'all', '--json'));
        oneJson(await cli('keys', 'revoke', key.id, '--json'));
        const keys = oneJson<ListedKey[]>(await cli('keys', 'list', '--company', company, '--json'));
        expect(keys).to.have.length(1);
        expect(keys[0]!.revokedAt).to.be.a('string');
        expect((await fetch(`${server.baseUrl}/health`)).status).to.equal(200);
      } finally {
        expect(await server.stop()).to.equal(0);
      }
    });
  });
});
