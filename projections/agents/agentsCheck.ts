import { agentAggregate } from '../../src/application/aggregates/agentAggregate.js';
import type { AgentState } from '../../src/domain/agents/agentDecider.js';
import { toAgentView } from '../../src/domain/agents/agentRecord.js';
import { check, expectedFrom, observedAt } from '../verifyCheck.js';
import { agentsProjection, type AgentDoc } from './agentsProjection.js';

/** Every agent's stream has its document, with the agent as its stream folds it. */
export const agentsCheck = check<AgentDoc>({
  projection: agentsProjection,
  folds: [agentAggregate.fold],
  expected: (folds) =>
    expectedFrom<AgentState>(folds, agentAggregate.fold, (state) =>
      state.status === 'created'
        ? { companyId: state.agent.companyId, id: state.agent.id, fields: { companyId: state.agent.companyId, ...toAgentView(state.agent) } }
        : null,
    ),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, ...doc.agent }),
});
