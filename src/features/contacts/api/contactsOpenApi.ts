import { OPTIONAL_TEXT_FIELDS } from '../domain/contactEvents.js';
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
  text,
  validationFailed,
  writePositionHeaders,
  type ApiModule,
} from '../../../http/openapi/common.js';
import type { JsonSchema } from '../../../http/openapi/types.js';
import { withIdempotency } from '../../../http/openapi/idempotency.js';
import { withEntityTag, withIfMatch } from '../../../http/openapi/conditional.js';

/** `/contacts`: the people a company talks to. */

const contactId = idParameter('contact');

const contactNotFound = jsonResponse(
  'No contact with this id in the caller\'s company (`Contact not found`).',
  'NotFoundError',
  'authenticated',
);

/** Contact fields besides `name` and `phoneNumber`, with the specification's limits. */
const optionalContactFields = (nullable: boolean): Record<string, JsonSchema> => {
  const field = nullable ? nullableText : text;
  return {
    firstName: field(100, NAME_CHARACTERS_RULE),
    lastName: field(100, NAME_CHARACTERS_RULE),
    email: {
      type: nullable ? ['string', 'null'] : 'string',
      format: 'email',
      maxLength: 254,
      description: 'An e-mail address whose domain has at least one dot.',
    },
    position: field(100, 'Job title.'),
    currentCompany: field(255),
    industrySector: field(100),
    city: field(100),
    country: field(100),
  };
};

const phoneNumberInput: JsonSchema = {
  type: 'string',
  pattern: '^\\s*\\+?[0-9 .\\-()]+\\s*$',
  description:
    '3 to 15 digits, an optional leading `+` (or `00`), and spaces, dots, dashes or parentheses. ' +
    'Stored normalised (separators removed, `00` → `+`); unique within the company.',
  examples: ['+49 151 2345 6789'],
};

const tagsInput = (nullable: boolean): JsonSchema => ({
  type: nullable ? ['array', 'null'] : 'array',
  items: { type: 'string', minLength: 1, maxLength: 50 },
  description: 'Labels, each trimmed to 1–50 characters; duplicates are dropped; at most 50 distinct tags. `null` means none.',
});

const nameInput: JsonSchema = { type: 'string', minLength: 1, maxLength: 255, description: `Full name (trimmed). ${NAME_CHARACTERS_RULE}` };

/** A stored phone number: digits with an optional leading `+` (also embedded in deals). */
export const normalisedPhoneNumber: JsonSchema = {
  type: 'string',
  pattern: '^\\+?[0-9]{3,15}$',
  description: 'Normalised: digits with an optional leading `+`.',
};

/** A contact as the API shows it: every field present, unset ones null. */
const contactSchema = {
  type: 'object',
  required: [
    'id',
    'name',
    'firstName',
    'lastName',
    'phoneNumber',
    'email',
    'position',
    'currentCompany',
    'industrySector',
    'city',
    'country',
    'tags',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'Server-assigned (a UUID).' },
    name: { type: 'string', minLength: 1, maxLength: 255 },
    firstName: nullableText(100),
    lastName: nullableText(100),
    phoneNumber: normalisedPhoneNumber,
    email: { type: ['string', 'null'], format: 'email', maxLength: 254 },
    position: nullableText(100, 'Job title.'),
    currentCompany: nullableText(255),
    industrySector: nullableText(100),
    city: nullableText(100),
    country: nullableText(100),
    tags: { type: 'array', items: { type: 'string' } },
    createdAt: schemaRef('Timestamp'),
    updatedAt: schemaRef('Timestamp'),
  },
} satisfies JsonSchema;

/** What a history says of the personal fields of a contact's stored events. */
const ERASED_FIELDS_RULE =
  'A personal field (every field about the person, `tags` included) is `null` in events whose person was erased.';

