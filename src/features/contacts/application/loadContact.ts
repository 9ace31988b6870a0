import { contactDecider } from '../domain/contactDecider.js';
import { ContactEvent, contactStream } from '../domain/contactEvents.js';
import type { ContactRecord } from '../domain/contactRecord.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import type { EventStore } from '../../../application/ports/EventStore.js';

/** The contact as its stream has it now, or null when there is none. */
export const loadContact = async (eventStore: Pick<EventStore, 'readStream'>, contactId: string): Promise<ContactRecord | null> => {
  const { state } = await loadAggregate(eventStore, contactStream(contactId), { eventCodec: ContactEvent, decider: contactDecider });
  return state.status === 'active' ? state.contact : null;
};
