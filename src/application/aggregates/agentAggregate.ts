import { agentDecider } from '../../domain/agents/agentDecider.js';
import { AgentCreated, AgentEvent, AgentUpdated, agentStream } from '../../domain/agents/agentEvents.js';
import { storedEventType } from '../versioning/storedEventTypes.js';
import { describeAggregate } from './AggregateDescriptor.js';

/** An AI agent of a company: `agent-<id>`. */
export const agentAggregate = describeAggregate({
  name: 'agent',
  streamPrefix: agentStream(''),
  eventCodec: AgentEvent,
  decider: agentDecider,
  storedEvents: [storedEventType('AgentCreated', [AgentCreated]), storedEventType('AgentUpdated', [AgentUpdated])],
});
