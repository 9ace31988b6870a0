import { agentAggregate } from '../application/agentAggregate.js';
import type { AgentState } from '../domain/agentDecider.js';
import { toAgentView } from '../domain/agentRecord.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
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
