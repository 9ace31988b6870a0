/**
 * Deal commands: create, and change status / stage / close date.
 *
 * - Create resolves `contactId` and `assignedToId` on the write side, from the
 *   contact's and the user's own streams (folded with their domains' codecs and
 *   deciders): each must exist in the caller's company, and the deal embeds a
 *   summary of each as it is at creation. The read model then follows the
 *   contact's later `ContactUpdated` events.
 * - Responses embed the contact as its stream has it now, so a command answers
 *   with what a read of the deal shows.
 * - A deal of another company is not found, exactly like an unknown id.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { UndecodableEventError, handleCommand } from '../handleCommand.js';
import type { EventStore } from '../ports/EventStore.js';
import { toIsoTimestamp, type Clock } from '../../shared/Clock.js';
import { assertNever } from '../../shared/Decider.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import type { Position } from '../../shared/Position.js';
import { formatValidationErrors } from '../../shared/validationReporter.js';
import { contactDecider } from '../../domain/contacts/contactDecider.js';
import { ContactEvent, contactStream } from '../../domain/contacts/contactEvents.js';
import { contactSummaryOf } from '../../domain/deals/dealContactSummary.js';
import { dealDecider } from '../../domain/deals/dealDecider.js';
import type { DealError } from '../../domain/deals/dealErrors.js';
import { DealEvent, dealStream, type DealContactSummary, type DealUserSummary } from '../../domain/deals/dealEvents.js';
import type { CreateDealFields, DealStatusChangeFields } from '../../domain/deals/dealInput.js';
import type { DealRecord } from '../../domain/deals/dealRecord.js';
import { toDealView, type Deal } from '../../domain/deals/dealView.js';
import { userDecider } from '../../domain/users/userDecider.js';
import { UserEvent, userStream } from '../../domain/users/events.js';

export { toDealView, type Deal } from '../../domain/deals/dealView.js';

export interface DealServiceDeps {
  readonly eventStore: EventStore;
  /** Ids of new deals and events. */
  readonly newId: () => string;
  readonly clock: Clock;
}

export type DealServiceError =
  | { kind: 'DealNotFound' }
  | { kind: 'ContactNotInCompany' }
  | { kind: 'UserNotInCompany' }
  | { kind: 'CloseDateOnOpenDeal' };

const handlerDeps = (deps: DealServiceDeps) => ({ eventStore: deps.eventStore, newEventId: deps.newId });

/** The events of a stream, decoded with the codec they were written with. */
const readDecoded = async <Event>(eventStore: EventStore, stream: string, codec: t.Decoder<unknown, Event>): Promise<Event[]> =>
  (await eventStore.readStream(stream)).map((stored) => {
    const decoded = codec.decode({ type: stored.type, data: stored.data });
    if (E.isLeft(decoded)) throw new UndecodableEventError(stored, JSON.stringify(formatValidationErrors(decoded.left)));
    return decoded.right;
  });

/**
 * The summary of a contact of `companyId` as its stream has it now, with the
 * stream's last revision, or null (unknown, or another company's).
 */
const readContactSummary = async (
  eventStore: EventStore,
  companyId: string,
  contactId: string,
): Promise<{ summary: DealContactSummary; revision: number } | null> => {
  const events = await readDecoded(eventStore, contactStream(contactId), ContactEvent);
  const state = events.reduce(contactDecider.evolve, contactDecider.initialState);
  return state.status === 'active' && state.contact.companyId === companyId
    ? { summary: contactSummaryOf(state.contact), revision: events.length - 1 }
    : null;
};

const loadContactSummary = async (eventStore: EventStore, companyId: string, contactId: string): Promise<DealContactSummary | null> =>
  (await readContactSummary(eventStore, companyId, contactId))?.summary ?? null;

/**
 * The summary of a user of `companyId`, or null (unknown, or another company's).
 * The user decider's state keeps only ids, so name and e-mail come from the
 * `UserCreated` event itself.
 */
const loadUserSummary = async (eventStore: EventStore, companyId: string, userId: string): Promise<DealUserSummary | null> => {
  const events = await readDecoded(eventStore, userStream(userId), UserEvent);
  let state = userDecider.initialState;
  let summary: DealUserSummary | null = null;
  for (const event of events) {
    state = userDecider.evolve(state, event);
    switch (event.type) {
      case 'UserCreated':
        summary = { id: event.data.userId, name: event.data.name, email: event.data.email };
        break;
      default:
        return assertNever(event.type);
    }
  }
  return state.status === 'created' && state.companyId === companyId ? summary : null;
};

/** The response view, with the contact as it is now (what the read model shows once it has caught up). */
const currentView = async (eventStore: EventStore, deal: DealRecord): Promise<Deal> => {
  if (deal.contact === null) return toDealView(deal);
  const contact = await loadContactSummary(eventStore, deal.companyId, deal.contact.id);
  return toDealView(contact === null ? deal : { ...deal, contact });
};

const serviceError = (error: DealError): DealServiceError => {
  switch (error.kind) {
    case 'DealNotFound':
      return { kind: 'DealNotFound' };
    case 'CloseDateOnOpenDeal':
      return { kind: 'CloseDateOnOpenDeal' };
    case 'DealAlreadyExists':
      // Only a create meets it, with a fresh id: the ids are broken, not the request.
      throw new Error(`Deal ${error.dealId} already exists`);
    default:
      return assertNever(error);
  }
};

