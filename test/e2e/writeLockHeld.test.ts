import { expect } from 'chai';
import Database from 'better-sqlite3';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

describe('chronicle serve while another process holds the log’s write lock (the CLI, another API process)', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess | null = null;
  let holder: Database.Database | null = null;

  beforeEach(() => {
    dir = tempDir('chronicle-lock-held-');
  });
  afterEach(async () => {
    if (holder?.inTransaction) holder.exec('ROLLBACK');
    holder?.close();
    holder = null;
    await server?.stop();
    server = null;
    dir.dispose();
  });

  it('keeps answering other requests while a write waits for the lock, and stores the write once it is free', async () => {
    server = await startServer({ DATA_DIR: dir.path, RUN_WEBHOOKS: 'false' });
    const key = /API key (chr_\w+)/.exec(server.output())![1]!;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const get = async (path: string) => {
      const response = await fetch(`${server!.baseUrl}${path}`, { headers });
      await response.arrayBuffer();
      return response.status;
    };

    holder = new Database(embeddedDatabaseFile(dir.path));
    holder.exec('BEGIN IMMEDIATE');
    let written = false;
    const write = fetch(`${server.baseUrl}/contacts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Waited for the lock', phoneNumber: '+4930100077' }),
    }).finally(() => (written = true));
    // The create reaches its group commit and finds the lock taken; the server goes on serving.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = [await get('/health'), await get('/contacts?limit=1'), await get('/health')];
    expect(during).to.deep.equal([200, 200, 200]);
    // Answered while the write still waits, held until the lock comes free (a loop asleep in SQLite would
    // have answered them only after its busy timeout, the write failed by then).
    expect(written, 'the write still waits for the lock').to.equal(false);
    holder.exec('COMMIT');

    const created = await write;
    expect(created.status, 'stored once the lock came free').to.equal(201);
    const { data } = (await created.json()) as { data: { id: string } };
    expect(await get(`/contacts/${data.id}`)).to.equal(200);
  });
});
