import type { WebhookEventCatalogue } from '../application/webhookEventCatalogue.js';
import { capitalised, inWords } from './inWords.js';
import {
  authenticated,
  badMinLogPosition,
  errorCase,
  headersOf,
  instant,
  json,
  jsonResponse,
  minLogPosition,
  schemaRef,
  validationFailed,
  type ApiModule,
} from '../../../http/openapi/common.js';
import type { JsonSchema, ParameterObject, ResponseObject } from '../../../http/openapi/types.js';

const eventIdProperty: JsonSchema = {
  type: 'string',
  format: 'uuid',
  description:
    'The id of the event this record comes from (a delivery\'s `metadata.eventId`): different for every change, where ' +
    '`id` is the contact\'s or deal\'s and the same for all its changes. The key to de-duplicate polled records on.',
};

/** A closed object schema of a record, with `eventId` added. */
const withEventId = (schema: JsonSchema | undefined, name: string): JsonSchema => {
  if (!schema?.properties || !schema.required) throw new Error(`OpenAPI: schema ${name} is not a closed object`);
  return {
    ...schema,
    description: `${schema.description ? `${schema.description} ` : ''}As a trigger record: with \`eventId\`.`,
    required: [...schema.required, 'eventId'],
    properties: { ...schema.properties, eventId: eventIdProperty },
  };
};

/** `/triggers`: polling triggers for Zapier and Make (bare records, not wrapped in `success`/`data`). */

const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;

const PERMISSIONS = `
**Permissions.** \`webhooks:read\`, and also the read permission of the event type's
resource, since the records are contacts or deals: \`contacts:read\` for \`contact.*\`,
\`deals:read\` for \`deal.*\`. The 403 names the missing one in \`requiredPermission\`.
`.trim();

const RECORDS = `
**Records.** What a webhook of the same type carries as \`data\`: a Contact for
\`contact.created\` and \`contact.updated\` (the contact as it was right after the
change), \`DealWon\` for \`deal.won\`, and a Deal for the other \`deal.*\` types (the
deal right after the change, its contact as it was then). One change of a deal can
be several events: a win that moves the stage is a \`deal.won\`, a
\`deal.stage_changed\` and a \`deal.updated\`.

**Telling changes apart.** Each record also carries \`eventId\`, the id of the
event it comes from (as a delivery's \`metadata.eventId\`). \`id\` stays the
contact's or deal's, so every change of one record has the same \`id\`: a poller
that de-duplicates must do it on \`eventId\` (the shipped Zapier integration
marks it as the primary key; in Make, use it as the key of a data store or of the
de-duplication filter).
`.trim();

const eventTypeParameter = (catalogue: WebhookEventCatalogue): ParameterObject => ({
  name: 'event_type',
  in: 'path',
  required: true,
  description: 'A webhook event type; anything else is a 404 `Unknown event type`.',
  schema: { type: 'string', enum: [...catalogue.types] },
});

const limitParameter: ParameterObject = {
  name: 'limit',
  in: 'query',
  required: false,
  description: `At most this many records (1–${MAX_LIMIT}); out of range or not an integer: 422.`,
  schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
};

const sinceParameter: ParameterObject = {
  name: 'since',
  in: 'query',
  required: false,
  schema: instant(
    'Only events that happened strictly after this instant (ISO 8601: a date, meaning midnight UTC, ' +
      'or a date-time with a zone); malformed: 422.',
  ),
};

const unknownEventType = jsonResponse(
  'The path names no event type (`Unknown event type`).',
  'UnknownEventTypeError',
  'authenticated',
);

const records = (description: string, schema: string, example: unknown): ResponseObject => ({
  description,
  headers: headersOf('authenticated'),
  content: { 'application/json': { ...json(schemaRef(schema))['application/json'], example } },
});

/** Each source's trigger records with `eventId` added, their shared schemas, and `TriggerRecord`, any of them. */
const recordSchemas = (catalogue: WebhookEventCatalogue): Record<string, JsonSchema> => {
  const { triggerRecords } = catalogue;
  const shared = Object.assign({}, ...triggerRecords.map((source) => source.shared)) as Record<string, JsonSchema>;
  const records = Object.fromEntries(
    triggerRecords.flatMap((source) => Object.entries(source.records)).map(([name, schema]) => [name, withEventId(schema, name)]),
  );
  return {
    ...shared,
    ...records,
    TriggerRecord: {
      description: `${capitalised(inWords(triggerRecords.flatMap((source) => source.shapes.map((shape) => shape.described.trigger))))}, each with \`eventId\`.`,
      // Sources may share a shape (a deleted contact's record and a deleted deal's): each is listed once.
      oneOf: [...new Set(triggerRecords.flatMap((source) => source.alternatives))].map(schemaRef),
    },
  };
};

/** The record illustrating the document's answer of `/sample` or `/recent`: the example of the type a source names for it. */
const exampleRecord = (catalogue: WebhookEventCatalogue, answer: 'sample' | 'recent') => {
  const type = catalogue.triggerRecords.flatMap((source) => source.examples?.[answer] ?? [])[0] ?? catalogue.types[0]!;
  const sample = catalogue.sampleOf(type);
  return { ...sample.data, eventId: sample.eventId };
};

/** The OpenAPI part of `/triggers`, for the event types of `catalogue`. */
export const triggersOpenApi = (catalogue: WebhookEventCatalogue): ApiModule => ({
  tags: [
    {
      name: 'Triggers',
      description: 'Polling triggers for Zapier and Make: sample and recent records of each webhook event type.',
    },
  ],
  paths: {
    '/triggers/{event_type}/sample': {
      get: authenticated('webhooks:read', {
        operationId: 'getTriggerSample',
        tags: ['Triggers'],
        summary: 'One sample record of an event type',
        description: [
          'The bare record (not wrapped) of the company\'s latest event of this type; when it has none yet, a ' +
            'made-up example of exactly the same shape (plainly fake values: ids `00000000-0000-4000-8000-…`, ' +
            '`example.com` addresses), so an integration can map fields before the first real event.',
          RECORDS,
          PERMISSIONS,
        ].join('\n\n'),
        parameters: [eventTypeParameter(catalogue), minLogPosition],
        responses: {
          '200': records('The record.', 'TriggerRecord', exampleRecord(catalogue, 'sample')),
          '400': badMinLogPosition(),
          '404': unknownEventType,
        },
      }),
    },
    '/triggers/{event_type}/recent': {
      get: authenticated('webhooks:read', {
        operationId: 'listRecentTriggerRecords',
        tags: ['Triggers'],
        summary: 'Recent records of an event type',
        description: [
          `A bare JSON array (not wrapped) of the records of the company's events of this type, newest first ` +
            `(in the order the changes were recorded), at most \`limit\` (default ${DEFAULT_LIMIT}). ` +
            'Only real events: no examples. Each event is one record, so a contact updated twice appears twice.',
          RECORDS,
          PERMISSIONS,
        ].join('\n\n'),
        parameters: [eventTypeParameter(catalogue), limitParameter, sinceParameter, minLogPosition],
        responses: {
          '200': records('The records, newest first.', 'TriggerRecordList', [exampleRecord(catalogue, 'recent')]),
          '400': badMinLogPosition(),
          '404': unknownEventType,
          '422': validationFailed('`limit` or `since` is out of bounds or malformed'),
        },
      }),
    },
  },
  schemas: {
    ...recordSchemas(catalogue),
    TriggerRecordList: { type: 'array', items: schemaRef('TriggerRecord') },
    UnknownEventTypeError: errorCase({ const: 'Unknown event type' }),
  },
});
