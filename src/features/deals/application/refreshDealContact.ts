import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { contactStream } from '../domain/contactsForDeals.js';
import { dealDecider } from '../domain/dealDecider.js';
import { DealEvent, dealStream } from '../domain/dealEvents.js';
import type { DealRecord } from '../domain/dealRecord.js';
import { toDealView, type Deal } from '../domain/dealView.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import { loadContactShown } from './dealParties.js';

/**
 * A contact change appended between reading the contact (at `contact.revision`)
 * and appending the deal's `DealCreated` or `DealRestored` is in the log before
 * the deal's event, so the `deals` read model (which follows the contact's events
 * into the deals it holds) would never apply it to this deal. Read the contact's
 * stream once more; if it moved, record the contact as it is now on the deal
 * (`DealContactRefreshed`): its newer summary, or, deleted meanwhile, its id with
 * every other field null. A change after this read comes after the
 * deal's event in the log and reaches it the usual way.
 *
 * Answers the deal as written (`deal`, at `position`), or as refreshed.
 */
export const refreshContactAfterWrite = async (
  deps: CommandDeps,
  written: {
    dealId: string;
    companyId: string;
    contact: { id: string; revision: number };
    deal: DealRecord;
    position: Position;
    metadata: EventMetadata;
  },
): Promise<{ deal: Deal; position: Position }> => {
  const { dealId, companyId, contact, deal, position, metadata } = written;
  const moved = await deps.eventStore.readStream(contactStream(contact.id), { fromRevision: contact.revision + 1, maxCount: 1 });
  const now = moved.length > 0 ? await loadContactShown(deps.eventStore, companyId, contact.id) : null;
  if (now === null) return { deal: toDealView(deal), position };
  const refreshed = await handleCommand(deps, {
    decider: dealDecider,
    eventCodec: DealEvent,
    stream: dealStream(dealId),
    command: { type: 'RefreshDealContact', dealId, companyId, contact: now },
    metadata,
  });
  if (E.isLeft(refreshed) || refreshed.right.state.status !== 'active') return { deal: toDealView(deal), position };
  return { deal: toDealView(refreshed.right.state.deal), position: refreshed.right.position ?? position };
};
