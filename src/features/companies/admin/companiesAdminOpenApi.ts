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
      delete: adminOperation({
        operationId: 'deleteCompany',
        tags: ['Companies'],
        summary: 'Delete a company',
        description:
          'Asks for the company\'s deletion. The company is suspended at once (`CompanySuspended`, as by ' +
          '`POST /admin/companies/{id}/suspend`, when it is not suspended already), and a resume during the waiting period cancels ' +
          'the deletion. After `DELETED_COMPANIES_RETENTION_DAYS` (30 unless the platform set otherwise), or at once ' +
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
          'order the events happened. A deletion waiting (`DELETE /admin/companies/{id}`) is cancelled with it ' +
          '(`CompanyDeletionCancelled`). Resuming an active company with no deletion waiting records nothing and answers it as it is ' +
          '(no `X-Log-Position`). Once the company\'s erasure has begun it can no longer be resumed: 409 `Company being erased`.',
        parameters: [idParameter('company')],
        responses: {
          '200': adminWritten('The company, active.', 'CompanyResponse', false),
          // No body is needed; one that is sent must be JSON.
          ...bodyErrorsOf('admin'),
          '404': companyNotFound,
          '409': jsonResponse('The company\'s erasure has begun (`Company being erased`): it can no longer be resumed.', 'CompanyBeingErasedError', 'admin'),
        },
      }),
    },
  },
  schemas: {
    Company: {
      type: 'object',
      required: ['id', 'name', 'createdAt', 'status', 'suspendedAt', 'suspensionReason', 'eraseAfter'],
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
        eraseAfter: {
          ...nullable(schemaRef('Timestamp')),
          description: 'When the deletion asked for (`DELETE /admin/companies/{id}`) erases the company; null when none waits (a resume cancels it).',
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
    CompanyBeingErasedError: errorCase({ const: 'Company being erased' }),
    CompanyDeletionResponse: itemEnvelope('CompanyDeletion'),
    CompanyErasedResponse: itemEnvelope('CompanyErased'),
    CompanyResponse: itemEnvelope('Company'),
    CompanyList: listEnvelope('Company'),
  },
};
