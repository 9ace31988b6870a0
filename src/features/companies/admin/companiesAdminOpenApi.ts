import {
  badMinLogPosition,
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
  type ApiModule,
} from '../../../http/openapi/common.js';
import { adminBodyErrors, adminCreate, adminOperation, adminWritten, companyNotFound } from '../../../http/openapi/admin/common.js';

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
  },
  schemas: {
    Company: {
      type: 'object',
      required: ['id', 'name', 'createdAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'Server-assigned (a UUID).' },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        createdAt: schemaRef('Timestamp'),
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
