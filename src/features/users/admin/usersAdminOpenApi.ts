import {
  badMinLogPosition,
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
  type ApiModule,
} from '../../../http/openapi/common.js';
import { adminBodyErrors, adminCreate, adminOperation, adminWritten, companyIdParameter, companyNotFound } from '../../../http/openapi/admin/common.js';

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
          '404': companyNotFound,
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
    UserList: listEnvelope('User'),
  },
};
