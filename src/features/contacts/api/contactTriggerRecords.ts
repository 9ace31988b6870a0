import type { TriggerRecordSchemas } from '../../webhookEvents/index.js';
import { contacts } from './contactsOpenApi.js';

/** The records of the `contact.*` webhook events and triggers: the Contact. */
export const contactTriggerRecords: TriggerRecordSchemas = {
  shapes: [
    {
      schema: 'Contact',
      types: ['contact.created', 'contact.updated'],
      described: { trigger: 'a Contact (`contact.*`)', feed: 'a Contact (`contact.*`)' },
    },
  ],
  shared: {},
  records: { TriggerContact: contacts.schemas.Contact! },
  alternatives: ['TriggerContact'],
  examples: { recent: 'contact.created' },
};
