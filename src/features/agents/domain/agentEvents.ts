import * as t from 'io-ts';
import { AgentChannel } from './AgentChannel.js';
import { AgentStatus } from './AgentStatus.js';

const nullableString = t.union([t.string, t.null]);

/**
 * An agent came into being, with every field set: defaults are applied by the
 * decider, so the event alone says what the agent was. `description` is null when
 * there is none; `language` is a canonical BCP 47 tag; `channels` are in canonical
 * order; `createdAt` (ISO 8601 UTC with milliseconds) is also the first `updatedAt`.
 */
export const AgentCreated = t.type({
  type: t.literal('AgentCreated'),
  data: t.type({
    agentId: t.string,
    companyId: t.string,
    name: t.string,
    description: nullableString,
    status: AgentStatus,
    channels: t.array(AgentChannel),
    language: t.string,
    createdAt: t.string,
  }),
});
export type AgentCreated = t.TypeOf<typeof AgentCreated>;

/** The new values of the fields that changed (description null: cleared). */
export const AgentChanges = t.partial({
  name: t.string,
  description: nullableString,
  status: AgentStatus,
  channels: t.array(AgentChannel),
  language: t.string,
});
export type AgentChanges = t.TypeOf<typeof AgentChanges>;

/**
 * Some fields of an agent changed: `changes` holds only those, with their new
 * values. `companyId` (never changes) makes the event self-contained for projections.
 */
export const AgentUpdated = t.type({
  type: t.literal('AgentUpdated'),
  data: t.type({ agentId: t.string, companyId: t.string, changes: AgentChanges, updatedAt: t.string }),
});
export type AgentUpdated = t.TypeOf<typeof AgentUpdated>;

/** Every event of an `agent-<id>` stream. */
export const AgentEvent = t.union([AgentCreated, AgentUpdated]);
export type AgentEvent = t.TypeOf<typeof AgentEvent>;

export const AGENT_EVENT_TYPES: ReadonlySet<AgentEvent['type']> = new Set(['AgentCreated', 'AgentUpdated']);

export const agentStream = (agentId: string): string => `agent-${agentId}`;
