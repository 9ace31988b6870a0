import type { Statement, Transaction } from 'better-sqlite3';
import type { ErasedSubject, SubjectKeyStore } from '../../application/ports/SubjectKeyStore.js';
import { openSqliteDatabase, type SqliteDatabase } from './openSqliteDatabase.js';
import { withSecureDelete } from './secureDelete.js';
import { whenLockFreeTranslated, withoutLockWait } from './writeLock.js';

interface KeyRow {
  subject: string;
  key: string;
}

/**
 * The subjects' data keys in the embedded SQLite file, in a table of their own
 * (`subject_keys`), beside the events but never in them. Many subjects are read,
 * or kept, in one statement: their list is bound as one JSON array (`json_each`),
 * never written into the SQL.
 *
 * Every write runs with `secure_delete` on, so that the bytes of a key the write
 * removes or moves (an erasure; a page split by the rows added) are overwritten in
 * the page instead of left in its free space; an erasure then empties the
 * write-ahead log, which still holds the pages as they were (see `erase`).
 */
export class SqliteSubjectKeyStore implements SubjectKeyStore {
  private readonly statements: {
    readonly get: Statement<[string], KeyRow>;
    readonly insert: Statement<[string]>;
    readonly erase: Statement<[string, string]>;
    readonly erasedAt: Statement<[string], { erased_at: string | null }>;
    readonly erased: Statement<[], { subject: string; erased_at: string }>;
  };
  private readonly putAll: Transaction<(candidates: string, subjects: string) => KeyRow[]>;

  /** On an open (migrated) database; `ownsDatabase`: close it with the store. */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly ownsDatabase = false,
  ) {
    this.statements = {
      get: db.prepare('SELECT subject, key FROM subject_keys WHERE subject IN (SELECT value FROM json_each(?)) AND key IS NOT NULL'),
      // `WHERE true`: SQLite's grammar, for an upsert whose rows come from a SELECT.
      insert: db.prepare(
        'INSERT INTO subject_keys (subject, key) SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true ON CONFLICT (subject) DO NOTHING',
      ),
      erase: db.prepare(
        'INSERT INTO subject_keys (subject, key, erased_at) VALUES (?, NULL, ?) ' +
          'ON CONFLICT (subject) DO UPDATE SET key = NULL, erased_at = COALESCE(subject_keys.erased_at, excluded.erased_at)',
      ),
      erasedAt: db.prepare('SELECT erased_at FROM subject_keys WHERE subject = ?'),
      erased: db.prepare('SELECT subject, erased_at FROM subject_keys WHERE erased_at IS NOT NULL ORDER BY erased_at, subject'),
    };
    this.putAll = db.transaction((candidates: string, subjects: string) => {
      this.statements.insert.run(candidates);
      return this.statements.get.all(subjects);
    });
  }

  /** Opens (and migrates) the file with a connection of its own. */
  static open(file: string): SqliteSubjectKeyStore {
    return new SqliteSubjectKeyStore(openSqliteDatabase(file), true);
  }

  async get(subjects: readonly string[]): Promise<ReadonlyMap<string, string>> {
    if (subjects.length === 0) return new Map();
    return keysOf(this.statements.get.all(JSON.stringify(subjects)));
  }

  async putIfAbsent(candidates: ReadonlyMap<string, string>): Promise<ReadonlyMap<string, string>> {
    if (candidates.size === 0) return new Map();
    const pairs = JSON.stringify([...candidates]);
    const subjects = JSON.stringify([...candidates.keys()]);
    // One write transaction: the rows kept and the keys answered are those of one moment.
    return keysOf(await whenLockFreeTranslated(this.db, () => withSecureDelete(this.db, () => this.putAll.immediate(pairs, subjects))));
  }

  /**
   * Erases in one upsert (a subject never seen gets its row, without a key), with
   * `secure_delete` on: the key's bytes are overwritten in its page. The write-ahead
   * log still holds that page as it was (the frames written when the key was kept,
   * and since), and the database file may too (a checkpoint copied it there): a
   * `wal_checkpoint(TRUNCATE)` follows, which copies the page as erased into the
   * file and empties the WAL. It does not wait: while another connection (another
   * process on the file) reads a snapshot from before the erasure, or writes, it
   * copies what it can and leaves the WAL as it is, and the key's bytes stay in the
   * WAL (and, until a checkpoint copies the erased page, in the file) until the next
   * checkpoint that can empty it (the next erasure's), or until SQLite writes the
   * WAL over from its start. Erasures are rare: the checkpoint's cost (copying the
   * WAL's pages into the file, up to LOG_WAL_AUTOCHECKPOINT_PAGES) is paid seldom.
   */
  async erase(subject: string, at: Date): Promise<void> {
    await whenLockFreeTranslated(this.db, () => withSecureDelete(this.db, () => this.statements.erase.run(subject, at.toISOString())));
    withoutLockWait(this.db, () => this.db.pragma('wal_checkpoint(TRUNCATE)'));
  }

  async erasedAt(subject: string): Promise<Date | null> {
    const erasedAt = this.statements.erasedAt.get(subject)?.erased_at ?? null;
    return erasedAt === null ? null : new Date(erasedAt);
  }

  async erased(): Promise<readonly ErasedSubject[]> {
    return this.statements.erased.all().map((row) => ({ subject: row.subject, erasedAt: new Date(row.erased_at) }));
  }

  async close(): Promise<void> {
    if (this.ownsDatabase && this.db.open) this.db.close();
  }
}

const keysOf = (rows: readonly KeyRow[]): ReadonlyMap<string, string> => new Map(rows.map((row) => [row.subject, row.key]));
