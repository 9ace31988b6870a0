/**
 * Creating a deal.
 *
 * - Create resolves `contactId` and `assignedToId` on the write side, from the
 *   contact's and the user's own streams (folded with their domains' codecs and
 *   deciders): each must exist in the caller's company (a deleted contact does
 *   not), and the deal embeds a summary of each as it is at creation. The read
 *   model then follows the contact's later events.
 * - Responses embed the contact as its stream has it now, so a command answers
 *   with what a read of the deal shows.
 * - A deal of another company is not found, exactly like an unknown id.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { dealDecider } from '../domain/dealDecider.js';
import { DealEvent, dealStream } from '../domain/dealEvents.js';
import { toDealView, type Deal } from '../domain/dealView.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import { dealWriteError, type DealWriteError } from './DealWriteError.js';
import type { DealContactSummary, DealUserSummary } from '../domain/dealEvents.js';
import type { CreateDealFields } from '../domain/dealInput.js';
import { loadUserSummary, readContactSummary } from './dealParties.js';
import { refreshContactAfterWrite } from './refreshDealContact.js';

/**
 * Creates an open deal with a new id. `contactId` and `assignedToId`, when given,
 * must name a contact and a user of the company.
 */
export const createDeal = async (
  deps: CommandDeps,
  input: { companyId: string; fields: CreateDealFields; metadata: EventMetadata },
): Promise<E.Either<DealWriteError, { deal: Deal; position: Position }>> => {
  const { companyId, fields, metadata } = input;
  const dealId = deps.newId();
  const at = deps.clock.now();

  let contactRead: { summary: DealContactSummary; revision: number } | null = null;
  if (fields.contactId != null) {
    contactRead = await readContactSummary(deps.eventStore, companyId, fields.contactId);
    if (contactRead === null) return E.left({ kind: 'ContactNotInCompany' });
  }
  const contact = contactRead?.summary ?? null;
  let assignedTo: DealUserSummary | null = null;
  if (fields.assignedToId != null) {
    assignedTo = await loadUserSummary(deps.eventStore, companyId, fields.assignedToId);
    if (assignedTo === null) return E.left({ kind: 'UserNotInCompany' });
  }

  const created = await handleCommand(deps, {
    decider: dealDecider,
    eventCodec: DealEvent,
    stream: dealStream(dealId),
    command: { type: 'CreateDeal', dealId, companyId, fields, contact, assignedTo, at },
    metadata,
  });
  if (E.isLeft(created)) return E.left(dealWriteError(created.left));
  const { state, position } = created.right;
  if (state.status !== 'active' || position === null) throw new Error(`Deal ${dealId} was not created`);
  if (contactRead === null) return E.right({ deal: toDealView(state.deal), position });
  const read = { id: contactRead.summary.id, revision: contactRead.revision };
  return E.right(await refreshContactAfterWrite(deps, { dealId, companyId, contact: read, deal: state.deal, position, metadata }));
};
