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
      delete: adminOperation({
        operationId: 'deleteCompany',
        tags: ['Companies'],
        summary: 'Delete a company',
        description:
          'Asks for the company\'s deletion: after `DELETED_COMPANIES_RETENTION_DAYS` (30 unless the platform set otherwise), or at once ' +
          'with `now=true`, everything of the company is erased: every contact\'s and user\'s personal values (their keys destroyed), every ' +
          'read-model document, its webhook deliveries and their log, the responses kept for `Idempotency-Key` replays, its console sessions ' +
          'and usage counters; its API keys are revoked and its webhook subscriptions\' secrets destroyed. The company then answers 404 ' +
          'everywhere and is listed nowhere. Asked again while the deletion waits, it answers the same and records nothing ' +
          '(no `X-Log-Position`). With `now=true`, a 503 `READ_MODELS_BEHIND` says the read models stayed behind the log for the ' +
          'whole wait: the deletion is recorded and nothing is erased yet; send the request again. The body is not read.',
        parameters: [
          idParameter('company'),
          {
            name: 'now',
            in: 'query',
            required: false,
            description: '`true`: erase the company now instead of after the waiting period. `false` (the default): wait.',
            schema: { type: 'string', enum: ['true', 'false'] },
          },
        ],
        responses: {
          '200': adminWritten('With `now=true`: the company, erased.', 'CompanyErasedResponse', false),
          '202': adminWritten('The deletion, waiting until `eraseAfter`.', 'CompanyDeletionResponse', false),
          // A DELETE needs no body; one that carries a body must send JSON.
          ...bodyErrorsOf('admin'),
          '404': companyNotFound,
          '409': jsonResponse(
            'With `now=true`: the deletion was cancelled between its request and the erasure (`Company deletion cancelled`); nothing was erased.',
            'CompanyDeletionCancelledError',
            'admin',
          ),
          '422': validationFailed('`now` is neither `true` nor `false`', 'admin'),
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
    CompanyDeletion: {
      type: 'object',
      description: 'A deletion waiting: asked for at `deletionRequestedAt`, the company is erased after `eraseAfter`.',
      required: ['id', 'deletionRequestedAt', 'eraseAfter'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        deletionRequestedAt: schemaRef('Timestamp'),
        eraseAfter: schemaRef('Timestamp'),
      },
    },
    CompanyErased: {
      type: 'object',
      description: 'A company erased (at `erasedAt`): it answers 404 from then on.',
      required: ['id', 'deletionRequestedAt', 'eraseAfter', 'erasedAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        deletionRequestedAt: schemaRef('Timestamp'),
        eraseAfter: schemaRef('Timestamp'),
        erasedAt: schemaRef('Timestamp'),
      },
    },
    CompanyDeletionCancelledError: errorCase({ const: 'Company deletion cancelled' }),
    CompanyDeletionResponse: itemEnvelope('CompanyDeletion'),
    CompanyErasedResponse: itemEnvelope('CompanyErased'),
    CompanyResponse: itemEnvelope('Company'),
    CompanyList: listEnvelope('Company'),
  },
};
