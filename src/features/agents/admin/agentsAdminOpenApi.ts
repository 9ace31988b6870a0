import {
  badMinLogPosition,
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
import { agents as customerAgents } from '../api/agentsOpenApi.js';
import type { JsonSchema } from '../../../http/openapi/types.js';
import { adminBodyErrors, adminCreate, adminOperation, adminWritten, companyIdParameter, companyNotFound } from '../../../http/openapi/admin/common.js';

/** The agent as the customer API shows it (`GET /agents/{id}`): one shape on both APIs. */
const { AgentStatus, AgentChannel, Agent } = customerAgents.schemas as Record<'AgentStatus' | 'AgentChannel' | 'Agent', JsonSchema>;

const agentFields: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, maxLength: 200, description: `Trimmed; no control characters. ${NAME_CHARACTERS_RULE}` },
  description: { type: ['string', 'null'], maxLength: 1000, description: 'Line breaks allowed; null or "" for none (on a change: clears it).' },
  channels: { type: 'array', items: schemaRef('AgentChannel'), minItems: 1, description: 'Duplicates dropped; kept in canonical order.' },
  language: { type: 'string', description: 'A BCP 47 language tag, e.g. `en` or `de-DE` (kept canonical).' },
  status: schemaRef('AgentStatus'),
};

const agentNotFound = {
  ...jsonResponse('No company with this id (`Company not found`), or no agent with this id in it (`Agent not found`).', 'AgentNotFoundError', 'admin'),
  content: json({ oneOf: [schemaRef('CompanyNotFoundError'), schemaRef('AgentNotFoundError')] }),
};

const agentIdParameter = { ...idParameter('agent'), name: 'agentId' };

/** `/admin/companies/{id}/agents`: a company's AI agents (read-only on the customer API). */
export const adminAgents: ApiModule = {
  tags: [{ name: 'Agents', description: 'A company\'s AI agents, which its API keys read (`GET /agents`).' }],
  paths: {
    '/admin/companies/{id}/agents': {
      post: adminCreate({
        operationId: 'createAgent',
        tags: ['Agents'],
        summary: 'Create an agent',
        description: 'Absent fields take the defaults: no description, `active`, channels `webchat`, language `en`.',
        parameters: [companyIdParameter],
        requestBody: { required: true, content: json(schemaRef('AgentCreate')) },
        responses: {
          '201': adminWritten('The new agent.', 'AgentResponse', true),
          ...adminBodyErrors('The body is invalid'),
          '404': companyNotFound,
        },
      }),
      get: adminOperation({
        operationId: 'listAgents',
        tags: ['Agents'],
        summary: 'List a company\'s agents',
        description: 'Oldest first (creation order).',
        parameters: [
          companyIdParameter,
          pageParameter,
          limitParameter,
          { name: 'status', in: 'query', required: false, description: 'Only agents with this status.', schema: schemaRef('AgentStatus') },
          minLogPosition,
        ],
        responses: {
          '200': jsonResponse('A page of the company\'s agents.', 'AgentList', 'admin'),
          '400': badMinLogPosition('admin'),
          '404': companyNotFound,
          '422': validationFailed('A query parameter is out of bounds or malformed', 'admin'),
        },
      }),
    },
    '/admin/companies/{id}/agents/{agentId}': {
      get: adminOperation({
        operationId: 'getAgent',
        tags: ['Agents'],
        summary: 'Get an agent',
        parameters: [companyIdParameter, agentIdParameter, minLogPosition],
        responses: {
          '200': jsonResponse('The agent.', 'AgentResponse', 'admin'),
          '400': badMinLogPosition('admin'),
          '404': agentNotFound,
        },
      }),
      patch: adminOperation({
        operationId: 'updateAgent',
        tags: ['Agents'],
        summary: 'Change an agent',
        description: 'The fields sent change; the others keep their values. Values equal to the current ones change nothing (no `X-Log-Position`).',
        parameters: [companyIdParameter, agentIdParameter],
        requestBody: { required: true, content: json(schemaRef('AgentUpdate')) },
        responses: {
          '200': adminWritten('The agent after the change.', 'AgentResponse', false),
          ...adminBodyErrors('The body is invalid, or changes no field'),
          '404': agentNotFound,
        },
      }),
    },
  },
  schemas: {
    AgentStatus,
    AgentChannel,
    Agent,
    AgentCreate: { type: 'object', required: ['name'], properties: agentFields },
    AgentUpdate: { type: 'object', minProperties: 1, properties: agentFields },
    AgentResponse: itemEnvelope('Agent'),
    AgentList: listEnvelope('Agent'),
    AgentNotFoundError: errorCase({ const: 'Agent not found' }),
  },
};
