import { withIdempotency } from '../../../http/openapi/idempotency.js';
import { withEntityTag, withIfMatch } from '../../../http/openapi/conditional.js';
import {
  deletedEventData,
  restoredEventData,
  asOfParameter,
  authenticated,
  badMinLogPosition,
  bodyErrors,
  errorCase,
  historyEvent,
  historyParameters,
  idParameter,
  instant,
  itemEnvelope,
  json,
  jsonResponse,
  limitParameter,
  listEnvelope,
  minLogPosition,
  NAME_CHARACTERS_RULE,
  nullable,
  nullableText,
  pageParameter,
  schemaRef,
  sinceParameters,
  validationFailed,
  writePositionHeaders,
  type ApiModule,
} from '../../../http/openapi/common.js';
import { normalisedPhoneNumber } from '../application/contactsForDeals.js';
import type { JsonSchema } from '../../../http/openapi/types.js';

/** `/deals`: sales opportunities in a pipeline. */

const DEAL_STATUSES = ['open', 'won', 'lost'] as const;
const DEAL_PRIORITIES = ['low', 'medium', 'high'] as const;

const dealId = idParameter('deal');

const dealNotFound = jsonResponse(
  'No deal with this id in the caller\'s company, or it is deleted (`Deal not found`).',
  'DealNotFoundError',
  'authenticated',
);

const STATUS_CHANGE_DESCRIPTION = `
Changes a deal's \`status\`, its pipeline \`stage\` and its \`actualCloseDate\`; only the
fields sent change, and no other field is accepted (\`probability\`, \`title\`, …: 422
naming the field).

- **Status moves.** \`open\` → \`won\` or \`lost\` closes the deal. \`won\` or \`lost\` →
  \`open\` reopens it and clears \`actualCloseDate\`. \`won\` ↔ \`lost\` is allowed, as a
  correction of the outcome: the deal keeps the date it closed.
- **Close date.** An open deal that becomes \`won\` or \`lost\` without an
  \`actualCloseDate\` in the request closes now (the time of the request). \`actualCloseDate\` alone moves
  the close date of a won or lost deal. An \`actualCloseDate\` on a request whose result
  is an open deal is a 422 (\`details.actualCloseDate\`).
- **Stage** is free-form and moves independently of the status; \`null\` (or an empty
  string) clears it.
- A request that changes nothing (the current status, stage and close date) changes
  nothing: the deal is returned as it was, with the same \`updatedAt\`, and without
  \`X-Log-Position\`.
`.trim();

const dateInput = (description: string): JsonSchema =>
  instant(`${description} ISO 8601: a date (\`YYYY-MM-DD\`, midnight UTC) or a date-time with a zone (\`Z\` or \`±hh:mm\`).`);

const closedDeal = (description: string): JsonSchema => ({ ...nullable(schemaRef('Timestamp')), description });

/** A deal as the API shows it: every field present, unset ones null. */
const dealSchema = {
  type: 'object',
  required: [
    'id',
    'title',
    'description',
    'value',
    'currency',
    'stage',
    'priority',
    'probability',
    'status',
    'expectedCloseDate',
    'actualCloseDate',
    'source',
    'contact',
    'assignedTo',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'Server-assigned (a UUID).' },
    title: { type: 'string', minLength: 1, maxLength: 255 },
    description: nullableText(5000),
    value: { type: 'number', minimum: 0, description: 'The amount, in `currency`.' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, upper case.' },
    stage: nullableText(100, 'Free-form pipeline stage chosen by the client.'),
    priority: schemaRef('DealPriority'),
    probability: { type: ['number', 'null'], minimum: 0, maximum: 100, description: 'Chance of success, in percent.' },
    status: schemaRef('DealStatus'),
    expectedCloseDate: closedDeal('When the deal is expected to close; null when not given.'),
    actualCloseDate: closedDeal('When the deal was won or lost; null exactly while it is open.'),
    source: nullableText(100, 'Origin of the deal, free text.'),
    contact: {
      ...nullable(schemaRef('DealContact')),
      description: 'The linked contact; null when none. A deleted contact shows as its `id` with every other field null.',
    },
    assignedTo: {
      oneOf: [schemaRef('DealUser'), schemaRef('ErasedDealUser'), { type: 'null' }],
      description:
        'The assigned user; null when none, and when the user was erased (no user is shown without its name and e-mail). ' +
        'Only a response kept for an `Idempotency-Key` replay, made before the user was erased, shows them as their `id` ' +
        'with `name` and `email` null, as the deal\'s webhook events carry them.',
    },
    createdAt: schemaRef('Timestamp'),
    updatedAt: schemaRef('Timestamp'),
  },
} satisfies JsonSchema;

