/**
 * The contact and the user a deal embeds, read on the write side from their own
 * streams (folded with their domains' codecs): each must exist in the deal's
 * company.
 */
import { companyOfContact, contactDecider } from '../domain/contactsForDeals.js';
import { ContactEvent, contactStream } from '../domain/contactsForDeals.js';
import { contactSummaryOf, deletedContactSummary, liveContactSummaryOf } from '../domain/dealContactSummary.js';
import type { DealContactSummary, DealContactView, DealUserSnapshot, DealUserSummary } from '../domain/dealEvents.js';
import type { DealRecord } from '../domain/dealRecord.js';
import { toDealView, type Deal } from '../domain/dealView.js';
import { UserEvent, userStream } from '../../users/index.js';
import { loadAggregate, type AggregateFolding } from '../../../application/commands/loadAggregate.js';
import type { EventStore } from '../../../application/ports/EventStore.js';

/**
 * The summary of a contact of `companyId` as its stream has it now, with the
 * stream's last revision, or null (unknown, another company's, deleted, or
 * erased: a deal is not linked to a contact it cannot show).
 */
export const readContactSummary = async (
  eventStore: Pick<EventStore, 'readStream'>,
  companyId: string,
  contactId: string,
): Promise<{ summary: DealContactSummary; revision: number } | null> => {
  const { state, revision } = await loadAggregate(eventStore, contactStream(contactId), { eventCodec: ContactEvent, decider: contactDecider });
  const summary = state.status === 'active' && state.contact.companyId === companyId ? liveContactSummaryOf(state.contact) : null;
  return summary && { summary, revision };
};

export const loadContactSummary = async (
  eventStore: Pick<EventStore, 'readStream'>,
  companyId: string,
  contactId: string,
): Promise<DealContactSummary | null> => (await readContactSummary(eventStore, companyId, contactId))?.summary ?? null;

/**
 * A contact of `companyId` as a deal shows it now: its summary, or for a deleted
 * contact its id with every other field null (an erased one's too: its fields read
 * as null); with the stream's last revision. Null when unknown or another company's.
 */
export const readContactShown = async (
  eventStore: Pick<EventStore, 'readStream'>,
  companyId: string,
  contactId: string,
): Promise<{ shown: DealContactView; revision: number } | null> => {
  const { state, revision } = await loadAggregate(eventStore, contactStream(contactId), { eventCodec: ContactEvent, decider: contactDecider });
  if (companyOfContact(state) !== companyId) return null;
  return { shown: state.status === 'active' ? contactSummaryOf(state.contact) : deletedContactSummary(contactId), revision };
};

export const loadContactShown = async (
  eventStore: Pick<EventStore, 'readStream'>,
  companyId: string,
  contactId: string,
): Promise<DealContactView | null> => (await readContactShown(eventStore, companyId, contactId))?.shown ?? null;

/**
 * A user as a deal shows it: the user decider's state keeps only ids, so this
 * fold keeps the name and e-mail of `UserCreated`, null when they read as null,
 * and from `UserErased` on (the user erased).
 */
type UserSummaryState = { readonly companyId: string; readonly summary: DealUserSnapshot } | null;
const userSummaryFold: AggregateFolding<UserEvent, UserSummaryState> = {
  eventCodec: UserEvent,
  decider: {
    initialState: null,
    evolve: (_, event) =>
      event.type === 'UserCreated'
        ? { companyId: event.data.companyId, summary: { id: event.data.userId, name: event.data.name, email: event.data.email } }
        : { companyId: event.data.companyId, summary: { id: event.data.userId, name: null, email: null } },
  },
};

/** The summary of a user of `companyId`, or null (unknown, another company's, or erased: a deal is not assigned to a user it cannot name). */
export const loadUserSummary = async (
  eventStore: Pick<EventStore, 'readStream'>,
  companyId: string,
  userId: string,
): Promise<DealUserSummary | null> => {
  const { state } = await loadAggregate(eventStore, userStream(userId), userSummaryFold);
  if (state === null || state.companyId !== companyId) return null;
  const { id, name, email } = state.summary;
  return name !== null && email !== null ? { id, name, email } : null;
};

/**
 * The response view, with the contact as it is now, nulls but `id` when it is
 * deleted (what the read model shows once it has caught up).
 */
export const currentView = async (eventStore: Pick<EventStore, 'readStream'>, deal: DealRecord): Promise<Deal> => {
  if (deal.contact === null) return toDealView(deal);
  const contact = await loadContactShown(eventStore, deal.companyId, deal.contact.id);
  return toDealView(contact === null ? deal : { ...deal, contact });
};
