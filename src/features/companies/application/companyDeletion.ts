import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';
import type { CompanyDataEraser, CompanyErasureCounts } from '../../../application/personalData/CompanyDataEraser.js';
import type { Position } from '../../../shared/Position.js';
import { companyDecider } from '../domain/companyDecider.js';
import type { CompanyDeletionNotRequested, CompanyErasureUnderWay, CompanyNotFound } from '../domain/companyErrors.js';
import { CompanyEvent, companyStream } from '../domain/companyEvents.js';
import { actorOf } from './companySuspension.js';

/** A deletion asked for: when, and after when the company is erased. */
export interface RequestedDeletion {
  readonly id: string;
  readonly deletionRequestedAt: string;
  readonly eraseAfter: string;
  /** Where the request ended in the log; null when it was asked for already (nothing recorded). */
  readonly position: Position | null;
}

const companySpec = { decider: companyDecider, eventCodec: CompanyEvent } as const;

/**
 * Asks for the company's deletion: `CompanyDeletionRequested` (and `CompanySuspended`
 * when it is not suspended already), erased once `retentionMs` has passed. Asked again while it waits, it answers the waiting
 * deletion and records nothing; an unknown or erased company is not found.
 */
export const requestCompanyDeletion = async (
  deps: CommandDeps,
  input: { readonly companyId: string; readonly retentionMs: number; readonly metadata: WriteMetadata },
): Promise<E.Either<CompanyNotFound, RequestedDeletion>> => {
  const at = deps.clock.now();
  const outcome = await handleCommand(deps, {
    ...companySpec,
    stream: companyStream(input.companyId),
    command: {
      type: 'RequestCompanyDeletion',
      companyId: input.companyId,
      at,
      eraseAfter: new Date(at.getTime() + input.retentionMs),
      by: actorOf(input.metadata),
    },
    metadata: { ...input.metadata, companyId: input.companyId },
  });
  if (E.isLeft(outcome)) return E.left({ kind: 'CompanyNotFound', companyId: input.companyId });
  const { state, position } = outcome.right;
  if (state.status !== 'created' || !state.deletion) throw new Error('RequestCompanyDeletion left no deletion waiting');
  return E.right({ id: input.companyId, deletionRequestedAt: state.deletion.requestedAt, eraseAfter: state.deletion.eraseAfter, position });
};

/**
 * Calls off the company's waiting deletion (`CompanyDeletionCancelled`): the sweep
 * then leaves it alone. With none waiting it records nothing (`cancelled: false`);
 * an unknown or erased company is not found, and one whose erasure has begun
 * (`CompanyErasureStarted`) is refused: its erasure is finished, not cancelled.
 */
export const cancelCompanyDeletion = async (
  deps: CommandDeps,
  input: { readonly companyId: string; readonly metadata: WriteMetadata },
): Promise<E.Either<CompanyNotFound | CompanyErasureUnderWay, { readonly cancelled: boolean; readonly position: Position | null }>> => {
  const outcome = await handleCommand(deps, {
    ...companySpec,
    stream: companyStream(input.companyId),
    command: { type: 'CancelCompanyDeletion', companyId: input.companyId, at: deps.clock.now() },
    metadata: { ...input.metadata, companyId: input.companyId },
  });
  if (E.isLeft(outcome)) {
    const { kind } = outcome.left;
    return E.left(kind === 'CompanyErasureUnderWay' ? { kind, companyId: input.companyId } : { kind: 'CompanyNotFound', companyId: input.companyId });
  }
  return E.right({ cancelled: outcome.right.events.length > 0, position: outcome.right.position });
};

/** A company erased: when, what it reached (null when it was erased before), and where `CompanyErased` is in the log. */
export interface ErasedCompany {
  readonly id: string;
  readonly erasedAt: string;
  readonly counts: CompanyErasureCounts | null;
  readonly position: Position | null;
}

/** The read models stayed behind the log for the whole wait: what they list cannot be erased yet (nothing was). */
export interface ReadModelsBehind {
  readonly kind: 'ReadModelsBehind';
}

/** What erases a company: its log, what forgets what the log and read models do not hold, and the read models' pace. */
export interface CompanyErasureDeps {
  readonly commands: CommandDeps;
  readonly data: CompanyDataEraser;
  /** Waits (bounded) for the read models to apply a position (the log's head, then `CompanyErased`); false when the wait ran out. */
  readonly waitForReadModels: (position: Position) => Promise<boolean>;
  /** What the engine needs at once after an erasure (`PersonErasure.compactNow`). */
  readonly compact: () => Promise<unknown>;
}

/**
 * Erases a company whose deletion was asked for, now: once the read models have
 * caught up with the log (they list what is forgotten), `CompanyErasureStarted`
 * (from then on the deletion cannot be cancelled), then everything the log and the
 * read models do not hold is forgotten (`CompanyDataEraser`), then `CompanyErased`
 * is recorded with the counts, the read models drop every document of the company
 * as they apply it, and the engine compacts. An erasure cut short (a crash) is
 * finished by the next one. An erased company answers its first erasure (nothing
 * done again); one without a waiting deletion is refused, and nothing is done while
 * the read models stay behind the log (`ReadModelsBehind`: tried again later, by
 * the sweep or the caller).
 */
export const eraseCompany = async (
  deps: CompanyErasureDeps,
  input: { readonly companyId: string; readonly metadata: WriteMetadata },
): Promise<E.Either<CompanyNotFound | CompanyDeletionNotRequested | ReadModelsBehind, ErasedCompany>> => {
  const { commands } = deps;
  const stream = companyStream(input.companyId);
  const { state } = await loadAggregate(commands.eventStore, stream, companySpec);
  if (state.status === 'erased') return E.right({ id: input.companyId, erasedAt: state.erasedAt, counts: null, position: null });
  if (state.status === 'none') return E.left({ kind: 'CompanyNotFound', companyId: input.companyId });
  if (!state.deletion) return E.left({ kind: 'CompanyDeletionNotRequested', companyId: input.companyId });
  const head = await commands.eventStore.headPosition();
  if (head !== null && !(await deps.waitForReadModels(head))) return E.left({ kind: 'ReadModelsBehind' });
  const at = commands.clock.now();
  const metadata = { ...input.metadata, companyId: input.companyId };
  // A cancellation recorded since the state was read wins here, before anything is forgotten.
  const started = await handleCommand(commands, { ...companySpec, stream, command: { type: 'StartCompanyErasure', companyId: input.companyId, at }, metadata });
  if (E.isLeft(started)) {
    const { kind } = started.left;
    return E.left(kind === 'CompanyDeletionNotRequested' ? { kind, companyId: input.companyId } : { kind: 'CompanyNotFound', companyId: input.companyId });
  }
  const counts = await deps.data.forget(input.companyId, at);
  const outcome = await handleCommand(commands, {
    ...companySpec,
    stream,
    command: { type: 'EraseCompany', companyId: input.companyId, at, counts },
    metadata,
  });
  // Only an erasure can follow a started one: this one's, or another process's (which answers as done).
  if (E.isLeft(outcome)) throw new Error(`EraseCompany refused after the erasure started: ${outcome.left.kind}`);
  const erased = outcome.right.state;
  if (erased.status !== 'erased') throw new Error('EraseCompany left the company unerased');
  const { position } = outcome.right;
  if (position !== null && (await deps.waitForReadModels(position))) await deps.compact();
  return E.right({ id: input.companyId, erasedAt: erased.erasedAt, counts: outcome.right.events.length > 0 ? counts : null, position });
};
