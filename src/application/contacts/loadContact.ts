import { contactDecider } from '../../domain/contacts/contactDecider.js';
import { ContactEvent, contactStream } from '../../domain/contacts/contactEvents.js';
import type { ContactRecord } from '../../domain/contacts/contactRecord.js';
import { loadAggregate } from '../commands/loadAggregate.js';
import type { EventStore } from '../ports/EventStore.js';

/** The contact as its stream has it now, or null when there is none. */
export const loadContact = async (eventStore: Pick<EventStore, 'readStream'>, contactId: string): Promise<ContactRecord | null> => {
  const { state } = await loadAggregate(eventStore, contactStream(contactId), { eventCodec: ContactEvent, decider: contactDecider });
  return state.status === 'active' ? state.contact : null;
};
