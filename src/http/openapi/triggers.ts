import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/eventTypes.js';
import { deriveSampleData } from '../../webhooks/deriveSampleData.js';
import {
  authenticated,
  badMinLogPosition,
  errorCase,
  headersOf,
  instant,
  json,
  jsonResponse,
  minLogPosition,
  nullable,
  schemaRef,
  validationFailed,
  type ApiModule,
} from './common.js';
import type { ParameterObject, ResponseObject } from './types.js';

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
`.trim();

const eventTypeParameter: ParameterObject = {
  name: 'event_type',
  in: 'path',
  required: true,
  description: 'A webhook event type; anything else is a 404 `Unknown event type`.',
  schema: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
};

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

export const triggers: ApiModule = {
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
        parameters: [eventTypeParameter, minLogPosition],
        responses: {
          '200': records('The record.', 'TriggerRecord', deriveSampleData('deal.won')),
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
        parameters: [eventTypeParameter, limitParameter, sinceParameter, minLogPosition],
        responses: {
          '200': records('The records, newest first.', 'TriggerRecordList', [deriveSampleData('contact.created')]),
          '400': badMinLogPosition(),
          '404': unknownEventType,
          '422': validationFailed('`limit` or `since` is out of bounds or malformed'),
        },
      }),
    },
  },
  schemas: {
    DealWon: {
      type: 'object',
      description: 'The record of a `deal.won` event (the specification\'s fields).',
      required: ['id', 'title', 'value', 'currency', 'stage', 'status', 'wonAt', 'contact'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        title: { type: 'string', minLength: 1, maxLength: 255 },
        value: { type: 'number', minimum: 0 },
        currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        stage: { type: ['string', 'null'], maxLength: 100 },
        status: { const: 'won' },
        wonAt: { ...schemaRef('Timestamp'), description: 'When the deal was won: its `actualCloseDate`.' },
        contact: {
          ...nullable({
            type: 'object',
            required: ['id', 'name', 'email'],
            additionalProperties: false,
            properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: ['string', 'null'] } },
          }),
          description: 'The deal\'s contact when it was won; null when none.',
        },
      },
    },
    TriggerRecord: {
      description: 'A Contact (`contact.*`), a `DealWon` (`deal.won`) or a Deal (other `deal.*`).',
      oneOf: [schemaRef('Contact'), schemaRef('DealWon'), schemaRef('Deal')],
    },
    TriggerRecordList: { type: 'array', items: schemaRef('TriggerRecord') },
    UnknownEventTypeError: errorCase({ const: 'Unknown event type' }),
  },
};
