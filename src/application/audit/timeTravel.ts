import type { EventStore, RecordedEvent } from '../ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../ports/ReadModelStore.js';
import { contactStream } from '../../domain/contacts/contactEvents.js';
import { DealCreated, dealStream } from '../../domain/deals/dealEvents.js';
import type { Contact } from '../../domain/contacts/contactView.js';
import type { Deal } from '../../domain/deals/dealView.js';
import { comparePositions } from '../../shared/Position.js';
import { contactOf, contactsProjection } from '../../../projections/contacts/contactsProjection.js';
import { dealOf, dealsProjection } from '../../../projections/deals/dealsProjection.js';

/**
 * The events (of one or several streams) that make up the state at `asOf` (an
 * ISO 8601 instant): in log order, up to the first one recorded after it. A
 * prefix of the log, so the state folded from it is one that really existed,
 * even if a clock stepped back between two appends.
 */
export const eventsAsOf = (events: readonly RecordedEvent[], asOf: string): RecordedEvent[] => {
  const instant = Date.parse(asOf);
  const inLogOrder = [...events].sort((a, b) => comparePositions(a.position, b.position));
  const end = inLogOrder.findIndex((event) => Date.parse(event.recordedAt) > instant);
  return end < 0 ? inLogOrder : inLogOrder.slice(0, end);
};

/**
 * Folds events with a read model's own `evolve` (skipping the types it does not
 * handle), so a past state has exactly the shape the read model serves now.
 */
export const foldDocument = <D extends ReadModelDocument>(projection: Projection<D>, events: readonly RecordedEvent[]): D | null =>
  events.reduce<D | null>((doc, event) => (projection.eventTypes.has(event.type) ? projection.evolve(doc, event) : doc), null);

/** A contact of `companyId` as it was at `asOf`; null when it did not exist yet, or is unknown or another company's. */
export const contactAsOf = async (
  eventStore: Pick<EventStore, 'readStream'>,
  query: { readonly companyId: string; readonly id: string; readonly asOf: string },
): Promise<Contact | null> => {
  const events = await eventStore.readStream(contactStream(query.id));
  const doc = foldDocument(contactsProjection, eventsAsOf(events, query.asOf));
  return doc && doc.companyId === query.companyId ? contactOf(doc) : null;
};

/**
 * A deal of `companyId` as it was at `asOf`; null when it did not exist yet, or is
 * unknown or another company's.
 *
 * A deal embeds a summary of its contact, which the read model keeps following
 * through the contact's `ContactUpdated` events; so the deal's events are folded
 * merged (by log position) with its contact's, both up to `asOf`, and the summary
 * is the contact as it was then. The assigned user's summary needs nothing more:
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
