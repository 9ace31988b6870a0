import type { CommandDeps } from '../commands/CommandDeps.js';
import type { PersonErasure } from './PersonErasure.js';
import type { ErasedSubject } from '../ports/SubjectKeyStore.js';
import type { Position } from '../../shared/Position.js';
import type { SubjectKind } from '../../shared/PersonalData.js';
import { laterPosition } from '../../shared/Position.js';
import type { ErasureRecord } from '../../shared/ErasureRecord.js';
import { subjectOf } from './SubjectKeys.js';

/** What re-applying one erasure did: the subject was in the log (`known`) or not; where its events ended in the log. */
export interface ReappliedErasure {
  readonly known: boolean;
  readonly position: Position | null;
}

/**
 * How one kind of subject is erased again, as its erase request does it, with
 * actor `system`: the erasure recorded in the subject's stream, then
 * `PersonErasure.forget`. A subject the log does not know still has its key
 * destroyed (`known: false`). Declared by the feature whose subjects they are.
 */
export interface SubjectEraser {
  readonly kind: SubjectKind;
  /** The subject's company, as the log has it; null when the log does not know the subject. */
  companyOf(id: string): Promise<string | null>;
  reapply(record: ErasureRecord): Promise<ReappliedErasure>;
}

/** What an eraser works with: the log it writes to (with ids and a clock), and what forgets a person. */
export interface SubjectEraserDeps {
  readonly commands: CommandDeps;
  readonly erasure: PersonErasure;
}

/** A feature's eraser of its subjects, made with the stores of the process. */
export type SubjectEraserOf = (deps: SubjectEraserDeps) => SubjectEraser;

/** How many erasures were re-applied, and how many were skipped: already done here, or of a subject this log does not know. */
export interface ReapplyOutcome {
  readonly applied: number;
  /** Lines whose subject this store has erased already (a line seen twice counts here the second time). */
  readonly skipped: number;
  /** Subjects the log does not know (made after the backup): skipped, their key destroyed all the same. */
  readonly unknown: number;
  /** The log's position after the last erasure appended, for the read models to reach before compacting; null when none was. */
  readonly position: Position | null;
}

/** Erasures of a kind no eraser here handles: refused before anything is applied. */
export class UnknownErasureKindError extends Error {
  constructor(readonly kinds: readonly string[]) {
    super(`erasures of ${kinds.join(', ')} cannot be re-applied by this release`);
    this.name = 'UnknownErasureKindError';
  }
}

/**
 * Re-applies each erasure of `records` whose subject this store has not erased
 * (its key is still there): after a backup taken before those erasures was
 * restored, so that the person does not come back. Idempotent: what was applied
 * is skipped the next time. The store's erased subjects are read once; the
 * erasures run one after the other, in the records' order.
 */
export const reapplyErasures = async (
  records: readonly ErasureRecord[],
  deps: { readonly erased: () => Promise<readonly ErasedSubject[]>; readonly erasers: readonly SubjectEraser[] },
): Promise<ReapplyOutcome> => {
  const erasers = new Map(deps.erasers.map((eraser) => [eraser.kind, eraser]));
  const unhandled = [...new Set(records.map((record) => record.kind).filter((kind) => !erasers.has(kind)))];
  if (unhandled.length > 0) throw new UnknownErasureKindError(unhandled);
  const done = new Set((await deps.erased()).map(({ subject }) => subject));
  let [applied, skipped, unknown] = [0, 0, 0];
  let position: Position | null = null;
  for (const record of records) {
    const subject = subjectOf(record.kind, record.id);
    if (done.has(subject)) {
      skipped += 1;
      continue;
    }
    const reapplied = await erasers.get(record.kind)!.reapply(record);
    done.add(subject);
    if (reapplied.known) applied += 1;
    else unknown += 1;
    position = laterPosition(position, reapplied.position);
  }
  return { applied, skipped, unknown, position };
};

/**
 * The erasure of every subject `erased` lists, as erasure lines, with each one's
 * company as the log has it; subjects of a kind no eraser handles (the key of
 * stream names) and subjects the log does not know are left out (counted).
 */
export const exportErasures = async (
  erased: readonly ErasedSubject[],
  deps: { readonly erasers: readonly SubjectEraser[] },
): Promise<{ readonly records: readonly ErasureRecord[]; readonly leftOut: number }> => {
  const erasers = new Map<string, SubjectEraser>(deps.erasers.map((eraser) => [eraser.kind, eraser]));
  const records: ErasureRecord[] = [];
  let leftOut = 0;
  for (const { subject, erasedAt } of erased) {
    const separator = subject.indexOf(':');
    const eraser = erasers.get(subject.slice(0, separator));
    if (separator < 0 || !eraser) continue;
    const id = subject.slice(separator + 1);
    const companyId = await eraser.companyOf(id);
    if (companyId === null) {
      leftOut += 1;
      continue;
    }
    records.push({ kind: eraser.kind, id, companyId, erasedAt: erasedAt.toISOString() });
  }
  return { records, leftOut };
};
