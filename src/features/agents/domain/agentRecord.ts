import type { Agent } from './agentView.js';
import type { AgentCreated, AgentUpdated } from './agentEvents.js';

/** An agent as its events define it: the aggregate's state and the source of every view. */
export interface AgentRecord extends Readonly<Agent> {
  readonly companyId: string;
}

/** The agent an `AgentCreated` describes. */
export const agentFromCreated = ({ data }: AgentCreated): AgentRecord => ({
  id: data.agentId,
  companyId: data.companyId,
  name: data.name,
  description: data.description,
  status: data.status,
  channels: [...data.channels],
  language: data.language,
  createdAt: data.createdAt,
  updatedAt: data.createdAt,
});

/** The agent after an `AgentUpdated`: its changes applied, `updatedAt` moved. */
export const applyAgentUpdated = (agent: AgentRecord, { data }: AgentUpdated): AgentRecord => {
  const { changes } = data;
  return {
    ...agent,
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.description !== undefined ? { description: changes.description } : {}),
    ...(changes.status !== undefined ? { status: changes.status } : {}),
    ...(changes.channels !== undefined ? { channels: [...changes.channels] } : {}),
    ...(changes.language !== undefined ? { language: changes.language } : {}),
    updatedAt: data.updatedAt,
  };
};

/** The view of an agent (drops `companyId`); the CLI and the read model both use it, so they agree. */
export const toAgentView = (agent: AgentRecord): Agent => ({
  id: agent.id,
  name: agent.name,
  description: agent.description,
  status: agent.status,
  channels: [...agent.channels],
  language: agent.language,
  createdAt: agent.createdAt,
  updatedAt: agent.updatedAt,
});