/**
 * Creates an open deal with a new id. `contactId` and `assignedToId`, when given,
 * must name a contact and a user of the company.
 */
export const createDeal = async (
  deps: DealServiceDeps,
  input: { companyId: string; fields: CreateDealFields; metadata: EventMetadata },
): Promise<E.Either<DealServiceError, { deal: Deal; position: Position }>> => {
  const { companyId, fields, metadata } = input;
  const dealId = deps.newId();
  const at = toIsoTimestamp(deps.clock.now());

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

  const created = await handleCommand(handlerDeps(deps), {
    decider: dealDecider,
    eventCodec: DealEvent,
    stream: dealStream(dealId),
    command: { kind: 'CreateDeal', dealId, companyId, fields, contact, assignedTo, at },
    metadata,
  });
  if (E.isLeft(created)) return E.left(serviceError(created.left));
  const { state, position } = created.right;
  if (state.status !== 'active' || position === null) throw new Error(`Deal ${dealId} was not created`);
  if (contactRead === null) return E.right({ deal: toDealView(state.deal), position });
  return E.right(await refreshContactAfterCreate(deps, { dealId, companyId, contactRead, deal: state.deal, position, metadata }));
};

/**
 * A contact change appended between reading the contact and appending
 * `DealCreated` is in the log before the deal, so the `deals` read model (which
 * follows `ContactUpdated` into the deals that exist) would never apply it to the
 * new deal. Read the contact's stream once more; if it moved, record the newer
 * summary on the deal (`DealContactRefreshed`). A change after this read comes
 * after the deal in the log and reaches it the usual way.
 */
const refreshContactAfterCreate = async (
  deps: DealServiceDeps,
  created: {
    dealId: string;
    companyId: string;
    contactRead: { summary: DealContactSummary; revision: number };
    deal: DealRecord;
    position: Position;
    metadata: EventMetadata;
  },
): Promise<{ deal: Deal; position: Position }> => {
  const { dealId, companyId, contactRead, deal, position, metadata } = created;
  const moved = await deps.eventStore.readStream(contactStream(contactRead.summary.id), {
    fromRevision: contactRead.revision + 1,
    maxCount: 1,
  });
  const now = moved.length > 0 ? await loadContactSummary(deps.eventStore, companyId, contactRead.summary.id) : null;
  if (now === null) return { deal: toDealView(deal), position };
  const refreshed = await handleCommand(handlerDeps(deps), {
    decider: dealDecider,
    eventCodec: DealEvent,
    stream: dealStream(dealId),
    command: { kind: 'RefreshDealContact', dealId, companyId, contact: now },
    metadata,
  });
  if (E.isLeft(refreshed) || refreshed.right.state.status !== 'active') return { deal: toDealView(deal), position };
  return { deal: toDealView(refreshed.right.state.deal), position: refreshed.right.position ?? position };
};

/**
 * Changes the status, stage or close date of a deal of the company (see
 * `dealDecider`). A change that moves nothing appends nothing (position null; the
 * deal and its updatedAt unchanged).
 *
 * The deal's contact is read first (the deal's stream names it), so that the
 * event's `deal` snapshot, and the response, embed the contact as it is now. A
 * contact change appended between that read and the deal's append is not in the
 * snapshot (the `deals` read model still shows it: it follows `ContactUpdated`).
 */
export const changeDealStatus = async (
  deps: DealServiceDeps,
  input: { companyId: string; dealId: string; change: DealStatusChangeFields; metadata: EventMetadata },
): Promise<E.Either<DealServiceError, { deal: Deal; position: Position | null }>> => {
  const { companyId, dealId, change, metadata } = input;
  const before = (await readDecoded(deps.eventStore, dealStream(dealId), DealEvent)).reduce(
    dealDecider.evolve,
    dealDecider.initialState,
  );
  const linked = before.status === 'active' && before.deal.companyId === companyId ? before.deal.contact : null;
  const contact = linked && ((await loadContactSummary(deps.eventStore, companyId, linked.id)) ?? linked);
  const changed = await handleCommand(handlerDeps(deps), {
    decider: dealDecider,
    eventCodec: DealEvent,
    stream: dealStream(dealId),
    command: { kind: 'ChangeDealStatus', dealId, companyId, change, contact, at: toIsoTimestamp(deps.clock.now()) },
    metadata,
  });
  if (E.isLeft(changed)) return E.left(serviceError(changed.left));
  const { state, position, events } = changed.right;
  if (state.status !== 'active') throw new Error(`Deal ${dealId} vanished`);
  // The response is what the event records (what webhooks carry); unchanged: the deal with its contact as read.
  const recorded = events.at(-1);
  if (recorded?.type === 'DealStatusChanged') return E.right({ deal: recorded.data.deal, position });
  const view = contact !== null && state.deal.contact?.id === contact.id ? toDealView({ ...state.deal, contact }) : null;
  return E.right({ deal: view ?? (await currentView(deps.eventStore, state.deal)), position });
};
