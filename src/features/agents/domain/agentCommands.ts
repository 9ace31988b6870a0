import type { AgentChannel, AgentChannels } from './AgentChannel.js';
import type { AgentDescription } from './AgentDescription.js';
import type { AgentName } from './AgentName.js';
import type { AgentStatus } from './AgentStatus.js';
import type { LanguageTag } from './LanguageTag.js';

/** What a new agent gets for a field the command leaves out. */
export const AGENT_DEFAULTS: {
  readonly description: null;
  readonly status: AgentStatus;
  readonly channels: readonly AgentChannel[];
  readonly language: string;
} = { description: null, status: 'active', channels: ['webchat'], language: 'en' };

/**
 * Create an agent with a server-assigned id; absent optional fields take
 * `AGENT_DEFAULTS`. The caller has checked that the company exists (the decider
 * sees only this agent's stream). `at` becomes createdAt and updatedAt.
 */
export interface CreateAgent {
  readonly type: 'CreateAgent';
  readonly agentId: string;
  readonly companyId: string;
  readonly name: AgentName;
  readonly description?: AgentDescription;
  readonly status?: AgentStatus;
  readonly channels?: AgentChannels;
  readonly language?: LanguageTag;
  readonly at: Date;
}

/** Validated new values; absent: keep; description null: clear. */
export interface AgentFieldChanges {
  readonly name?: AgentName;
  readonly description?: AgentDescription;
  readonly status?: AgentStatus;
  readonly channels?: AgentChannels;
  readonly language?: LanguageTag;
}

/** Change some fields of an agent; `at` becomes updatedAt when anything changes. */
export interface UpdateAgent {
  readonly type: 'UpdateAgent';
  readonly agentId: string;
  readonly changes: AgentFieldChanges;
  readonly at: Date;
}

export type AgentCommand = CreateAgent | UpdateAgent;
