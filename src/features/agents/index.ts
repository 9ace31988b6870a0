import { agentAggregate } from './application/agentAggregate.js';
import { agentsResource } from './api/agentRoutes.js';
import { adminAgentsResource } from './admin/agentAdminRoutes.js';
import { agentsCheck } from './readModels/agentsCheck.js';
import { agentsProjection } from './readModels/agentsProjection.js';
import { readModel, type Feature } from '../Feature.js';

/** The company's AI agents. */
export const agents: Feature = {
  name: 'agents',
  aggregates: [agentAggregate],
  readModels: [readModel(agentsProjection, agentsCheck)],
  resources: [agentsResource],
  adminResources: [adminAgentsResource],
};
