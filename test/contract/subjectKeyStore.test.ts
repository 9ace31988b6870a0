import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { MemorySubjectKeyStore } from '../../src/adapters/memory/MemorySubjectKeyStore.js';
import { PostgresSubjectKeyStore } from '../../src/adapters/postgres/PostgresSubjectKeyStore.js';
import { LOG_FILE_MIGRATIONS, openSqliteDatabase, openWalDatabase } from '../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteSubjectKeyStore } from '../../src/adapters/sqlite/SqliteSubjectKeyStore.js';
import { openPostgresStores } from '../../src/adapters/postgres/openPostgresStores.js';
import { loadConfig } from '../../src/config.js';
import { embeddedDatabaseFile, openStores } from '../../src/startup/adapters.js';
import { closeStores } from '../../src/startup/Stores.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';
import { tempDir } from '../support/tempStore.js';
import { newKeyText, newSubject, subjectKeyStoreContract, type SubjectKeyStoreUnderTest } from './subjectKeyStore.contract.js';

/** One PostgreSQL database for this file's fixtures (POSTGRES_TEST_URL). */
const postgresDatabase = postgresTestUrl() ? databaseForThisFile() : () => Promise.reject(new Error('POSTGRES_TEST_URL is not set'));

subjectKeyStoreContract('memory', async () => ({ store: new MemorySubjectKeyStore(), reopen: null, dispose: async () => undefined }), { shared: false });

subjectKeyStoreContract('SQLite (its own connection)', async () => {
  const dir = tempDir('chronicle-subject-keys-');
  const file = join(dir.path, 'chronicle.sqlite');
  const store = SqliteSubjectKeyStore.open(file);
  return {
    store,
    reopen: async () => SqliteSubjectKeyStore.open(file),
    dispose: async () => {
      await store.close();
      dir.dispose();
    },
  };
});

subjectKeyStoreContract('SQLite (on the event store’s connection)', async () => {
  const dir = tempDir('chronicle-subject-keys-');
  const file = join(dir.path, 'chronicle.sqlite');
  const eventStore = SqliteEventStore.open(file);
  const store = new SqliteSubjectKeyStore(eventStore.db);
  return {
    store,
    reopen: async () => SqliteSubjectKeyStore.open(file),
    dispose: async () => {
      // The shared connection is the event store's: closing the key store leaves it open.
      await store.close();
      await eventStore.close();
      dir.dispose();
    },
  };
});

/** Those of `texts` whose bytes (UTF-8) are in the file as it is on disk now; none when it does not exist. */
const foundIn = (file: string, texts: readonly string[]): string[] => {
  if (!existsSync(file)) return [];
  const bytes = readFileSync(file);
  return texts.filter((text) => bytes.includes(Buffer.from(text)));
};

describe('SqliteSubjectKeyStore: an erased key’s bytes', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let file: string;
  beforeEach(() => {
    dir = tempDir('chronicle-subject-keys-');
    file = join(dir.path, 'chronicle.sqlite');
  });
  afterEach(() => dir.dispose());

  it('are in neither the database file nor its WAL once erased, while open and after', async () => {
    const eventStore = SqliteEventStore.open(file);
    const store = new SqliteSubjectKeyStore(eventStore.db);
    try {
      // Enough rows for pages to fill and split as they come: a split moves keys too.
      const subjects = Array.from({ length: 600 }, () => newSubject());
      const keys = new Map(subjects.map((subject) => [subject, newKeyText()]));
      for (let i = 0; i < 300; i += 30) await store.putIfAbsent(new Map(subjects.slice(i, i + 30).map((subject) => [subject, keys.get(subject)!])));
      // The first half's pages copied into the file; the second half's only in the WAL.
      eventStore.db.pragma('wal_checkpoint(PASSIVE)');
      for (let i = 300; i < 600; i += 30) await store.putIfAbsent(new Map(subjects.slice(i, i + 30).map((subject) => [subject, keys.get(subject)!])));
      const erased = subjects.filter((_, i) => i % 3 === 0);
      const kept = subjects.filter((_, i) => i % 3 !== 0);
      const erasedKeys = erased.map((subject) => keys.get(subject)!);
      const keptKeys = kept.map((subject) => keys.get(subject)!);
      // The scan finds keys where they are.
      expect(foundIn(file, erasedKeys).length, 'in the file before').to.be.greaterThan(0);
      expect(foundIn(`${file}-wal`, erasedKeys).length, 'in the WAL before').to.be.greaterThan(0);

      for (const subject of erased) await store.erase(subject, new Date());

      expect(foundIn(file, erasedKeys), 'in the file').to.deep.equal([]);
      expect(foundIn(`${file}-wal`, erasedKeys), 'in the WAL').to.deep.equal([]);
      expect(new Set([...foundIn(file, keptKeys), ...foundIn(`${file}-wal`, keptKeys)]).size, 'the keys kept').to.equal(keptKeys.length);
      expect((await store.get(kept)).size).to.equal(kept.length);
      await store.close();
      await eventStore.close();
      expect(foundIn(file, erasedKeys), 'in the file, closed').to.deep.equal([]);
      expect(foundIn(`${file}-wal`, erasedKeys), 'in the WAL, closed').to.deep.equal([]);
      expect(foundIn(file, keptKeys), 'the keys kept, closed').to.have.length(keptKeys.length);
    } finally {
      await store.close();
      await eventStore.close();
    }
  });

  it('stay in the WAL while another connection reads a snapshot from before the erasure, until the next erasure', async () => {
    const store = SqliteSubjectKeyStore.open(file);
    const reader = openSqliteDatabase(file);
    try {
      const [subject, later] = [newSubject(), newSubject()];
      const key = newKeyText();
      await store.putIfAbsent(new Map([[subject, key]]));
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM subject_keys').get();
      const started = Date.now();
      await store.erase(subject, new Date());
      expect(Date.now() - started, 'the erasure does not wait for the reader').to.be.lessThan(1_000);
      expect(await store.get([subject])).to.have.property('size', 0);
      expect(foundIn(`${file}-wal`, [key]), 'in the WAL while read').to.deep.equal([key]);
      reader.exec('COMMIT');
      await store.erase(later, new Date());
      expect(foundIn(`${file}-wal`, [key]), 'in the WAL').to.deep.equal([]);
      expect(foundIn(file, [key]), 'in the file').to.deep.equal([]);
    } finally {
      reader.close();
      await store.close();
    }
  });
});