export const contacts: ApiModule = {
  tags: [{ name: 'Contacts', description: 'People the company talks to.' }],
  paths: {
    '/contacts': {
      get: authenticated('contacts:read', {
        operationId: 'listContacts',
        tags: ['Contacts'],
        summary: 'List contacts',
        description:
          'Oldest first (creation order), so pages stay stable while contacts are added. Filters combine (all must match). ' +
          'A parameter out of its bounds or malformed is a 422 naming it.',
        parameters: [
          pageParameter,
          limitParameter,
          {
            name: 'search',
            in: 'query',
            required: false,
            description: 'Case-insensitive text within name, email or phone number.',
            schema: { type: 'string', maxLength: 200 },
          },
          ...sinceParameters('Contacts'),
          minLogPosition,
        ],
        responses: {
          '200': jsonResponse('A page of contacts.', 'ContactList', 'authenticated'),
          '400': badMinLogPosition(),
          '422': validationFailed('A query parameter is out of bounds or malformed'),
        },
      }),
      post: withIdempotency(authenticated('contacts:write', {
        operationId: 'createContact',
        tags: ['Contacts'],
        summary: 'Create a contact',
        requestBody: { required: true, content: json(schemaRef('ContactCreate')) },
        responses: {
          '201': jsonResponse('The new contact.', 'ContactResponse', 'authenticated', writePositionHeaders(true)),
          ...bodyErrors,
          '404': jsonResponse(
            'Only a replay: the `Idempotency-Key` of a create whose contact was erased since answers as for an unknown contact ' +
              '(`Contact not found`), whatever is sent with it; nothing is created.',
            'NotFoundError',
            'authenticated',
          ),
          '409': jsonResponse('A contact with this phone number already exists (`existingContactId`).', 'ConflictError', 'authenticated'),
          '422': validationFailed('The body is invalid'),
        },
      })),
    },
    '/contacts/{id}/history': {
      get: authenticated('contacts:read', {
        operationId: 'getContactHistory',
        tags: ['Contacts'],
        summary: 'The stored events of a contact',
        description:
          'Every event of the contact, oldest first: type, revision, log position, when it was recorded, which schema ' +
          'version it was stored in (`schema`), its data in the current version of its type (upcast when it was ' +
          'stored in an older one), and who caused it. Read from the event log itself, so it includes a write as soon as the write ' +
          'has answered. Paginated like the lists; `meta.total` counts the contact\'s events.',
        parameters: [contactId, ...historyParameters, minLogPosition],
        responses: {
          '200': jsonResponse('A page of the contact\'s events.', 'ContactHistory', 'authenticated'),
          '400': badMinLogPosition(),
          '404': contactNotFound,
          '422': validationFailed('`page` or `limit` is out of bounds or malformed'),
        },
      }),
    },
    '/contacts/{id}': {
      get: withEntityTag('contact', authenticated('contacts:read', {
        operationId: 'getContact',
        tags: ['Contacts'],
        summary: 'Get a contact',
        description:
          'The contact now, from the read model; with `asOf`, as it was at that instant, folded from its events ' +
          '(same shape). A contact found is answered at once; one not found waits (bounded) for the creates this ' +
          'instance answered for the company, then is looked up again, so a contact just created is found.',
        parameters: [contactId, asOfParameter('contact'), minLogPosition],
        responses: {
          '200': jsonResponse('The contact (as it was at `asOf`, when given).', 'ContactResponse', 'authenticated'),
          '400': badMinLogPosition(),
          '404': jsonResponse(
            'No contact with this id in the caller\'s company, or none yet at `asOf` (`Contact not found`).',
            'NotFoundError',
            'authenticated',
          ),
          '422': validationFailed('`asOf` is malformed'),
        },
      })),
      put: withIfMatch('contact', 'Every change of the contact moves its revision.', authenticated('contacts:write', {
        operationId: 'updateContact',
        tags: ['Contacts'],
        summary: 'Update a contact',
        description: 'A partial body: unsent fields keep their value; `updatedAt` changes when something did.',
        parameters: [contactId],
        requestBody: { required: true, content: json(schemaRef('ContactUpdate')) },
        responses: {
          '200': jsonResponse('The contact after the update.', 'ContactResponse', 'authenticated', writePositionHeaders(false)),
          ...bodyErrors,
          '404': contactNotFound,
          '409': jsonResponse('Another contact has this phone number (`existingContactId`).', 'ConflictError', 'authenticated'),
          '422': validationFailed('The body is invalid'),
        },
      })),
      delete: authenticated('contacts:write', {
        operationId: 'deleteContact',
        tags: ['Contacts'],
        summary: 'Delete a contact',
        description:
          'The contact answers 404 from now on and leaves every list, search and `recent` trigger; its phone number is ' +
          'free for another contact at once. Deals linked to it keep the link, with the contact\'s fields shown as ' +
          '`null` (no `deal.updated` for that). It can be restored until `restorableUntil`, and not after. ' +
          'Deleting a contact already deleted answers 404. Answers once the read models no longer show it.',
        parameters: [contactId],
        responses: {
          '200': jsonResponse('When the contact was deleted and until when it can be restored.', 'DeletedRecordResponse', 'authenticated', writePositionHeaders(true)),
          '404': contactNotFound,
        },
      }),
    },
    '/contacts/{id}/restore': {
      post: authenticated('contacts:write', {
        operationId: 'restoreContact',
        tags: ['Contacts'],
        summary: 'Restore a deleted contact',
        description:
          'Brings a deleted contact back as it was when it was deleted (same id, fields and `updatedAt`), while it is ' +
          'restorable (`restorableUntil` of the delete). Its phone number must still be free: when another contact took ' +
          'it meanwhile, the restore is refused with 409 and `existingContactId`. A contact that is not deleted is answered ' +
          'as it is, unchanged.',
        parameters: [contactId],
        requestBody: { required: true, content: json({ type: 'object', description: 'An empty JSON object (`{}`): nothing is read from it.' }) },
        responses: {
          '200': jsonResponse('The contact, restored.', 'ContactResponse', 'authenticated', writePositionHeaders(false)),
          ...bodyErrors,
          '404': jsonResponse(
            'No contact with this id in the caller\'s company, or it is no longer restorable (`Contact not found`).',
            'NotFoundError',
            'authenticated',
          ),
          '409': jsonResponse('Another contact has this phone number now (`existingContactId`).', 'ConflictError', 'authenticated'),
        },
      }),
    },
    '/contacts/erase': {
      post: authenticated('contacts:erase', {
        operationId: 'eraseContactsByValue',
        tags: ['Contacts'],
        summary: 'Erase every contact with an e-mail address or phone number, for good',
        description:
          'The person\'s right to erasure, when the caller knows the person by a value rather than an id. Erases every contact ' +
          'of the caller\'s company, deleted ones included, whose e-mail address (compared case-insensitively, trimmed) or ' +
          'phone number (normalised as contacts normalise it: `+49 151 000` and `0049-151-000` are one number) is the one sent, ' +
          'each exactly as `POST /contacts/{id}/erase` erases one, and answers their ids, oldest first (an empty list when ' +
          'none matches). Values a contact no longer has (changed by an update) do not match. It sees the caller\'s own ' +
          'writes answered before it (and `X-Min-Log-Position`). The same request sent again answers an empty list: nothing ' +
          'matches an erased contact any more. Needs `contacts:erase`, which no other permission implies. See the platform ' +
          'guide "Erasing a person".',
        parameters: [minLogPosition],
        requestBody: { required: true, content: json(schemaRef('ContactErasureMatch')) },
        responses: {
          '200': jsonResponse('The ids of the contacts erased.', 'ErasedContactsResponse', 'authenticated', writePositionHeaders(false)),
          ...bodyErrors,
          '422': validationFailed('Not exactly one of `email` and `phoneNumber`, another field, or a value that is not an e-mail address or a phone number'),
        },
      }),
    },
    '/contacts/{id}/erase': {
      post: authenticated('contacts:erase', {
        operationId: 'eraseContact',
        tags: ['Contacts'],
        summary: 'Erase a contact, for good',
        description:
          'The person\'s right to erasure. The contact, deleted or not, answers 404 from now on and cannot be restored; its ' +
          'phone number is free. Every personal value Chronicle kept of it becomes unreadable: in its history and in every ' +
          'deal that embedded it (shown as `null`, listed in `erasedFields`), in the read models and their search indexes, ' +
          'in webhook deliveries (a pending one goes out with the values `null`) and trigger records, and in responses kept ' +
          'for `Idempotency-Key` replays (the contact\'s create, replayed, answers 404). A `contact.erased` webhook event ' +
          'tells receivers to erase their copies. Erasing a contact already erased answers the same again. Needs ' +
          '`contacts:erase`, which no other permission implies. See the platform guide "Erasing a person".',
        parameters: [contactId],
        requestBody: { required: true, content: json({ type: 'object', description: 'An empty JSON object (`{}`): nothing is read from it.' }) },
        responses: {
          '200': jsonResponse('The contact\'s id and when it was erased.', 'ErasedRecordResponse', 'authenticated', writePositionHeaders(false)),
          ...bodyErrors,
          '404': jsonResponse('No contact with this id in the caller\'s company, ever (`Contact not found`).', 'NotFoundError', 'authenticated'),
        },
      }),
    },
  },
  schemas: {
    ContactHistoryEvent: historyEvent('A stored event of a contact.', {
      ContactCreated: schemaRef('ContactCreatedData'),
      ContactUpdated: schemaRef('ContactUpdatedData'),
      ContactDeleted: schemaRef('ContactDeletedData'),
      ContactRestored: schemaRef('ContactRestoredData'),
      ContactErased: schemaRef('ContactErasedData'),
    }),
    ContactHistory: listEnvelope('ContactHistoryEvent'),
    ErasedRecord: {
      type: 'object',
      description: 'A contact erased: its id and when (the first erasure\'s time, for an erase sent again).',
      required: ['id', 'erasedAt'],
      additionalProperties: false,
      properties: { id: { type: 'string' }, erasedAt: schemaRef('Timestamp') },
    },
    ErasedRecordResponse: itemEnvelope('ErasedRecord'),
    ContactErasureMatch: {
      type: 'object',
      description: 'Exactly one of `email` and `phoneNumber`.',
      additionalProperties: false,
      properties: {
        email: { type: 'string', format: 'email', maxLength: 254, description: 'Compared case-insensitively.' },
        phoneNumber: { type: 'string', description: 'Normalised as a contact\'s before it is compared.' },
      },
    },
    ErasedContacts: {
      type: 'object',
      description: 'The contacts erased: their ids, in the order they were created.',
      required: ['erased'],
      additionalProperties: false,
      properties: { erased: { type: 'array', items: { type: 'string' } } },
    },
    ErasedContactsResponse: itemEnvelope('ErasedContacts'),
    ContactCreatedData: {
      type: 'object',
      description:
        'A contact came into being. Unset optional fields are absent; `phoneNumber` is normalised. ' +
        ERASED_FIELDS_RULE,
      required: ['contactId', 'companyId', 'name', 'phoneNumber', 'tags', 'createdAt'],
      additionalProperties: false,
      properties: {
        contactId: { type: 'string' },
        companyId: { type: 'string' },
        name: { type: ['string', 'null'] },
        phoneNumber: nullable(normalisedPhoneNumber),
        ...Object.fromEntries(OPTIONAL_TEXT_FIELDS.map((field) => [field, { type: ['string', 'null'] }])),
        tags: { type: ['array', 'null'], items: { type: 'string' } },
        createdAt: schemaRef('Timestamp'),
      },
    },
    ContactChanges: {
      type: 'object',
      description: 'Only the fields that changed; `null`: cleared (an optional field), or erased with the person (any field).',
      additionalProperties: false,
      properties: {
        name: { type: ['string', 'null'] },
        phoneNumber: nullable(normalisedPhoneNumber),
        ...Object.fromEntries(OPTIONAL_TEXT_FIELDS.map((field) => [field, { type: ['string', 'null'] }])),
        tags: { type: ['array', 'null'], items: { type: 'string' } },
      },
    },
    ContactUpdatedData: {
      type: 'object',
      description:
        'Some fields of a contact changed: `changes` (new values), `previous` (their values before) and `contact`, ' +
        `the whole contact after the change. ${ERASED_FIELDS_RULE}`,
      required: ['contactId', 'companyId', 'changes', 'updatedAt', 'contact'],
      additionalProperties: false,
      properties: {
        contactId: { type: 'string' },
        companyId: { type: 'string' },
        changes: schemaRef('ContactChanges'),
        previous: schemaRef('ContactChanges'),
        updatedAt: schemaRef('Timestamp'),
        contact: schemaRef('ContactSnapshot'),
      },
    },
    ContactDeletedData: deletedEventData('contactId', 'The contact was deleted; it can be restored until `restorableUntil`.'),
    ContactErasedData: {
      type: 'object',
      description:
        'The contact was erased, for good: every personal value of it in this history (and in other records) reads as `null` ' +
        'from then on and is listed in `erasedFields`. `reason`: `requested` (an erase request; who asked is the event\'s ' +
        'actor) or `retention_ended` (a deleted contact whose restore period ended).',
      required: ['contactId', 'companyId', 'erasedAt', 'reason'],
      additionalProperties: false,
      properties: {
        contactId: { type: 'string' },
        companyId: { type: 'string' },
        erasedAt: schemaRef('Timestamp'),
        reason: { type: 'string', enum: ['requested', 'retention_ended'] },
      },
    },
    ContactRestoredData: restoredEventData(
      'contactId',
      'contact',
      'ContactSnapshot',
      `A deleted contact came back: \`contact\` is the contact as it was when deleted. ${ERASED_FIELDS_RULE}`,
    ),
    Contact: contactSchema,
    ContactSnapshot: {
      ...contactSchema,
      description: `A contact as a stored event holds it: a Contact, but its personal fields may be \`null\`. ${ERASED_FIELDS_RULE}`,
      properties: {
        ...contactSchema.properties,
        name: { type: ['string', 'null'] },
        phoneNumber: nullable(normalisedPhoneNumber),
        tags: { type: ['array', 'null'], items: { type: 'string' } },
      },
    },
    ContactCreate: {
      type: 'object',
      description: 'Unknown fields (including `id`, `createdAt`, `updatedAt`) are ignored. Strings are trimmed; an empty optional string or null means no value.',
      required: ['name', 'phoneNumber'],
      properties: {
        name: nameInput,
        phoneNumber: phoneNumberInput,
        ...optionalContactFields(true),
        tags: tagsInput(true),
      },
    },
    ContactUpdate: {
      type: 'object',
      description:
        'Any subset of the fields; unsent fields keep their value, `null` (or an empty string) clears an optional one. ' +
        'At least one known field. `name` and `phoneNumber` cannot be cleared.',
      minProperties: 1,
      properties: {
        name: nameInput,
        phoneNumber: phoneNumberInput,
        ...optionalContactFields(true),
        tags: tagsInput(true),
      },
    },
    ContactResponse: itemEnvelope('Contact'),
    ContactList: listEnvelope('Contact'),
    ConflictError: errorCase(
      { const: 'Contact with this phone number already exists' },
      { required: ['existingContactId'], properties: { existingContactId: { type: 'string' } } },
    ),
  },
};
