import type pg from 'pg';
import type { ErasedSubject, SubjectKeyStore } from '../../application/ports/SubjectKeyStore.js';
import { preparedQuery, preparedReadQuery } from './postgresPool.js';

interface KeyRow {
  subject: string;
  key: string;
}

/** The keys of the given subjects that have one (the erased ones have none). */
const SELECT_KEYS = 'SELECT subject, key FROM subject_keys WHERE subject = ANY($1::text[]) AND key IS NOT NULL';

/**
 * The candidates, one row each, in the order of their subjects: two calls that
 * insert some of the same subjects lock their index entries in the same order, so
 * that neither waits for the other while holding what the other waits for.
 */
const INSERT_KEYS =
  'INSERT INTO subject_keys (subject, key) SELECT c.subject, c.key FROM unnest($1::text[], $2::text[]) AS c(subject, key) ORDER BY c.subject ' +
  'ON CONFLICT (subject) DO NOTHING RETURNING subject, key';

/**
 * The subjects' data keys in the `subject_keys` table, beside the events but never
 * in them, on the pool every PostgreSQL store of the process shares. Values are
 * always bound, never written into the SQL.
 *
 * An erased key's bytes stay in the table's dead row versions, its WAL segments
 * and its backups until PostgreSQL reclaims them (VACUUM, then the page rewritten):
 * the port's "engine's compaction".
 */
export class PostgresSubjectKeyStore implements SubjectKeyStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(subjects: readonly string[]): Promise<ReadonlyMap<string, string>> {
    if (subjects.length === 0) return new Map();
    const { rows } = await preparedReadQuery<KeyRow>(this.pool, SELECT_KEYS, [subjects]);
    return keysOf(rows);
  }

  /**
   * The candidates are inserted where their subject has no row; when every one was,
   * they are the answer. Otherwise the keys are read again, in a statement of its
   * own: the insert's snapshot does not show a row another transaction committed
   * while the insert waited on it (a concurrent call for the same subject), and
   * the next statement's does.
   */
  async putIfAbsent(candidates: ReadonlyMap<string, string>): Promise<ReadonlyMap<string, string>> {
    if (candidates.size === 0) return new Map();
    const subjects = [...candidates.keys()];
    const { rows: inserted } = await preparedQuery<KeyRow>(this.pool, INSERT_KEYS, [subjects, subjects.map((subject) => candidates.get(subject)!)]);
    if (inserted.length === candidates.size) return keysOf(inserted);
    const { rows } = await preparedReadQuery<KeyRow>(this.pool, SELECT_KEYS, [subjects]);
    return keysOf(rows);
  }

  async erase(subject: string, at: Date): Promise<void> {
    await preparedQuery(
      this.pool,
      'INSERT INTO subject_keys (subject, key, erased_at) VALUES ($1, NULL, $2) ' +
        'ON CONFLICT (subject) DO UPDATE SET key = NULL, erased_at = COALESCE(subject_keys.erased_at, excluded.erased_at)',
      [subject, at],
    );
  }

  async erasedAt(subject: string): Promise<Date | null> {
    const { rows } = await preparedReadQuery<{ erased_at: Date | null }>(this.pool, 'SELECT erased_at FROM subject_keys WHERE subject = $1', [subject]);
    return rows[0]?.erased_at ?? null;
  }

  async erased(): Promise<readonly ErasedSubject[]> {
    const { rows } = await preparedReadQuery<{ subject: string; erased_at: Date }>(
      this.pool,
      'SELECT subject, erased_at FROM subject_keys WHERE erased_at IS NOT NULL ORDER BY erased_at, subject COLLATE "C"',
      [],
    );
    return rows.map((row) => ({ subject: row.subject, erasedAt: row.erased_at }));
  }

  async close(): Promise<void> {
    // The pool is shared; the event store ends it.
  }
}

const keysOf = (rows: readonly KeyRow[]): ReadonlyMap<string, string> => new Map(rows.map((row) => [row.subject, row.key]));