describe('SqliteSubjectKeyStore: the log file’s migration', () => {
  it('adds the table to a file of the release before on open, every row kept', async () => {
    const dir = tempDir('chronicle-subject-keys-');
    const file = join(dir.path, 'chronicle.sqlite');
    try {
      const old = openWalDatabase(file, { synchronous: 'FULL', migrations: LOG_FILE_MIGRATIONS.slice(0, 7) });
      old.prepare('INSERT INTO webhook_secrets (subscription_id, secret) VALUES (?, ?)').run('sub-1', 'whsec_kept');
      old.close();
      const store = SqliteSubjectKeyStore.open(file);
      const subject = newSubject();
      const key = newKeyText();
      expect([...(await store.putIfAbsent(new Map([[subject, key]])))]).to.deep.equal([[subject, key]]);
      await store.close();
      const db = openSqliteDatabase(file);
      try {
        expect(db.pragma('user_version', { simple: true })).to.equal(LOG_FILE_MIGRATIONS.length);
        expect(db.prepare('SELECT secret FROM webhook_secrets').all()).to.deep.equal([{ secret: 'whsec_kept' }]);
        expect(db.prepare('SELECT subject, key, erased_at FROM subject_keys').all()).to.deep.equal([{ subject, key, erased_at: null }]);
      } finally {
        db.close();
      }
    } finally {
      dir.dispose();
    }
  });
});

describe('SubjectKeyStore: as openStores wires it', () => {
  it('embedded: in the log file, on the event store’s connection, closed with the other stores', async () => {
    const dir = tempDir('chronicle-subject-keys-');
    try {
      const stores = await openStores(loadConfig({ DATA_DIR: dir.path, RUN_PROJECTIONS: 'false' }));
      const subject = newSubject();
      const key = newKeyText();
      try {
        expect(stores.subjectKeys).to.be.instanceOf(SqliteSubjectKeyStore);
        await stores.subjectKeys.putIfAbsent(new Map([[subject, key]]));
      } finally {
        await closeStores(stores);
      }
      const reopened = SqliteSubjectKeyStore.open(embeddedDatabaseFile(dir.path));
      try {
        expect([...(await reopened.get([subject]))]).to.deep.equal([[subject, key]]);
      } finally {
        await reopened.close();
      }
    } finally {
      dir.dispose();
    }
  });

  if (postgresTestUrl()) {
    it('PostgreSQL: beside the log, on the stores’ pool, closed with the other stores', async () => {
      const { url } = await postgresDatabase();
      const stores = await openPostgresStores(url, { poolSize: 2, rateLimits: { hourly: 10, daily: 100, concurrent: 2 } });
      try {
        expect(stores.subjectKeys).to.be.instanceOf(PostgresSubjectKeyStore);
        const subject = newSubject();
        await stores.subjectKeys.erase(subject, new Date('2026-03-01T10:00:00.000Z'));
        expect((await stores.subjectKeys.erasedAt(subject))?.toISOString()).to.equal('2026-03-01T10:00:00.000Z');
      } finally {
        await closeStores(stores);
      }
    });
  }
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  subjectKeyStoreContract('MongoDB', async (): Promise<SubjectKeyStoreUnderTest> => {
    // A database of its own per test (the read models' one, as in production), dropped afterwards.
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const { MongoSubjectKeyStore } = await import('../../src/adapters/mongodb/MongoSubjectKeyStore.js');
    const dbName = `chronicle_test_${randomUUID().slice(0, 8)}`;
    const readModels = await MongoReadModelStore.connect(mongoUrl, dbName);
    const others: { close(): Promise<void> }[] = [];
    return {
      store: new MongoSubjectKeyStore(readModels.database),
      reopen: async () => {
        const other = await MongoReadModelStore.connect(mongoUrl, dbName);
        others.push(other);
        return new MongoSubjectKeyStore(other.database);
      },
      dispose: async () => {
        await Promise.all(others.map((other) => other.close()));
        await readModels.dropDatabase();
        await readModels.close();
      },
    };
  });
} else {
  skipLine('SubjectKeyStore contract: MongoDB', 'MONGODB_URL');
}

if (postgresTestUrl()) {
  subjectKeyStoreContract('PostgreSQL', async (): Promise<SubjectKeyStoreUnderTest> => {
    const { url } = await postgresDatabase();
    const pools = [await migratedLogPool(url)];
    return {
      store: new PostgresSubjectKeyStore(pools[0]!),
      reopen: async () => {
        const pool = await migratedLogPool(url);
        pools.push(pool);
        return new PostgresSubjectKeyStore(pool);
      },
      dispose: async () => void (await Promise.all(pools.map((pool) => pool.end()))),
    };
  });
} else {
  skipLine('SubjectKeyStore contract: PostgreSQL', 'POSTGRES_TEST_URL');
}
