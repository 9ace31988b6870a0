import { agentAggregate } from '../application/aggregates/agentAggregate.js';
import { agentsResource } from '../http/routes/agents.js';
import { adminAgentsResource } from '../http/routes/admin/agents.js';
import { agentsCheck } from '../../projections/agents/agentsCheck.js';
import { agentsProjection } from '../../projections/agents/agentsProjection.js';
import { readModel, type Feature } from './Feature.js';

/** The company's AI agents. */
export const agents: Feature = {
  name: 'agents',
  aggregates: [agentAggregate],
  readModels: [readModel(agentsProjection, agentsCheck)],
  resources: [agentsResource],
  adminResources: [adminAgentsResource],
};
