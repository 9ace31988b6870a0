import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { dropFreePages, openWalDatabase, truncateWal, type SqliteDatabase } from '../../../src/adapters/sqlite/openSqliteDatabase.js';
import { openReadModelDatabase } from '../../../src/adapters/sqlite/SqliteReadModelStore.js';
import { tempDir } from '../../support/tempStore.js';

const MARKER = 'Wendelgard Oxleymarch';

/** Rows large enough to fill pages of their own (and overflow pages), each with the marker. */
const fillAndDelete = (db: SqliteDatabase): void => {
  db.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO notes (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 400; i++) insert.run(`${MARKER} ${i} ${'x'.repeat(6_000)}`);
  })();
  db.exec('DELETE FROM notes');
};

const holdsMarker = (file: string): boolean => readFileSync(file).includes(Buffer.from(MARKER, 'utf8'));

describe('SQLite: the read models file frees pages without overwriting them, and an erasure drops them', () => {
  it('a new read models file writes with secure_delete FAST and keeps its free pages apart (auto_vacuum INCREMENTAL)', () => {
    const dir = tempDir();
    try {
      const db = openReadModelDatabase(join(dir.path, 'read-models.sqlite'));
      expect(db.pragma('secure_delete', { simple: true })).to.equal(2);
      expect(db.pragma('auto_vacuum', { simple: true })).to.equal(2);
      db.close();
    } finally {
      dir.dispose();
    }
  });

  it('given pages freed by deleted rows, when they are dropped and the write-ahead log emptied, then no byte of the rows is left', () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'notes.sqlite');
      const db = openWalDatabase(file, { synchronous: 'NORMAL', migrations: [], secureDelete: 'FAST' });
      fillAndDelete(db);
      expect(truncateWal(db)).to.equal(true);
      // FAST leaves the freed pages as they were: the rows are still in the file.
      expect(db.pragma('freelist_count', { simple: true })).to.be.greaterThan(0);
      expect(holdsMarker(file)).to.equal(true);

      dropFreePages(db);
      expect(truncateWal(db)).to.equal(true);
      expect(db.pragma('freelist_count', { simple: true })).to.equal(0);
      expect(holdsMarker(file)).to.equal(false);
      expect(holdsMarker(`${file}-wal`)).to.equal(false);
      db.close();
    } finally {
      dir.dispose();
    }
  });

  it('a file made before (no auto_vacuum) is rebuilt by the first drop, which turns it on for the next', () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'older.sqlite');
      const older = new Database(file);
      older.pragma('journal_mode = WAL');
      older.exec('CREATE TABLE kept (id INTEGER PRIMARY KEY)');
      older.close();

      const db = openWalDatabase(file, { synchronous: 'NORMAL', migrations: [], secureDelete: 'FAST' });
      expect(db.pragma('auto_vacuum', { simple: true })).to.equal(0);
      fillAndDelete(db);
      dropFreePages(db);
      expect(truncateWal(db)).to.equal(true);
      expect(db.pragma('auto_vacuum', { simple: true })).to.equal(2);
      expect(holdsMarker(file)).to.equal(false);
      db.close();
    } finally {
      dir.dispose();
    }
  });

  it('the other files keep secure_delete ON: a freed page is overwritten at once', () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'log.sqlite');
      const db = openWalDatabase(file, { synchronous: 'FULL', migrations: [] });
      expect(db.pragma('secure_delete', { simple: true })).to.equal(1);
      fillAndDelete(db);
      expect(truncateWal(db)).to.equal(true);
      expect(holdsMarker(file)).to.equal(false);
      db.close();
    } finally {
      dir.dispose();
    }
  });
});
