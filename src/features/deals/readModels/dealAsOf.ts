import type { EventStore } from '../../../application/ports/EventStore.js';
import { eventsAsOf, foldDocument } from '../../../application/audit/timeTravel.js';
import { contactStream } from '../domain/contactsForDeals.js';
import { DealCreated, dealStream } from '../domain/dealEvents.js';
import type { Deal } from '../domain/dealView.js';
import { dealOf, dealsProjection } from './dealsProjection.js';

/**
 * A deal of `companyId` as it was at `asOf`; null when it did not exist yet or was
 * deleted then, or is unknown or another company's.
 *
 * A deal embeds a summary of its contact, which the read model keeps following
 * through the contact's events (updates, its deletion and restore); so the deal's
 * events are folded merged (by log position) with its contact's, both up to
 * `asOf`, and the summary is the contact as it was then. The assigned user's summary needs nothing more:
 * a user's stream never changes after `UserCreated`.
 */
export const dealAsOf = async (
  eventStore: Pick<EventStore, 'readStream'>,
  query: { readonly companyId: string; readonly id: string; readonly asOf: string },
): Promise<Deal | null> => {
  const dealEvents = await eventStore.readStream(dealStream(query.id));
  const first = dealEvents[0];
  const created = first && { type: first.type, data: first.data };
  if (!DealCreated.is(created) || created.data.companyId !== query.companyId) return null;
  const contactId = created.data.contact?.id;
  const contactEvents = contactId === undefined ? [] : await eventStore.readStream(contactStream(contactId));
  const doc = foldDocument(dealsProjection, eventsAsOf([...dealEvents, ...contactEvents], query.asOf));
  return doc && doc.companyId === query.companyId ? dealOf(doc) : null;
};
