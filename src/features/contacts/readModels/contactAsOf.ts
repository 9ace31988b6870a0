import type { EventStore } from '../../../application/ports/EventStore.js';
import { eventsAsOf, foldDocument } from '../../../application/audit/timeTravel.js';
import { contactStream } from '../domain/contactEvents.js';
import type { Contact } from '../domain/contactView.js';
import { contactOf, contactsProjection } from './contactsProjection.js';

/** A contact of `companyId` as it was at `asOf`; null when it did not exist yet or was deleted then, or is unknown or another company's. */
export const contactAsOf = async (
  eventStore: Pick<EventStore, 'readStream'>,
  query: { readonly companyId: string; readonly id: string; readonly asOf: string },
): Promise<Contact | null> => {
  const events = await eventStore.readStream(contactStream(query.id));
  const doc = foldDocument(contactsProjection, eventsAsOf(events, query.asOf));
  return doc && doc.companyId === query.companyId ? contactOf(doc) : null;
};