export const deals: ApiModule = {
  tags: [{ name: 'Deals', description: 'Sales opportunities in a pipeline.' }],
  paths: {
    '/deals': {
      get: authenticated('deals:read', {
        operationId: 'listDeals',
        tags: ['Deals'],
        summary: 'List deals',
        description:
          'Oldest first (creation order), so pages stay stable while deals are added. Filters combine (all must match). ' +
          'A parameter out of its bounds or malformed is a 422 naming it.',
        parameters: [
          pageParameter,
          limitParameter,
          {
            name: 'status',
            in: 'query',
            required: false,
            description: 'Only deals with this status.',
            schema: schemaRef('DealStatus'),
          },
          {
            name: 'stage',
            in: 'query',
            required: false,
            description: 'Only deals in exactly this stage.',
            schema: { type: 'string', maxLength: 200 },
          },
          ...sinceParameters('Deals'),
          minLogPosition,
        ],
        responses: {
          '200': jsonResponse('A page of deals.', 'DealList', 'authenticated'),
          '400': badMinLogPosition(),
          '422': validationFailed('A query parameter is out of bounds or malformed'),
        },
      }),
      post: withIdempotency(authenticated('deals:write', {
        operationId: 'createDeal',
        tags: ['Deals'],
        summary: 'Create a deal',
        description: 'A new deal is `open`, without a close date.',
        requestBody: { required: true, content: json(schemaRef('DealCreate')) },
        responses: {
          '201': jsonResponse('The new deal.', 'DealResponse', 'authenticated', writePositionHeaders(true)),
          ...bodyErrors,
          '400': jsonResponse(
            'The body is not valid JSON (`Bad request`), or `contactId` names no contact of the caller\'s company ' +
              '(`Contact not found or does not belong to your company`), or `assignedToId` no user of it ' +
              '(`User not found or does not belong to your company`).',
            { oneOf: [schemaRef('BadRequestError'), schemaRef('DealReferenceError')] },
            'authenticated',
          ),
          '422': validationFailed('The body is invalid'),
        },
      })),
    },
    '/deals/{id}': {
      get: withEntityTag('deal', authenticated('deals:read', {
        operationId: 'getDeal',
        tags: ['Deals'],
        summary: 'Get a deal',
        description:
          'The deal now, from the read model; with `asOf`, as it was at that instant, folded from its events (same ' +
          'shape), its embedded contact as the contact was at that instant too. A deleted deal is not found (with ' +
          '`asOf`: from its deletion on).',
        parameters: [dealId, asOfParameter('deal'), minLogPosition],
        responses: {
          '200': jsonResponse('The deal (as it was at `asOf`, when given).', 'DealResponse', 'authenticated'),
          '400': badMinLogPosition(),
          '404': jsonResponse(
            'No deal with this id in the caller\'s company, or it is deleted, or none yet (or deleted) at `asOf` (`Deal not found`).',
            'DealNotFoundError',
            'authenticated',
          ),
          '422': validationFailed('`asOf` is malformed'),
        },
      })),
      delete: authenticated('deals:write', {
        operationId: 'deleteDeal',
        tags: ['Deals'],
        summary: 'Delete a deal',
        description:
          'The deal answers 404 from now on (GET, status changes, a second DELETE) and leaves every list, filter, ' +
          'total and `recent` trigger of `deal.*`; its history stays readable. It can be restored until ' +
          '`restorableUntil`. Deleting a deal already deleted answers 404. Answers once the read models no longer show it.',
        parameters: [dealId],
        responses: {
          '200': jsonResponse('When the deal was deleted and until when it can be restored.', 'DeletedRecordResponse', 'authenticated', writePositionHeaders(true)),
          '404': dealNotFound,
        },
      }),
    },
    '/deals/{id}/restore': {
      post: authenticated('deals:write', {
        operationId: 'restoreDeal',
        tags: ['Deals'],
        summary: 'Restore a deleted deal',
        description:
          'Brings a deleted deal back as it was when it was deleted (same id, fields and `updatedAt`), while it is ' +
          'restorable (`restorableUntil` of the delete), with its contact as the contact is now (its `id` and nulls ' +
          'when the contact is deleted). A deal that is not deleted is answered as it is, unchanged.',
        parameters: [dealId],
        requestBody: { required: true, content: json({ type: 'object', description: 'An empty JSON object (`{}`): nothing is read from it.' }) },
        responses: {
          '200': jsonResponse('The deal, restored.', 'DealResponse', 'authenticated', writePositionHeaders(false)),
          ...bodyErrors,
          '404': jsonResponse(
            'No deal with this id in the caller\'s company, or it is no longer restorable (`Deal not found`).',
            'DealNotFoundError',
            'authenticated',
          ),
        },
      }),
    },
    '/deals/{id}/history': {
      get: authenticated('deals:read', {
        operationId: 'getDealHistory',
        tags: ['Deals'],
        summary: 'The stored events of a deal',
        description:
          'Every event of the deal, oldest first: type, revision, log position, when it was recorded, which schema ' +
          'version it was stored in (`schema`), its data in the current version of its type (upcast when it was ' +
          'stored in an older one), and who caused it. Read from the event log itself, so it includes a write as soon as the write ' +
          'has answered. Paginated like the lists; `meta.total` counts the deal\'s events. (Changes of the ' +
          'embedded contact are in the contact\'s history.) A deleted deal\'s history stays readable.',
        parameters: [dealId, ...historyParameters, minLogPosition],
        responses: {
          '200': jsonResponse('A page of the deal\'s events.', 'DealHistory', 'authenticated'),
          '400': badMinLogPosition(),
          '404': jsonResponse('No deal with this id in the caller\'s company (`Deal not found`).', 'DealNotFoundError', 'authenticated'),
          '422': validationFailed('`page` or `limit` is out of bounds or malformed'),
        },
      }),
    },
    '/deals/{id}/status': {
      put: withIfMatch(
        'deal',
        'It guards the deal\'s own fields (its stream\'s revision): a change of the embedded contact alone moves the ' +
          'ETag\'s position but does not fail `If-Match`, since this write cannot change the contact.',
        authenticated('deals:write', {
          operationId: 'changeDealStatus',
          tags: ['Deals'],
          summary: 'Change the status, stage or close date of a deal',
          description: STATUS_CHANGE_DESCRIPTION,
          parameters: [dealId],
          requestBody: { required: true, content: json(schemaRef('DealStatusChange')) },
          responses: {
            '200': jsonResponse('The deal after the change.', 'DealResponse', 'authenticated', writePositionHeaders(false)),
            ...bodyErrors,
            '404': dealNotFound,
            '422': validationFailed(
              'The body is invalid: empty, a field other than `status`, `stage` and `actualCloseDate`, a bad value, ' +
                'or an `actualCloseDate` for a deal that is open after the change',
            ),
          },
        }),
      ),
    },
  },
  schemas: {
    DealStatus: {
      type: 'string',
      enum: [...DEAL_STATUSES],
      description: '`open` when created; `won` and `lost` close the deal (and may be reopened or corrected).',
    },
    DealPriority: { type: 'string', enum: [...DEAL_PRIORITIES] },
    DealContact: {
      type: 'object',
      description:
        'The contact linked to a deal; it follows the contact\'s later changes. A deleted contact keeps the link: ' +
        'its `id`, with `name`, `email`, `phoneNumber` and `currentCompany` null, until it is restored.',
      required: ['id', 'name', 'email', 'phoneNumber', 'currentCompany'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        name: { type: ['string', 'null'], description: 'Null only when the contact is deleted.' },
        email: { type: ['string', 'null'] },
        phoneNumber: { ...nullable(normalisedPhoneNumber), description: 'Null only when the contact is deleted.' },
        currentCompany: { type: ['string', 'null'] },
      },
    },
    DealContactSnapshot: {
      type: 'object',
      description:
        'A summary of the deal\'s contact as its stream had it (a live contact), recorded in the deal\'s events; ' +
        'its fields but `id` are `null` in events whose contact was erased.',
      required: ['id', 'name', 'email', 'phoneNumber', 'currentCompany'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        name: { type: ['string', 'null'] },
        email: { type: ['string', 'null'] },
        phoneNumber: nullable(normalisedPhoneNumber),
        currentCompany: { type: ['string', 'null'] },
      },
    },
    DealUser: {
      type: 'object',
      description: 'The user a deal is assigned to.',
      required: ['id', 'name', 'email'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        email: { type: 'string' },
      },
    },
    ErasedDealUser: {
      type: 'object',
      description: 'An erased user, in a deal answered before the erasure and replayed for its `Idempotency-Key`: the id, nothing else.',
      required: ['id', 'name', 'email'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        name: { type: 'null' },
        email: { type: 'null' },
      },
    },
    DealUserSnapshot: {
      type: 'object',
      description: 'The user a deal is assigned to, as the deal\'s events recorded it: `name` and `email` are `null` in events whose user was erased.',
      required: ['id', 'name', 'email'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        name: { type: ['string', 'null'] },
        email: { type: ['string', 'null'] },
      },
    },
    DealSnapshot: {
      ...dealSchema,
      description:
        'A deal as a stored event holds it: a Deal, its contact\'s fields but `id` `null` when the contact was deleted or ' +
        'erased, its assigned user\'s `name` and `email` `null` when the user was erased.',
      properties: {
        ...dealSchema.properties,
        assignedTo: { ...nullable(schemaRef('DealUserSnapshot')), description: 'The assigned user as the event recorded it; null when none.' },
      },
    },
    Deal: dealSchema,
    DealCreate: {
      type: 'object',
      description:
        'Unknown fields (including `id`, `status`, `actualCloseDate`, `createdAt`, `updatedAt`) are ignored. ' +
        'Strings are trimmed; an empty optional string or null means no value (`currency` and `priority` then take their defaults).',
      required: ['title', 'value'],
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 255, description: `Trimmed. ${NAME_CHARACTERS_RULE}` },
        value: { type: 'number', minimum: 0, description: 'A JSON number (`"100"` is refused), at most 10^15.' },
        description: nullableText(5000),
        currency: {
          type: ['string', 'null'],
          pattern: '^[A-Za-z]{3}$',
          default: 'EUR',
          description: 'An ISO 4217 currency code in current use, in any case (`usd` is stored as `USD`).',
          examples: ['EUR', 'usd'],
        },
        stage: nullableText(100, 'Free-form pipeline stage.'),
        priority: { type: ['string', 'null'], enum: [...DEAL_PRIORITIES, null], default: 'medium' },
        probability: { type: ['number', 'null'], minimum: 0, maximum: 100, description: 'Chance of success, in percent.' },
        expectedCloseDate: nullable(dateInput('When the deal is expected to close.')),
        source: nullableText(100, 'Origin of the deal, free text.'),
        contactId: {
          type: ['string', 'null'],
          maxLength: 255,
          description: 'A contact of the caller\'s company (else 400 `Contact not found or does not belong to your company`).',
        },
        assignedToId: {
          type: ['string', 'null'],
          maxLength: 255,
          description: 'A user of the caller\'s company (else 400 `User not found or does not belong to your company`).',
        },
      },
    },
    DealStatusChange: {
      type: 'object',
      description: 'At least one of the three fields, and no other.',
      minProperties: 1,
      additionalProperties: false,
      properties: {
        status: schemaRef('DealStatus'),
        stage: nullableText(100, 'The new stage (trimmed); null or an empty string clears it.'),
        actualCloseDate: dateInput('When the deal was won or lost; only for a deal that is won or lost after the change.'),
      },
    },
    DealHistoryEvent: historyEvent('A stored event of a deal.', {
      DealCreated: schemaRef('DealCreatedData'),
      DealStatusChanged: schemaRef('DealStatusChangedData'),
      DealContactRefreshed: schemaRef('DealContactRefreshedData'),
      DealDeleted: schemaRef('DealDeletedData'),
      DealRestored: schemaRef('DealRestoredData'),
    }),
    DealHistory: listEnvelope('DealHistoryEvent'),
    DealCreatedData: {
      type: 'object',
      description:
        'A deal came into being, `open` and without a close date; `contact` and `assignedTo` are snapshots taken ' +
        'from their streams at creation (their fields but `id` `null` in events whose person was erased).',
      required: [
        'dealId',
        'companyId',
        'title',
        'description',
        'value',
        'currency',
        'stage',
        'priority',
        'probability',
        'expectedCloseDate',
        'source',
        'contact',
        'assignedTo',
        'createdAt',
      ],
      additionalProperties: false,
      properties: {
        dealId: { type: 'string' },
        companyId: { type: 'string' },
        title: { type: 'string' },
        description: { type: ['string', 'null'] },
        value: { type: 'number' },
        currency: { type: 'string' },
        stage: { type: ['string', 'null'] },
        priority: schemaRef('DealPriority'),
        probability: { type: ['number', 'null'] },
        expectedCloseDate: nullable(schemaRef('Timestamp')),
        source: { type: ['string', 'null'] },
        contact: nullable(schemaRef('DealContactSnapshot')),
        assignedTo: nullable(schemaRef('DealUserSnapshot')),
        createdAt: schemaRef('Timestamp'),
      },
    },
    DealStatusChangedData: {
      type: 'object',
      description:
        'A deal\'s status, stage or close date changed: `status` and `stage` (from → to) only when they moved, ' +
        '`actualCloseDate` after the change, and `deal`, the whole deal after the change.',
      required: ['dealId', 'companyId', 'actualCloseDate', 'updatedAt', 'deal'],
      additionalProperties: false,
      properties: {
        dealId: { type: 'string' },
        companyId: { type: 'string' },
        status: {
          type: 'object',
          required: ['from', 'to'],
          additionalProperties: false,
          properties: { from: schemaRef('DealStatus'), to: schemaRef('DealStatus') },
        },
        stage: {
          type: 'object',
          required: ['from', 'to'],
          additionalProperties: false,
          properties: { from: { type: ['string', 'null'] }, to: { type: ['string', 'null'] } },
        },
        actualCloseDate: nullable(schemaRef('Timestamp')),
        updatedAt: schemaRef('Timestamp'),
        deal: schemaRef('DealSnapshot'),
      },
    },
    DealContactRefreshedData: {
      type: 'object',
      description:
        'The embedded contact summary brought up to date: appended after `DealCreated` (or `DealRestored`) when the ' +
        'contact changed while the deal was being created (or restored): its newer summary, or, deleted meanwhile, its ' +
        'id with every other field `null` (as in events whose contact was erased). Not a change of the deal (no ' +
        '`updatedAt`, no webhook event).',
      required: ['dealId', 'companyId', 'contact'],
      additionalProperties: false,
      properties: {
        dealId: { type: 'string' },
        companyId: { type: 'string' },
        contact: schemaRef('DealContact'),
      },
    },
    DealDeletedData: deletedEventData('dealId', 'The deal was deleted; it can be restored until `restorableUntil`.'),
    DealRestoredData: restoredEventData(
      'dealId',
      'deal',
      'DealSnapshot',
      'A deleted deal came back: `deal` is the deal as it was when deleted, with its contact as the contact was when it was restored.',
    ),
    DealResponse: itemEnvelope('Deal'),
    DealList: listEnvelope('Deal'),
    DealNotFoundError: errorCase({ const: 'Deal not found' }),
    DealReferenceError: errorCase({
      enum: ['Contact not found or does not belong to your company', 'User not found or does not belong to your company'],
    }),
  },
};
