import type { ErasureRecord } from '../../shared/ErasureRecord.js';

/**
 * Where every erasure is written down as it is made (ERASURE_JOURNAL), on storage
 * kept apart from the data and its backups: after a backup taken before an
 * erasure is restored, the journal re-applies it (`reapplyErasures`).
 */
export interface ErasureJournal {
  /** Where it is, for messages (a path: no personal value). */
  readonly location: string;
  /** Adds one erasure, durably (on disk) when it resolves. Several processes may append at once. */
  append(record: ErasureRecord): Promise<void>;
  /** Every line written so far, as text ('' when nothing was written yet). */
  read(): Promise<string>;
}
