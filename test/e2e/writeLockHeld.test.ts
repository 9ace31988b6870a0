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
    const timed = async (path: string) => {
      const started = performance.now();
      const response = await fetch(`${server!.baseUrl}${path}`, { headers });
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started };
    };

    holder = new Database(embeddedDatabaseFile(dir.path));
    holder.exec('BEGIN IMMEDIATE');
    const heldAt = performance.now();
    const write = fetch(`${server.baseUrl}/contacts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Waited for the lock', phoneNumber: '+4930100077' }),
    });
    // The create reaches its group commit and finds the lock taken; the server goes on serving.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = [await timed('/health'), await timed('/contacts?limit=1'), await timed('/health')];
    expect(during.map(({ status }) => status)).to.deep.equal([200, 200, 200]);
    // Each within a fraction of the hold (a loop asleep in SQLite would answer only after it).
    for (const { ms } of during) expect(ms).to.be.below(150);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 600 - (performance.now() - heldAt))));
    holder.exec('COMMIT');
    const released = performance.now();

    const created = await write;
    expect(created.status).to.equal(201);
    expect(performance.now() - released, 'stored soon after the lock came free').to.be.below(1_000);
    const { data } = (await created.json()) as { data: { id: string } };
    expect((await timed(`/contacts/${data.id}`)).status).to.equal(200);
  });
});
