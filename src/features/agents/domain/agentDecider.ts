import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import { sameChannels } from './AgentChannel.js';
import { AGENT_DEFAULTS, type AgentCommand, type CreateAgent, type UpdateAgent } from './agentCommands.js';
import type { AgentError } from './agentErrors.js';
import type { AgentChanges, AgentEvent } from './agentEvents.js';
import { agentFromCreated, applyAgentUpdated, type AgentRecord } from './agentRecord.js';

/** No agent yet, or the full agent (including createdAt and updatedAt). */
export type AgentState = { readonly status: 'none' } | { readonly status: 'created'; readonly agent: AgentRecord };

const create = (command: CreateAgent, state: AgentState): E.Either<AgentError, readonly AgentEvent[]> => {
  if (state.status !== 'none') return E.left({ kind: 'AgentAlreadyExists', agentId: command.agentId });
  return E.right([
    {
      type: 'AgentCreated',
      data: {
        agentId: command.agentId,
        companyId: command.companyId,
        name: command.name,
        description: command.description ?? AGENT_DEFAULTS.description,
        status: command.status ?? AGENT_DEFAULTS.status,
        channels: [...(command.channels ?? AGENT_DEFAULTS.channels)],
        language: command.language ?? AGENT_DEFAULTS.language,
        createdAt: toIsoTimestamp(command.at),
      },
    },
  ]);
};

const update = (command: UpdateAgent, state: AgentState): E.Either<AgentError, readonly AgentEvent[]> => {
  if (state.status !== 'created') return E.left({ kind: 'AgentNotFound', agentId: command.agentId });
  const current = state.agent;
  const requested = command.changes;
  const changes: { -readonly [K in keyof AgentChanges]: AgentChanges[K] } = {};
  if (requested.name !== undefined && requested.name !== current.name) changes.name = requested.name;
  if (requested.description !== undefined && requested.description !== current.description) changes.description = requested.description;
  if (requested.status !== undefined && requested.status !== current.status) changes.status = requested.status;
  if (requested.channels !== undefined && !sameChannels(requested.channels, current.channels)) changes.channels = [...requested.channels];
  if (requested.language !== undefined && requested.language !== current.language) changes.language = requested.language;
  // Values equal to the current ones change nothing: no event, updatedAt stays.
  if (Object.keys(changes).length === 0) return E.right([]);
  return E.right([
    {
      type: 'AgentUpdated',
      data: { agentId: current.id, companyId: current.companyId, changes, updatedAt: toIsoTimestamp(command.at) },
    },
  ]);
};

/** The agent aggregate (stream `agent-<id>`). */
export const agentDecider: Decider<AgentCommand, AgentEvent, AgentState, AgentError> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'CreateAgent':
        return create(command, state);
      case 'UpdateAgent':
        return update(command, state);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'AgentCreated':
        return { status: 'created', agent: agentFromCreated(event) };
      case 'AgentUpdated':
        return state.status === 'created' ? { status: 'created', agent: applyAgentUpdated(state.agent, event) } : state;
      default:
        return assertNever(event);
    }
  },
};
