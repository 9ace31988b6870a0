import { schemaRef } from '../../../http/openapi/common.js';
import type { JsonSchema } from '../../../http/openapi/types.js';

/*
 * The records of the webhook events that say a record was deleted or restored
 * (`contact.deleted`, `deal.restored` …): its id and when, never a field of the
 * record itself. Contacts and deals declare the same two shapes; the trigger
 * records' `oneOf` lists each once.
 */

/** `{id, deletedAt}`: a record was deleted. */
export const RECORD_DELETED: JsonSchema = {
  type: 'object',
  description: 'A contact or deal was deleted: its id and when. It can be restored until the period of `DELETED_RECORDS_RETENTION_DAYS` ends.',
  required: ['id', 'deletedAt'],
  additionalProperties: false,
  properties: { id: { type: 'string' }, deletedAt: schemaRef('Timestamp') },
};

/** `{id, restoredAt}`: a deleted record came back. */
export const RECORD_RESTORED: JsonSchema = {
  type: 'object',
  description: 'A deleted contact or deal came back as it was: its id and when. Read the record itself for its fields.',
  required: ['id', 'restoredAt'],
  additionalProperties: false,
  properties: { id: { type: 'string' }, restoredAt: schemaRef('Timestamp') },
};

/** `{id, erasedAt}`: a person was erased (contacts only); receivers erase their own copies of them. */
export const RECORD_ERASED: JsonSchema = {
  type: 'object',
  description:
    'A contact was erased, for good: its id and when. Every personal value Chronicle kept of it is unreadable from then on; ' +
    'erase your own copies of it too.',
  required: ['id', 'erasedAt'],
  additionalProperties: false,
  properties: { id: { type: 'string' }, erasedAt: schemaRef('Timestamp') },
};

/** The schemas and trigger records of both shapes, to spread into a source's `TriggerRecordSchemas`. */
export const recordLifecycleSchemas = {
  shared: { RecordDeleted: RECORD_DELETED, RecordRestored: RECORD_RESTORED },
  records: { TriggerRecordDeleted: RECORD_DELETED, TriggerRecordRestored: RECORD_RESTORED },
  alternatives: ['TriggerRecordDeleted', 'TriggerRecordRestored'],
} as const;
