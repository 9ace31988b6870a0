import {
  badMinLogPosition,
  bodyErrorsOf,
  errorCase,
  idParameter,
  itemEnvelope,
  json,
  jsonResponse,
  limitParameter,
  listEnvelope,
  minLogPosition,
  NAME_CHARACTERS_RULE,
  pageParameter,
  schemaRef,
  validationFailed,
  writePositionHeaders,
  type ApiModule,
} from '../../../http/openapi/common.js';
import { adminBodyErrors, adminCreate, adminOperation, adminWritten, companyIdParameter, companyNotFound } from '../../../http/openapi/admin/common.js';

const userIdParameter = { ...idParameter('user'), name: 'userId' };

const userNotFound = {
  ...jsonResponse('No company with this id (`Company not found`), or no user with this id in it, ever (`User not found`).', 'UserNotFoundError', 'admin'),
  content: json({ oneOf: [schemaRef('CompanyNotFoundError'), schemaRef('UserNotFoundError')] }),
};

/** `/admin/companies/{id}/users`: a company's users (deals are assigned to them). */
export const adminUsers: ApiModule = {
  tags: [{ name: 'Users', description: 'A company\'s users: the people deals are assigned to (`assignedToId` on the customer API).' }],
  paths: {
    '/admin/companies/{id}/users': {
      post: adminCreate({
        operationId: 'createUser',
        tags: ['Users'],
        summary: 'Create a user',
        description: 'A user of the company, with a server-assigned id. A user is not changed after it is created.',
        parameters: [companyIdParameter],
        requestBody: { required: true, content: json(schemaRef('UserCreate')) },
        responses: {
          '201': adminWritten('The new user.', 'UserResponse', true),
          ...adminBodyErrors('The body is invalid'),
          '404': {
            ...jsonResponse(
              'No company with this id (`Company not found`); or, replayed with the `Idempotency-Key` of a user erased since, `User not found`.',
              'UserNotFoundError',
              'admin',
            ),
            content: json({ oneOf: [schemaRef('CompanyNotFoundError'), schemaRef('UserNotFoundError')] }),
          },
        },
      }),
      get: adminOperation({
        operationId: 'listUsers',
        tags: ['Users'],
        summary: 'List a company\'s users',
        description: 'Oldest first (creation order).',
        parameters: [companyIdParameter, pageParameter, limitParameter, minLogPosition],
        responses: {
          '200': jsonResponse('A page of the company\'s users.', 'UserList', 'admin'),
          '400': badMinLogPosition('admin'),
          '404': companyNotFound,
          '422': validationFailed('A query parameter is out of bounds or malformed', 'admin'),
        },
      }),
    },
    '/admin/companies/{id}/users/{userId}/erase': {
      post: adminOperation({
        operationId: 'eraseUser',
        tags: ['Users'],
        summary: 'Erase a user, for good',
        description:
          'The person\'s right to erasure. The user leaves the list, and every deal assigned to them shows no user ' +
          '(`assignedTo: null`, no `deal.updated`). Every value Chronicle kept of them (name, e-mail) becomes unreadable: in ' +
          'their events and the copies inside deals\' events (their history and webhook events keep the user\'s `id`, with ' +
          '`null` where the values were), in the read models, in trigger records and the event feed, in webhook deliveries ' +
          '(a pending one goes out with the values `null`), and in responses kept for `Idempotency-Key` replays, under the ' +
          'company and under every admin token (the user\'s create, replayed, answers 404). Erasing a user already erased ' +
          'answers the same again, with the first `erasedAt`. See the platform guide "Erasing a person".',
        parameters: [companyIdParameter, userIdParameter],
        requestBody: { required: false, content: json({ type: 'object', description: 'An empty JSON object (`{}`), or no body: nothing is read from it.' }) },
        responses: {
          '200': jsonResponse('The user\'s id and when they were erased.', 'ErasedUserResponse', 'admin', writePositionHeaders(false)),
          ...bodyErrorsOf('admin'),
          '404': userNotFound,
        },
      }),
    },
  },
  schemas: {
    User: {
      type: 'object',
      required: ['id', 'name', 'email', 'createdAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'Server-assigned (a UUID).' },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        email: { type: 'string', maxLength: 254, description: 'As given, trimmed, its domain in lower case.' },
        createdAt: schemaRef('Timestamp'),
      },
    },
    UserCreate: {
      type: 'object',
      required: ['name', 'email'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200, description: `Trimmed; no control characters. ${NAME_CHARACTERS_RULE}` },
        email: { type: 'string', maxLength: 254, description: 'An e-mail address: one `@`, a domain with a top-level label of at least two letters.' },
      },
    },
    UserResponse: itemEnvelope('User'),
    ErasedUser: {
      type: 'object',
      description: 'A user erased: their id and when (the first erasure\'s time, for an erase sent again).',
      required: ['id', 'erasedAt'],
      additionalProperties: false,
      properties: { id: { type: 'string' }, erasedAt: schemaRef('Timestamp') },
    },
    ErasedUserResponse: itemEnvelope('ErasedUser'),
    UserNotFoundError: errorCase({ const: 'User not found' }),
    UserList: listEnvelope('User'),
  },
};
