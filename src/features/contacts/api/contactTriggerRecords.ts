import { RECORD_ERASED, recordLifecycleSchemas, type TriggerRecordSchemas } from '../../webhookEvents/index.js';
import { contacts } from './contactsOpenApi.js';

/** The records of the `contact.*` webhook events and triggers: the Contact; a delete's, a restore's and an erasure's id and time. */
export const contactTriggerRecords: TriggerRecordSchemas = {
  shapes: [
    {
      // An erased contact's records keep their place in the feed with its personal fields null; `recent` leaves them out.
      schema: 'ContactSnapshot',
      types: ['contact.created', 'contact.updated'],
      described: {
        trigger: 'a Contact (`contact.created`, `contact.updated`)',
        feed: 'a Contact (`contact.created`, `contact.updated`; an erased contact\'s personal fields `null`)',
      },
    },
    {
      schema: 'RecordDeleted',
      types: ['contact.deleted'],
      described: { trigger: 'a `RecordDeleted` (`contact.deleted`)', feed: 'a RecordDeleted (`contact.deleted`)' },
    },
    {
      schema: 'RecordRestored',
      types: ['contact.restored'],
      described: { trigger: 'a `RecordRestored` (`contact.restored`)', feed: 'a RecordRestored (`contact.restored`)' },
    },
    {
      schema: 'RecordErased',
      types: ['contact.erased'],
      described: { trigger: 'a `RecordErased` (`contact.erased`)', feed: 'a RecordErased (`contact.erased`)' },
    },
  ],
  shared: { ...recordLifecycleSchemas.shared, RecordErased: RECORD_ERASED },
  records: { TriggerContact: contacts.schemas.Contact!, ...recordLifecycleSchemas.records, TriggerRecordErased: RECORD_ERASED },
  alternatives: ['TriggerContact', ...recordLifecycleSchemas.alternatives, 'TriggerRecordErased'],
  examples: { recent: 'contact.created' },
};
