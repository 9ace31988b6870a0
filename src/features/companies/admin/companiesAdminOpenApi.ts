import {
  badMinLogPosition,
  bodyErrorsOf,
  idParameter,
  itemEnvelope,
  json,
  jsonResponse,
  limitParameter,
  listEnvelope,
  minLogPosition,
  NAME_CHARACTERS_RULE,
  nullable,
  pageParameter,
  schemaRef,
  validationFailed,
  type ApiModule,
} from '../../../http/openapi/common.js';
import { adminBodyErrors, adminCreate, adminOperation, adminWritten, companyNotFound } from '../../../http/openapi/admin/common.js';
import { SUSPENSION_REASON_MAX } from '../domain/SuspensionReason.js';

/** `/admin/companies`: the platform's customers. */
export const adminCompanies: ApiModule = {
  tags: [{ name: 'Companies', description: 'The platform\'s customers: every record of the customer API belongs to one company.' }],
  paths: {
    '/admin/companies': {
      post: adminCreate({
        operationId: 'createCompany',
        tags: ['Companies'],
        summary: 'Create a company',
        description: 'A new company with a server-assigned id. Give it API keys (`POST /admin/companies/{id}/keys`) so that it can call the customer API.',
        requestBody: { required: true, content: json(schemaRef('CompanyCreate')) },
        responses: {
          '201': adminWritten('The new company.', 'CompanyResponse', true),
          ...adminBodyErrors('The body is invalid'),
        },
      }),
      get: adminOperation({
        operationId: 'listCompanies',
        tags: ['Companies'],
        summary: 'List companies',
        description: 'Oldest first (creation order). A parameter out of its bounds or malformed is a 422 naming it.',
        parameters: [
          pageParameter,
          limitParameter,
          {
            name: 'search',
            in: 'query',
            required: false,
            description: 'Only companies whose name contains this text (case-insensitive, literal; at most 200 characters).',
            schema: { type: 'string', maxLength: 200 },
          },
          minLogPosition,
        ],
        responses: {
          '200': jsonResponse('A page of companies.', 'CompanyList', 'admin'),
          '400': badMinLogPosition('admin'),
          '422': validationFailed('A query parameter is out of bounds or malformed', 'admin'),
        },
      }),
    },
    '/admin/companies/{id}': {
      get: adminOperation({
        operationId: 'getCompany',
        tags: ['Companies'],
        summary: 'Get a company',
        parameters: [idParameter('company'), minLogPosition],
        responses: {
          '200': jsonResponse('The company.', 'CompanyResponse', 'admin'),
          '400': badMinLogPosition('admin'),
          '404': companyNotFound,
        },
      }),
    },
    '/admin/companies/{id}/suspend': {
      post: adminOperation({
        operationId: 'suspendCompany',
        tags: ['Companies'],
        summary: 'Suspend a company',
        description:
          'Recorded as `CompanySuspended` in the company\'s stream, with the reason and the admin token that acted. ' +
          'From then on, within a second on every instance: the company\'s API keys (and so its polling triggers) are ' +
          'refused with 403 `Company suspended`; its console sessions end and no console link is issued for it (409); ' +
          'its webhook deliveries are held, neither attempted nor dropped, until it is resumed. Its data is kept as it is. ' +
          'Suspending a suspended company records nothing and answers its suspension as it is (the first reason and time, ' +
          'no `X-Log-Position`).',
        parameters: [idParameter('company')],
        requestBody: { required: true, content: json(schemaRef('CompanySuspend')) },
        responses: {
          '200': adminWritten('The company, suspended.', 'CompanyResponse', false),
          ...adminBodyErrors('The body is invalid (`reason` missing, not a string, blank or too long)'),
          '404': companyNotFound,
        },
      }),
    },
    '/admin/companies/{id}/resume': {
      post: adminOperation({
        operationId: 'resumeCompany',
        tags: ['Companies'],
        summary: 'Resume a suspended company',
        description:
          'Recorded as `CompanyResumed` in the company\'s stream, with the admin token that acted. Its API keys work ' +
          'again, console links are issued again, and its held webhook deliveries go out, each subscription\'s in the ' +
          'order the events happened. Resuming an active company records nothing and answers it as it is (no `X-Log-Position`).',
        parameters: [idParameter('company')],
        responses: {
          '200': adminWritten('The company, active.', 'CompanyResponse', false),
          // No body is needed; one that is sent must be JSON.
          ...bodyErrorsOf('admin'),
          '404': companyNotFound,
        },
      }),
    },
  },
  schemas: {
    Company: {
      type: 'object',
      required: ['id', 'name', 'createdAt', 'status', 'suspendedAt', 'suspensionReason'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'Server-assigned (a UUID).' },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        createdAt: schemaRef('Timestamp'),
        status: {
          type: 'string',
          enum: ['active', 'suspended'],
          description: '`suspended`: the platform suspended it (`POST /admin/companies/{id}/suspend`) and has not resumed it.',
        },
        suspendedAt: { ...nullable(schemaRef('Timestamp')), description: 'When the suspension in force began; null while active.' },
        suspensionReason: {
          ...nullable({ type: 'string', maxLength: SUSPENSION_REASON_MAX }),
          description: 'Why it is suspended, as the suspension gave it; null while active, and once the company\'s data is erased.',
        },
      },
    },
    CompanySuspend: {
      type: 'object',
      required: ['reason'],
      properties: {
        reason: {
          type: 'string',
          minLength: 1,
          maxLength: SUSPENSION_REASON_MAX,
          description: 'Why the company is suspended (trimmed; 1 to 500 characters). Kept as the company\'s personal data.',
        },
      },
    },
    CompanyCreate: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 200, description: `Trimmed; no control characters. ${NAME_CHARACTERS_RULE}` } },
    },
    CompanyResponse: itemEnvelope('Company'),
    CompanyList: listEnvelope('Company'),
  },
};
