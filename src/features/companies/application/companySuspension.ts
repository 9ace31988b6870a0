import * as E from 'fp-ts/lib/Either.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';
import { companyDecider } from '../domain/companyDecider.js';
import type { CompanyErasureUnderWay, CompanyNotFound } from '../domain/companyErrors.js';
import { CompanyEvent, companyStream, type CompanyActor } from '../domain/companyEvents.js';
import { companyViewOf, type Company } from '../domain/companyView.js';
import type { SuspensionReason } from '../domain/SuspensionReason.js';

export interface CompanySuspensionOutcome {
  /** The company as it is after the command. */
  readonly company: Company;
  /** Whether an event was recorded: false when the company already was as asked. */
  readonly changed: boolean;
  /** The log position of the event recorded; null when none was. */
  readonly position: Position | null;
}

/** Who acts, as the event records it: the admin token of an admin request, else the CLI. */
export const actorOf = (metadata: WriteMetadata): CompanyActor =>
  metadata.source === 'admin' && metadata.adminTokenId !== undefined ? { kind: 'admin', adminTokenId: metadata.adminTokenId } : { kind: 'cli' };

const run = async (
  deps: CommandDeps,
  companyId: string,
  command: (at: Date) => Parameters<typeof companyDecider.decide>[0],
  metadata: WriteMetadata,
): Promise<E.Either<CompanyNotFound | CompanyErasureUnderWay, CompanySuspensionOutcome>> => {
  const outcome = await handleCommand(deps, {
    decider: companyDecider,
    eventCodec: CompanyEvent,
    stream: companyStream(companyId),
    command: command(deps.clock.now()),
    metadata: { ...metadata, companyId },
  });
  if (E.isLeft(outcome)) {
    // A resume of a company whose erasure has begun (its deletion can no longer be cancelled).
    if (outcome.left.kind === 'CompanyNotFound' || outcome.left.kind === 'CompanyErasureUnderWay') return E.left(outcome.left);
    throw new Error(`a company's suspension was refused: ${outcome.left.kind}`);
  }
  const { state, events, position } = outcome.right;
  if (state.status !== 'created') throw new Error('a company decided on without a stream');
  return E.right({ company: companyViewOf(state), changed: events.length > 0, position });
};

/**
 * Suspends a company (`CompanySuspended`, with the reason and who acted). A
 * suspended company stays as it is: nothing is recorded, and the answer is the
 * suspension in force.
 */
export const suspendCompany = (
  deps: CommandDeps,
  input: { readonly companyId: string; readonly reason: SuspensionReason; readonly metadata: WriteMetadata },
): Promise<E.Either<CompanyNotFound | CompanyErasureUnderWay, CompanySuspensionOutcome>> =>
  run(deps, input.companyId, (at) => ({ type: 'SuspendCompany', companyId: input.companyId, reason: input.reason, by: actorOf(input.metadata), at }), input.metadata);

/**
 * Resumes a suspended company (`CompanyResumed`); an active one stays as it is,
 * nothing recorded. A deletion waiting is cancelled with it (`CompanyDeletionCancelled`);
 * one whose erasure has begun is refused (`CompanyErasureUnderWay`).
 */
export const resumeCompany = (
  deps: CommandDeps,
  input: { readonly companyId: string; readonly metadata: WriteMetadata },
): Promise<E.Either<CompanyNotFound | CompanyErasureUnderWay, CompanySuspensionOutcome>> =>
  run(deps, input.companyId, (at) => ({ type: 'ResumeCompany', companyId: input.companyId, by: actorOf(input.metadata), at }), input.metadata);
