import {
  authenticated,
  badMinLogPosition,
  errorCase,
  idParameter,
  itemEnvelope,
  jsonResponse,
  limitParameter,
  listEnvelope,
  minLogPosition,
  nullableText,
  pageParameter,
  schemaRef,
  validationFailed,
  type ApiModule,
} from '../../../http/openapi/common.js';

/** `/agents`: the company's AI agents, read-only over HTTP (managed with the CLI). */

const AGENT_STATUSES = ['active', 'paused'] as const;
const AGENT_CHANNELS = ['whatsapp', 'sms', 'email', 'webchat', 'messenger', 'instagram', 'telegram', 'voice'] as const;

const MANAGED_BY_CLI =
  'Agents are read-only over HTTP: they are created and changed with the CLI ' +
  '(`npm run chronicle -- agents create`, `… agents update`, `… agents list`).';

export const agents: ApiModule = {
  tags: [{ name: 'Agents', description: `The company's AI agents. ${MANAGED_BY_CLI}` }],
  paths: {
    '/agents': {
      get: authenticated('agents:read', {
        operationId: 'listAgents',
        tags: ['Agents'],
        summary: 'List agents',
        description: `Oldest first (creation order). A parameter out of its bounds or malformed is a 422 naming it. ${MANAGED_BY_CLI}`,
        parameters: [
          pageParameter,
          limitParameter,
          {
            name: 'status',
            in: 'query',
            required: false,
            description: 'Only agents with this status.',
            schema: schemaRef('AgentStatus'),
          },
          minLogPosition,
        ],
        responses: {
          '200': jsonResponse('A page of agents.', 'AgentList', 'authenticated'),
          '400': badMinLogPosition(),
          '422': validationFailed('A query parameter is out of bounds or malformed'),
        },
      }),
    },
    '/agents/{id}': {
      get: authenticated('agents:read', {
        operationId: 'getAgent',
        tags: ['Agents'],
        summary: 'Get an agent',
        description: MANAGED_BY_CLI,
        parameters: [idParameter('agent'), minLogPosition],
        responses: {
          '200': jsonResponse('The agent.', 'AgentResponse', 'authenticated'),
          '400': badMinLogPosition(),
          '404': jsonResponse('No agent with this id in the caller\'s company (`Agent not found`).', 'AgentNotFoundError', 'authenticated'),
        },
      }),
    },
  },
  schemas: {
    AgentStatus: {
      type: 'string',
      enum: [...AGENT_STATUSES],
      description: '`active`: the agent answers conversations; `paused`: it is switched off for now.',
    },
    AgentChannel: { type: 'string', enum: [...AGENT_CHANNELS], description: 'A messaging channel an agent serves.' },
    Agent: {
      type: 'object',
      required: ['id', 'name', 'description', 'status', 'channels', 'language', 'createdAt', 'updatedAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'Server-assigned (a UUID).' },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        description: nullableText(1000),
        status: schemaRef('AgentStatus'),
        channels: {
          type: 'array',
          items: schemaRef('AgentChannel'),
          minItems: 1,
          uniqueItems: true,
          description: 'The channels the agent serves, in the order of the `AgentChannel` enumeration.',
        },
        language: {
          type: 'string',
          minLength: 2,
          maxLength: 35,
          description: 'The language the agent speaks: a canonical BCP 47 language tag.',
          examples: ['en', 'de-DE', 'zh-Hant-TW'],
        },
        createdAt: schemaRef('Timestamp'),
        updatedAt: schemaRef('Timestamp'),
      },
    },
    AgentResponse: itemEnvelope('Agent'),
    AgentList: listEnvelope('Agent'),
    AgentNotFoundError: errorCase({ const: 'Agent not found' }),
  },
};
