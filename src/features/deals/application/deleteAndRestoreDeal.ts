import * as E from 'fp-ts/lib/Either.js';
import type { DeletedRecord } from '../../../shared/DeletedRecord.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { dealDecider } from '../domain/dealDecider.js';
import { DealEvent, dealStream, type DealDeleted } from '../domain/dealEvents.js';
import type { DealCommand } from '../domain/dealCommands.js';
import { toDealView, type Deal } from '../domain/dealView.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { dealWriteError, type DealWriteError } from './DealWriteError.js';
import { currentView, readContactShown } from './dealParties.js';
import { refreshContactAfterWrite } from './refreshDealContact.js';

const specOf = (dealId: string, command: DealCommand, metadata: EventMetadata) => ({
  decider: dealDecider,
  eventCodec: DealEvent,
  stream: dealStream(dealId),
  command,
  metadata,
});

const deletedOf = (events: readonly DealEvent[]): DeletedRecord => {
  const deleted = events.find((event): event is DealDeleted => event.type === 'DealDeleted');
  if (!deleted) throw new Error('a delete that appended no DealDeleted');
  return { id: deleted.data.dealId, deletedAt: deleted.data.deletedAt, restorableUntil: deleted.data.restorableUntil };
};

/**
 * Deletes a deal of the company: it answers 404 and leaves every list and total.
 * It stays restorable for `retentionMs` (`DELETED_RECORDS_RETENTION_DAYS`). A deal
 * deleted already, unknown or another company's is not found.
 */
export const deleteDeal = async (
  deps: CommandDeps,
  input: { companyId: string; dealId: string; retentionMs: number; metadata: EventMetadata },
): Promise<E.Either<DealWriteError, { deleted: DeletedRecord; position: Position }>> => {
  const { companyId, dealId, metadata } = input;
  const at = deps.clock.now();
  const restorableUntil = new Date(at.getTime() + input.retentionMs);
  const outcome = await handleCommand(deps, specOf(dealId, { type: 'DeleteDeal', dealId, companyId, at, restorableUntil }, metadata));
  if (E.isLeft(outcome)) return E.left(dealWriteError(outcome.left));
  const { events, position } = outcome.right;
  if (position === null) throw new Error(`Deal ${dealId} was not deleted`);
  return E.right({ deleted: deletedOf(events), position });
};

/**
 * Brings back a deleted deal of the company as it was, while it is restorable,
 * with its contact as the contact's stream has it now (nulls but `id` when the
 * contact is deleted): the contact is read first (the deal's stream names it),
 * and a change of it that lands before the restore's append is recorded on the
 * deal after it (see `refreshContactAfterWrite`). Restoring a deal that is not
 * deleted changes nothing and answers it, with its contact as it is now.
 */
export const restoreDeal = async (
  deps: CommandDeps,
  input: { companyId: string; dealId: string; metadata: EventMetadata },
): Promise<E.Either<DealWriteError, { deal: Deal; position: Position | null }>> => {
  const { companyId, dealId, metadata } = input;
  const { state: before } = await loadAggregate(deps.eventStore, dealStream(dealId), { eventCodec: DealEvent, decider: dealDecider });
  const linked = before.status !== 'none' && before.deal.companyId === companyId ? before.deal.contact : null;
  const contactRead = linked && (await readContactShown(deps.eventStore, companyId, linked.id));
  const command: DealCommand = { type: 'RestoreDeal', dealId, companyId, contact: contactRead?.shown ?? null, at: deps.clock.now() };
  const outcome = await handleCommand(deps, specOf(dealId, command, metadata));
  if (E.isLeft(outcome)) return E.left(dealWriteError(outcome.left));
  const { state, position, events } = outcome.right;
  if (state.status !== 'active') throw new Error(`Deal ${dealId} was not restored`);
  if (position === null || events.length === 0) return E.right({ deal: await currentView(deps.eventStore, state.deal), position: null });
  // The restored deal is what `DealRestored` carries.
  if (contactRead === null) return E.right({ deal: toDealView(state.deal), position });
  const contact = { id: contactRead.shown.id, revision: contactRead.revision };
  return E.right(await refreshContactAfterWrite(deps, { dealId, companyId, contact, deal: state.deal, position, metadata }));
};
