/** One thing a compaction did: what, how long it took, and whether it finished (a note says why not). */
export interface CompactionStep {
  readonly what: string;
  readonly ms: number;
  readonly done: boolean;
  readonly note?: string;
}

/**
 * Whatever an engine needs so that no byte of its files keeps a value erased so
 * far (`chronicle erasures compact`): SQLite rebuilds its files (`VACUUM`) and
 * empties their write-ahead logs; PostgreSQL rewrites the tables that held
 * personal values (`VACUUM FULL`) and checkpoints. Runs beside a live server
 * (writers wait while a file or table is rewritten), and does nothing where
 * nothing is left to do but the rewrite itself.
 */
export interface ErasureCompaction {
  compact(): Promise<readonly CompactionStep[]>;
}

/** Times one step of a compaction. */
export const timedStep = async (what: string, run: () => Promise<{ readonly done: boolean; readonly note?: string } | void>): Promise<CompactionStep> => {
  const started = process.hrtime.bigint();
  const outcome = (await run()) ?? { done: true };
  const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
  return { what, ms, done: outcome.done, ...(outcome.note !== undefined ? { note: outcome.note } : {}) };
};
