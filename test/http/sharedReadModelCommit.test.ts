import { expect } from 'chai';
import Database from 'better-sqlite3';
import { ReadModelsLostError, SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { ThreadedReadModelStore } from '../../src/adapters/sqlite/ThreadedReadModelStore.js';
import { embeddedReadModelsFile } from '../../src/startup/adapters.js';
import { startHarness, type Harness } from '../support/httpHarness.js';

/** A fresh phone number per call (each test has a DATA_DIR of its own). */
let phones = 0;
const phone = () => `+1555000${phones++}`;

describe('HTTP: one process running the API and the projections (read-model batches on a thread, READ_MODEL_THREAD)', () => {
  let api: Harness;

  beforeEach(async () => {
    api = await startHarness();
  });
  afterEach(async () => api.close());

  it('applies the batches on a thread: a create’s next read waits for its commit, which another connection then sees too', async () => {
    expect(api.chronicle.stores.readModels).to.be.instanceOf(ThreadedReadModelStore);
    const created = await api.request('POST', '/contacts', { body: { name: 'On a thread', phoneNumber: phone() } });
    expect(created.status).to.equal(201);
    const id = (created.body as { data: { id: string } }).data.id;
    expect((await api.request('GET', `/contacts/${id}`)).status).to.equal(200);
    // Committed before the read was let through: no wait for another connection.
    const other = new Database(embeddedReadModelsFile(api.dataDir), { readonly: true });
    try {
      expect(other.prepare('SELECT 1 FROM contacts WHERE id = ?').pluck().get(id)).to.equal(1);
    } finally {
      other.close();
    }
  });
});

describe('HTTP: one process running the API and the projections, READ_MODEL_THREAD=false (read-model batches share a commit)', () => {
  let api: Harness;
  let store: SqliteReadModelStore;

  beforeEach(async () => {
    api = await startHarness({ READ_MODEL_THREAD: 'false' });
    expect(api.chronicle.stores.readModels).to.be.instanceOf(SqliteReadModelStore);
    store = api.chronicle.stores.readModels as SqliteReadModelStore;
  });
  afterEach(async () => api.close());

  it('reads its own write at once, and another connection to the file sees it once committed', async () => {
    const created = await api.request('POST', '/contacts', { body: { name: 'Shared commit', phoneNumber: phone() } });
    expect(created.status).to.equal(201);
    const id = (created.body as { data: { id: string } }).data.id;
    expect((await api.request('GET', `/contacts/${id}`)).status).to.equal(200);
    const other = new Database(store.db.name, { readonly: true });
    try {
      const row = other.prepare('SELECT 1 FROM contacts WHERE id = ?').pluck();
      const deadline = Date.now() + 5_000;
      while (row.get(id) === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(row.get(id)).to.equal(1);
    } finally {
      other.close();
    }
  });

  it('stops the process when batches its readers saw are lost before their commit', async () => {
    let rolledBack = false;
    for (let attempt = 0; attempt < 20 && !rolledBack; attempt++) {
      const created = await api.request('POST', '/contacts', { body: { name: 'Lost batch', phoneNumber: phone() } });
      expect(created.status).to.equal(201);
      // Still inside the shared transaction (unless its 20 ms ran out meanwhile: try again). As SQLite does on an I/O error.
      if (store.db.inTransaction) {
        store.db.exec('ROLLBACK');
        rolledBack = true;
      }
    }
    expect(rolledBack).to.equal(true);
    const failure = await Promise.race([api.chronicle.failed, new Promise((resolve) => setTimeout(() => resolve('no failure'), 5_000))]);
    expect(failure).to.be.instanceOf(ReadModelsLostError);
    expect((failure as ReadModelsLostError).message).to.match(/lost \d+ applied batch(es)? before their commit/);
  });
});
