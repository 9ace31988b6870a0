import { expect } from 'chai';
import { runCli, type CliRun } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';

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
  expect(run.code).to.equal(1);
  expect(run.stdout).to.equal('');
  expect(run.stderr).to.match(message);
};

interface Agent {
  id: string;
  name: string;
  description: string | null;
  status: 'active' | 'paused';
  channels: string[];
  language: string;
  createdAt: string;
  updatedAt: string;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const VIEW_KEYS = ['id', 'name', 'description', 'status', 'channels', 'language', 'createdAt', 'updatedAt'];

describe('chronicle CLI: agents', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let companyId: string;
  const cli = (...args: string[]) => runCli(args, env);
  const createAgent = async (...args: string[]): Promise<Agent & { companyId: string }> =>
    oneJson(await cli('agents', 'create', '--company', companyId, ...args, '--json'));

  before(async () => {
    dir = tempDir();
    env = { DATA_DIR: dir.path };
    companyId = oneJson<{ id: string }>(await cli('companies', 'create', '--name', 'Acme', '--json')).id;
  });
  after(() => dir.dispose());

  describe('agents create', () => {
    it('prints the agent with its company, with defaults filled in', async () => {
      const agent = await createAgent('--name', '  Support bot ');
      expect(Object.keys(agent)).to.deep.equal(['id', 'companyId', ...VIEW_KEYS.slice(1)]);
      expect(agent).to.deep.include({ companyId, name: 'Support bot', description: null, status: 'active', channels: ['webchat'], language: 'en' });
      expect(agent.id).to.match(/^[0-9a-f-]{36}$/);
      expect(agent.createdAt).to.match(ISO_MS);
      expect(agent.updatedAt).to.equal(agent.createdAt);
    });

    it('takes every field, canonicalising channels and the language tag', async () => {
      const agent = await createAgent(
        '--name', 'Sales bot',
        '--description', 'Qualifies leads',
        '--channels', 'voice, whatsapp,sms,whatsapp',
        '--language', 'de-de',
        '--status', 'paused',
      );
      expect(agent).to.deep.include({
        name: 'Sales bot',
        description: 'Qualifies leads',
        status: 'paused',
        channels: ['whatsapp', 'sms', 'voice'],
        language: 'de-DE',
      });
    });

    it('records AgentCreated with cli metadata and a new correlation id', async () => {
      const first = await createAgent('--name', 'Meta one');
      const second = await createAgent('--name', 'Meta two');
      const store = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
      try {
        const [a] = await store.readStream(`agent-${first.id}`);
        const [b] = await store.readStream(`agent-${second.id}`);
        expect(a!.type).to.equal('AgentCreated');
        expect(a!.metadata).to.include({ source: 'cli', companyId });
        expect(a!.metadata.correlationId).to.be.a('string').and.not.equal(b!.metadata.correlationId);
      } finally {
        await store.close();
      }
    });

    it('prints one readable line without --json', async () => {
      const line = oneLine(await cli('agents', 'create', '--company', companyId, '--name', 'Readable'));
      expect(line).to.match(/Created agent "Readable" in company \S+ with id [0-9a-f-]{36}/).and.contain('webchat');
    });

    it('refuses bad input, naming the option', async () => {
      failed(await cli('agents', 'create', '--company', companyId, '--name', ' '), /--name must be/);
      failed(await cli('agents', 'create', '--company', companyId, '--name', 'X', '--channels', 'sms,fax'), /--channels has unknown channel "fax"/);
      failed(await cli('agents', 'create', '--company', companyId, '--name', 'X', '--channels', ' , '), /--channels must name at least one/);
      failed(await cli('agents', 'create', '--company', companyId, '--name', 'X', '--language', 'en_US'), /--language must be a BCP 47 language tag/);
      failed(await cli('agents', 'create', '--company', companyId, '--name', 'X', '--status', 'sleeping'), /--status must be active or paused/);
      failed(await cli('agents', 'create', '--company', companyId, '--name', 'X', '--description', 'd'.repeat(1001)), /--description must be at most 1000/);
    });

    it('refuses an unknown company', async () =>
      failed(await cli('agents', 'create', '--company', 'no-such-company', '--name', 'X', '--json'), /Company no-such-company not found/));

    it('needs --company and --name', async () => {
      expect((await cli('agents', 'create', '--name', 'X')).code).to.not.equal(0);
      expect((await cli('agents', 'create', '--company', companyId)).code).to.not.equal(0);
    });
  });

  describe('agents update', () => {
    let agent: Agent;
    before(async () => (agent = await createAgent('--name', 'Changing', '--description', 'Before')));

    it('changes only the fields given and prints the view', async () => {
      const updated = oneJson<Agent>(await cli('agents', 'update', agent.id, '--status', 'paused', '--channels', 'email,sms', '--json'));
      expect(Object.keys(updated)).to.deep.equal(VIEW_KEYS);
      expect(updated).to.deep.include({ id: agent.id, name: 'Changing', description: 'Before', status: 'paused', channels: ['sms', 'email'], language: 'en' });
      expect(updated.createdAt).to.equal(agent.createdAt);
      expect(updated.updatedAt >= agent.updatedAt).to.equal(true);
    });

    it('clears the description with an empty value', async () => {
      const updated = oneJson<Agent>(await cli('agents', 'update', agent.id, '--description', '', '--language', 'FR', '--json'));
      expect(updated).to.include({ description: null, language: 'fr' });
    });

    it('records only the changed fields, and nothing for a no-op', async () => {
      const before = oneJson<Agent>(await cli('agents', 'update', agent.id, '--name', 'Renamed', '--status', 'paused', '--json'));
      const same = oneJson<Agent>(await cli('agents', 'update', agent.id, '--name', 'Renamed', '--channels', 'sms,email', '--json'));
      expect(same).to.deep.equal(before);
      const store = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
      try {
        const events = await store.readStream(`agent-${agent.id}`);
        expect(events.map((e) => e.type)).to.deep.equal(['AgentCreated', 'AgentUpdated', 'AgentUpdated', 'AgentUpdated']);
        expect((events.at(-1)!.data as { changes: unknown }).changes).to.deep.equal({ name: 'Renamed' });
        expect(events.at(-1)!.metadata).to.include({ source: 'cli', companyId });
      } finally {
        await store.close();
      }
    });

    it('prints one readable line without --json, saying what changed or that nothing did', async () => {
      expect(oneLine(await cli('agents', 'update', agent.id, '--status', 'active'))).to.match(/Updated agent "Renamed" \(\S+\): status/);
      expect(oneLine(await cli('agents', 'update', agent.id, '--status', 'active'))).to.match(/unchanged/);
    });

    it('refuses an unknown agent, no fields, and bad values', async () => {
      failed(await cli('agents', 'update', 'no-such-agent', '--status', 'paused', '--json'), /Agent no-such-agent not found/);
      failed(await cli('agents', 'update', agent.id, '--json'), /give at least one of/);
      failed(await cli('agents', 'update', agent.id, '--name', ''), /--name must be/);
      failed(await cli('agents', 'update', agent.id, '--channels', 'pager'), /--channels has unknown channel "pager"/);
    });
  });

  describe('agents list', () => {
    let listCompany: string;
    let created: Agent[];
    before(async () => {
      listCompany = oneJson<{ id: string }>(await cli('companies', 'create', '--name', 'Listed', '--json')).id;
      created = [];
      for (const name of ['One', 'Two', 'Three']) {
        created.push(oneJson<Agent>(await cli('agents', 'create', '--company', listCompany, '--name', name, '--json')));
      }
      oneJson(await cli('agents', 'update', created[1]!.id, '--status', 'paused', '--json'));
    });

    it("lists the company's agents in creation order, as views", async () => {
      const agents = oneJson<Agent[]>(await cli('agents', 'list', '--company', listCompany, '--json'));
      expect(agents.map((a) => a.name)).to.deep.equal(['One', 'Two', 'Three']);
      expect(Object.keys(agents[0]!)).to.deep.equal(VIEW_KEYS);
      expect(agents[1]).to.include({ id: created[1]!.id, status: 'paused' });
    });

    it('lists one readable line per agent without --json', async () => {
      const run = await cli('agents', 'list', '--company', listCompany);
      expect(run.code).to.equal(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).to.have.length(3);
      expect(lines[1]).to.contain(created[1]!.id).and.contain('paused').and.contain('Two');
    });

    it('lists an empty company as [] or a readable line', async () => {
      const empty = oneJson<{ id: string }>(await cli('companies', 'create', '--name', 'Empty', '--json')).id;
      expect(oneJson<unknown[]>(await cli('agents', 'list', '--company', empty, '--json'))).to.deep.equal([]);
      expect(oneLine(await cli('agents', 'list', '--company', empty))).to.contain('No agents');
    });

    it('refuses an unknown company', async () => failed(await cli('agents', 'list', '--company', 'nope', '--json'), /Company nope not found/));
  });
});
