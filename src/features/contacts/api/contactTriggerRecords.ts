import { recordLifecycleSchemas, type TriggerRecordSchemas } from '../../webhookEvents/index.js';
import { contacts } from './contactsOpenApi.js';

/** The records of the `contact.*` webhook events and triggers: the Contact; a delete's and a restore's id and time. */
export const contactTriggerRecords: TriggerRecordSchemas = {
  shapes: [
    {
      schema: 'Contact',
      types: ['contact.created', 'contact.updated'],
      described: { trigger: 'a Contact (`contact.created`, `contact.updated`)', feed: 'a Contact (`contact.created`, `contact.updated`)' },
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
  ],
  shared: recordLifecycleSchemas.shared,
  records: { TriggerContact: contacts.schemas.Contact!, ...recordLifecycleSchemas.records },
  alternatives: ['TriggerContact', ...recordLifecycleSchemas.alternatives],
  examples: { recent: 'contact.created' },
};
