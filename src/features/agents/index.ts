import { agentAggregate } from './application/agentAggregate.js';
import { agentsResource } from './api/agentRoutes.js';
import { adminAgentsResource } from './admin/agentAdminRoutes.js';
import { agentsCheck } from './readModels/agentsCheck.js';
import { agentOf, agentsProjection } from './readModels/agentsProjection.js';
import { exportedRecords } from '../../application/companyExport/ExportedRecords.js';
import { readModel, type Feature } from '../Feature.js';
import { agentPersonalData } from './domain/agentPersonalData.js';

/** The company's AI agents. */
export const agents: Feature = {
  name: 'agents',
  aggregates: [agentAggregate],
  personalData: agentPersonalData,
  readModels: [readModel(agentsProjection, agentsCheck)],
  resources: [agentsResource],
  exports: [exportedRecords('agents', agentsProjection, agentOf)],
  adminResources: [adminAgentsResource],
};

// What the CLI and the start-up use of this one.
export { createAgent } from './application/createAgent.js';
export { updateAgent } from './application/updateAgent.js';
export { AGENT_CHANNELS, AgentChannels } from './domain/AgentChannel.js';
export { AgentDescription } from './domain/AgentDescription.js';
export { AgentName } from './domain/AgentName.js';
export { AGENT_STATUSES, AgentStatusInput } from './domain/AgentStatus.js';
export { LanguageTag } from './domain/LanguageTag.js';
export { AGENT_DEFAULTS } from './domain/agentCommands.js';
export type { AgentFieldChanges } from './domain/agentCommands.js';
export { describeAgentError } from './domain/agentErrors.js';
export { toAgentView } from './domain/agentRecord.js';
export type { Agent } from './domain/agentView.js';
export { agentOf, agentsProjection } from './readModels/agentsProjection.js';
