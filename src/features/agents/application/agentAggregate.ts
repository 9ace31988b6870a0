import { agentDecider } from '../domain/agentDecider.js';
import { AgentCreated, AgentEvent, AgentUpdated, agentStream } from '../domain/agentEvents.js';
import { storedEventType } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** An AI agent of a company: `agent-<id>`. */
export const agentAggregate = describeAggregate({
  name: 'agent',
  streamPrefix: agentStream(''),
  eventCodec: AgentEvent,
  decider: agentDecider,
  storedEvents: [storedEventType('AgentCreated', [AgentCreated]), storedEventType('AgentUpdated', [AgentUpdated])],
});
