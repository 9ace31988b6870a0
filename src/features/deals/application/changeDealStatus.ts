import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { dealDecider } from '../domain/dealDecider.js';
import { DealEvent, dealStream } from '../domain/dealEvents.js';
import { toDealView, type Deal } from '../domain/dealView.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import { PreconditionFailedError, type RevisionPrecondition } from '../../../application/commands/PreconditionFailedError.js';
import { dealWriteError, type DealWriteError } from './DealWriteError.js';
import type { DealStatusChangeFields } from '../domain/dealInput.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { currentView, loadContactShown } from './dealParties.js';

/**
 * Changes the status, stage or close date of a deal of the company (see
 * `dealDecider`). A change that moves nothing appends nothing (position null; the
 * deal and its updatedAt unchanged).
 *
 * The deal's contact is read first (the deal's stream names it), so that the
 * event's `deal` snapshot, and the response, embed the contact as it is now
 * (nulls but `id` when it is deleted). A contact change appended between that
 * read and the deal's append is not in the snapshot (the `deals` read model still
 * shows it: it follows the contact's events).
 */
export const changeDealStatus = async (
  deps: CommandDeps,
  input: {
    companyId: string;
    dealId: string;
    change: DealStatusChangeFields;
    metadata: EventMetadata;
    /** Only when the deal's stream is at a revision it accepts (`If-Match`); see `handleCommand`. */
    precondition?: RevisionPrecondition;
  },
): Promise<E.Either<DealWriteError, { deal: Deal; position: Position | null; revision: number }>> => {
  const { companyId, dealId, change, metadata, precondition } = input;
  const { state: before } = await loadAggregate(deps.eventStore, dealStream(dealId), { eventCodec: DealEvent, decider: dealDecider });
  const ours = before.status === 'active' && before.deal.companyId === companyId;
  // Another company's deal is not found, whatever the precondition says (a 412 would tell that it exists).
  if (!ours && precondition) return E.left({ kind: 'DealNotFound' });
  const linked = ours ? before.deal.contact : null;
  const contact = linked && ((await loadContactShown(deps.eventStore, companyId, linked.id)) ?? linked);
  let changed;
  try {
    changed = await handleCommand(deps, {
      decider: dealDecider,
      eventCodec: DealEvent,
      stream: dealStream(dealId),
      command: { type: 'ChangeDealStatus', dealId, companyId, change, contact, at: deps.clock.now() },
      metadata,
      ...(precondition ? { precondition } : {}),
    });
  } catch (error) {
    if (error instanceof PreconditionFailedError) return E.left({ kind: 'PreconditionFailed' });
    throw error;
  }
  if (E.isLeft(changed)) return E.left(dealWriteError(changed.left));
  const { state, position, events, revision } = changed.right;
  if (state.status !== 'active') throw new Error(`Deal ${dealId} vanished`);
  // The response shows what the event records (what webhooks carry); unchanged: the deal with its contact as read.
  const recorded = events.at(-1);
  if (recorded?.type === 'DealStatusChanged') return E.right({ deal: toDealView(recorded.data.deal), position, revision });
  const view = contact !== null && state.deal.contact?.id === contact.id ? toDealView({ ...state.deal, contact }) : null;
  return E.right({ deal: view ?? (await currentView(deps.eventStore, state.deal)), position, revision });
};
