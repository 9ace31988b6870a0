import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { openSqliteDatabase, truncateWal, type SqliteDatabase } from '../../../src/adapters/sqlite/openSqliteDatabase.js';
import { openReadModelDatabase } from '../../../src/adapters/sqlite/SqliteReadModelStore.js';
import { tempDir } from '../../support/tempStore.js';

const MARKER = 'Wendelgard Oxleymarch';

/** Rows large enough to fill pages of their own (and overflow pages), each with the marker, then deleted. */
const fillAndDelete = (db: SqliteDatabase): void => {
  db.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO notes (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 400; i++) insert.run(`${MARKER} ${i} ${'x'.repeat(6_000)}`);
  })();
  db.exec('DELETE FROM notes');
};

const holdsMarker = (file: string): boolean => readFileSync(file).includes(Buffer.from(MARKER, 'utf8'));

describe('SQLite: the files that keep personal values overwrite every byte a write frees (secure_delete ON)', () => {
  for (const [name, open] of [
    ['the log (chronicle.sqlite)', openSqliteDatabase],
    ['the read models (read-models.sqlite)', openReadModelDatabase],
  ] as const) {
    it(`${name}: given rows deleted, no byte of them is left in the file, in its pages or in those freed`, () => {
      const dir = tempDir();
      try {
        const file = join(dir.path, 'file.sqlite');
        const db = open(file);
        expect(db.pragma('secure_delete', { simple: true })).to.equal(1);
        fillAndDelete(db);
        expect(truncateWal(db)).to.equal(true);
        expect(db.pragma('freelist_count', { simple: true })).to.be.greaterThan(0);
        expect(holdsMarker(file)).to.equal(false);
        db.close();
      } finally {
        dir.dispose();
      }
    });
  }
});
