import { expect } from 'chai';
import Database from 'better-sqlite3';
import { embeddedReadModelsFile } from '../../src/startup/adapters.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

interface ListedCompany {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

/**
 * A release that adds a read model, started on the read models of a release
 * before it: the new read model is created empty beside documents that applied
 * the log. It is built from the log before the projector resumes; a CLI listing
 * before that refuses instead of listing nothing.
 */
describe('a read model added by a release, on the read models of the release before', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let server: ServerProcess | null = null;

  beforeEach(() => {
    dir = tempDir('chronicle-added-read-model-');
    env = { DATA_DIR: dir.path, RUN_WEBHOOKS: 'false' };
  });
  afterEach(async () => {
    await server?.stop();
    server = null;
    dir.dispose();
  });

  const companiesListed = async (): Promise<ListedCompany[]> => {
    const run = await runCli(['companies', 'list', '--json'], env);
    expect(run.code, run.stderr).to.equal(0);
    return JSON.parse(run.stdout) as ListedCompany[];
  };

  it('is built from the log at the next start: the companies made before it are listed', async () => {
    server = await startServer(env);
    const demo = /company .+ \(([0-9a-f-]{36})\)/.exec(server.output())![1]!;
    expect(await server.stop()).to.equal(0);
    server = null;
    const created = await runCli(['companies', 'create', '--name', 'Made before the upgrade', '--json'], env);
    const made = (JSON.parse(created.stdout) as { id: string }).id;
    expect((await companiesListed()).map((company) => company.id)).to.deep.equal([demo, made]);

    // The read models as a release without the companies read model left them: no table, nothing to build.
    const file = new Database(embeddedReadModelsFile(dir.path));
    file.exec("DROP TABLE companies; DELETE FROM read_model_tables WHERE name = 'companies'");
    file.close();

    const refused = await runCli(['companies', 'list'], env);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/read models companies were added by this release and have not been built from the log yet/);
    expect(refused.stderr).to.match(/start the server .* or run `chronicle replay`/);

    server = await startServer(env);
    expect(server.output()).to.match(/read models added by this release: rebuilding every read model from the log/);
    expect(await server.stop()).to.equal(0);
    server = null;
    const listed = await companiesListed();
    expect(listed.map((company) => company.id)).to.deep.equal([demo, made]);
    expect(listed[1]).to.include({ name: 'Made before the upgrade' });
    const verified = await runCli(['verify'], env);
    expect(verified.code, verified.stdout + verified.stderr).to.equal(0);
  });

  it('lists nothing on a fresh folder, then each company as it is made, oldest first', async () => {
    expect(await companiesListed()).to.deep.equal([]);
    const plain = await runCli(['companies', 'list'], env);
    expect(plain.stdout.trim()).to.equal('No companies yet');
    for (const name of ['Acme', 'Globex']) await runCli(['companies', 'create', '--name', name], env);
    const listed = await companiesListed();
    expect(listed.map((company) => company.name)).to.deep.equal(['Acme', 'Globex']);
    const lines = (await runCli(['companies', 'list'], env)).stdout.trim().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(new RegExp(`^${listed[0]!.id}  Acme  \\(created .+\\)$`));
  });
});
