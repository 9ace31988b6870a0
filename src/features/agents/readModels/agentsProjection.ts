import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { agentFromCreated, applyAgentUpdated, toAgentView, type AgentRecord } from '../domain/agentRecord.js';
import type { Agent } from '../domain/agentView.js';
import { AGENT_EVENT_TYPES, AgentEvent } from '../domain/agentEvents.js';
import type { Position } from '../../../shared/Position.js';
import { erasedWithCompany } from '../../companies/index.js';

/**
 * An agent in the read model. The response view is nested under `agent` (as
 * contacts nest theirs), so the document's own fields (`position`: the log
 * position of the last event applied) never mix with the view's.
 */
export interface AgentDoc extends ReadModelDocument {
  readonly id: string;
  readonly companyId: string;
  readonly position: Position;
  readonly agent: Agent;
}

/** The response view of a read-model document. */
export const agentOf = (doc: AgentDoc): Agent => doc.agent;

/** Decoded once per stored event: `targets` and `evolve` see the same event. */
const decode = cachedDecoder(AgentEvent);

const toDoc = (record: AgentRecord, position: Position): AgentDoc => ({
  id: record.id,
  companyId: record.companyId,
  position,
  agent: toAgentView(record),
});

const toRecord = (doc: AgentDoc): AgentRecord => ({ ...doc.agent, companyId: doc.companyId });

/**
 * The `agents` read model: one document per agent, under its company, in creation
 * order, built with the aggregate's own functions (`agentFromCreated`,
 * `applyAgentUpdated`, `toAgentView`) so that it and the CLI agree.
 */
export const agentsProjection: Projection<AgentDoc> = erasedWithCompany({
  name: 'agents',
  eventTypes: AGENT_EVENT_TYPES,
  indexes: [['agent.status']],
  targets(event) {
    const { data } = decode(event);
    return [{ kind: 'id', companyId: data.companyId, id: data.agentId }];
  },
  evolve(doc, event) {
    const decoded = decode(event);
    switch (decoded.type) {
      case 'AgentCreated':
        return doc ?? toDoc(agentFromCreated(decoded), event.position);
      case 'AgentUpdated':
        return doc && toDoc(applyAgentUpdated(toRecord(doc), decoded), event.position);
      default: {
        const unknown: never = decoded;
        return unknown;
      }
    }
  },
});
