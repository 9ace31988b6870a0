import type { Logger } from '../application/ports/Logger.js';
import { PersonErasure } from '../application/personalData/PersonErasure.js';
import { parseErasureLines, type ErasureRecord } from '../shared/ErasureRecord.js';
import { reapplyErasures, type ReapplyOutcome, type SubjectEraser } from '../application/personalData/reapplyErasures.js';
import { PERSON_FIELDS, SUBJECT_ERASERS } from '../features/index.js';
import { systemClock } from '../shared/Clock.js';
import { newId } from '../shared/ids.js';
import type { Stores } from './Stores.js';

/**
 * What erasing a person does besides its event, on these stores: erasures are
 * written down in the journal (ERASURE_JOURNAL) unless `journal` is false (an
 * erasure re-applied from that journal is in it already).
 */
export const personErasureOf = (stores: Stores, logger: Logger, { journal = true }: { readonly journal?: boolean } = {}): PersonErasure =>
  new PersonErasure({
    ...(stores.sealingKeys ? { keys: stores.sealingKeys } : {}),
    idempotency: stores.idempotency,
    readModels: stores.readModels,
    personFields: PERSON_FIELDS,
    logger,
    exports: stores.companyExports,
    ...(journal && stores.erasureJournal ? { journal: stores.erasureJournal } : {}),
  });

/** Every feature's eraser of its subjects, on these stores and with this `erasure`. */
export const subjectErasersOf = (stores: Stores, erasure: PersonErasure): SubjectEraser[] =>
  SUBJECT_ERASERS.map((eraserOf) => eraserOf({ commands: { eventStore: stores.eventStore, newId, clock: systemClock }, erasure }));

/** Re-applies `records` on these stores with `erasure` (see `reapplyErasures`). */
export const reapplyOn = (stores: Stores, erasure: PersonErasure, records: readonly ErasureRecord[]): Promise<ReapplyOutcome> =>
  reapplyErasures(records, { erased: () => stores.subjectKeys.erased(), erasers: subjectErasersOf(stores, erasure) });

/** What a start re-applied from the journal, and what finishes it once the read models have applied it. */
export interface JournalReapplied {
  readonly outcome: ReapplyOutcome;
  /** Once the read models reached `outcome.position`: what the engine needs at once (`PersonErasure.compactNow`). */
  readonly compact: () => Promise<void>;
}

/**
 * At start, before any request is answered: every erasure of the erasure journal
 * (ERASURE_JOURNAL) that this store has not made is made again (a backup taken
 * before it was restored), so that the person does not come back. A line that is
 * not an erasure stops the start (`MalformedErasureLineError`). Null without a journal.
 */
export const reapplyErasureJournal = async (stores: Stores, logger: Logger): Promise<JournalReapplied | null> => {
  const journal = stores.erasureJournal;
  if (!journal) return null;
  const records = parseErasureLines(await journal.read(), `ERASURE_JOURNAL (${journal.location})`);
  const erasure = personErasureOf(stores, logger.child({ role: 'erasure' }), { journal: false });
  const outcome = await reapplyOn(stores, erasure, records);
  const { applied, skipped, unknown } = outcome;
  logger.info({ lines: records.length, applied, skipped, unknown }, 'erasure journal re-applied');
  return {
    outcome,
    compact: async () => {
      if (applied + unknown > 0) await erasure.compactNow();
    },
  };
};
