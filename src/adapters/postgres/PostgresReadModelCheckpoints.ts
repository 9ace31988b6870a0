import type pg from 'pg';
import type { CheckpointStore } from '../../application/ports/CheckpointStore.js';
import type { Position } from '../../shared/Position.js';
import { inlined } from './inlineStatement.js';

/**
 * The read models' checkpoints, in `checkpoints` beside their tables, with the id
 * of the event at each position (`loadEventId`, checked by the projector against
 * the log as it starts). Inside a batch's transaction (`lockIn`, `saveIn`) they
 * commit with the documents.
 */
export class PostgresReadModelCheckpoints implements CheckpointStore {
  constructor(
    private readonly pool: pg.Pool,
    /** The qualified `checkpoints` table. */
    private readonly table: string,
  ) {}

  /**
   * Inside a transaction: waits until no other transaction writes under this
   * checkpoint (a lock held until this one ends), then answers it. Every writer of
   * the checkpoint (a batch, a replay's swap) takes the lock first, so what it read
   * stays true until it commits.
   */
  async lockIn(client: pg.ClientBase, name: string): Promise<Position | null> {
    const results = (await client.query(this.lockStatements(name).join(';\n'))) as unknown as pg.QueryResult[];
    return this.lockedPosition(results);
  }

  /**
   * `lockIn`'s statements, to send as one simple query (values inlined), alone or with
   * the transaction's `BEGIN`: the lock, then the read (a statement of its own, so that it
   * reads what was committed before the lock was had). `lockedPosition` reads the second
   * one's result.
   */
  lockStatements(name: string): string[] {
    return [
      inlined({ text: 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', values: [this.table, name] }),
      inlined({ text: `SELECT position FROM ${this.table} WHERE name = $1`, values: [name] }),
    ];
  }

  /**
   * A statement (values inlined) that fails unless the checkpoint is at `expected`, to
   * send after `lockStatements` in a transaction that writes without reading the
   * checkpoint first: the first statement that fails stops the rest and the transaction
   * is rolled back. (The failure is a cast of a text to an integer: an error SQL can
   * raise without a function; the text depends on the row read, so the planner cannot
   * raise it ahead of the check.)
   */
  guardStatement(name: string, expected: Position): string {
    return inlined({
      text:
        `SELECT CASE WHEN c.position IS NOT DISTINCT FROM $2 THEN 0 ` +
        `ELSE ('read-model checkpoint moved to ' || coalesce(c.position, 'none'))::integer END AS checked ` +
        `FROM (SELECT (SELECT position FROM ${this.table} WHERE name = $1) AS position) AS c`,
      values: [name, expected],
    });
  }

  /**
   * A statement (values inlined) that fails unless the log, in this database, holds the event
   * `eventId` at `position`: sent in a batch's transaction, before its checkpoint's save, where the
   * read models share the log's database. After a failover, a batch read from the old primary may
   * hold events the new primary never got (committed there, not replicated); its transaction then
   * fails, and the subscription reads the log again. Positions are handed out in commit order and
   * replicated in that order, so the log holding the batch's last event holds all of the batch.
   */
  logHoldsStatement(position: Position, eventId: string): string {
    // The failure's text is made of the row read (as in guardStatement), so that the planner cannot raise it ahead of the check.
    return inlined({
      text:
        `SELECT CASE WHEN l.id IS NOT DISTINCT FROM $2 THEN 0 ` +
        `ELSE ('the log holds ' || coalesce(l.id, 'no event') || ' at position ' || $1 || ', not the batch''s event ' || $2)::integer END AS checked ` +
        `FROM (SELECT (SELECT id FROM log_events WHERE position = $1) AS id) AS l`,
      values: [position, eventId],
    });
  }

  lockedPosition(results: readonly pg.QueryResult[]): Position | null {
    return (results[1]?.rows[0] as { position: string } | undefined)?.position ?? null;
  }

  /** `saveIn`'s statement (values inlined), to send alone or with the transaction's `COMMIT`. */
  saveStatement(name: string, position: Position, eventId: string | null): string {
    return inlined({
      text:
        `INSERT INTO ${this.table} (name, position, event_id) VALUES ($1, $2, $3) ` +
        'ON CONFLICT (name) DO UPDATE SET position = excluded.position, event_id = excluded.event_id',
      values: [name, position, eventId],
    });
  }

  /** Inside a transaction: saves the checkpoint with the id of the event at its position (null: unknown). */
  async saveIn(client: pg.ClientBase | pg.Pool, name: string, position: Position, eventId: string | null): Promise<void> {
    await client.query(this.saveStatement(name, position, eventId));
  }

  async resetIn(client: pg.ClientBase | pg.Pool, name: string): Promise<void> {
    await client.query(`DELETE FROM ${this.table} WHERE name = $1`, [name]);
  }

  async load(name: string): Promise<Position | null> {
    const { rows } = await this.pool.query<{ position: string }>(`SELECT position FROM ${this.table} WHERE name = $1`, [name]);
    return rows[0]?.position ?? null;
  }

  async loadEventId(name: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ event_id: string | null }>(`SELECT event_id FROM ${this.table} WHERE name = $1`, [name]);
    return rows[0]?.event_id ?? null;
  }

  /** Alone, with no event id (nothing says which event is at `position`). */
  async save(name: string, position: Position): Promise<void> {
    await this.saveIn(this.pool, name, position, null);
  }

  async reset(name: string): Promise<void> {
    await this.resetIn(this.pool, name);
  }
}
