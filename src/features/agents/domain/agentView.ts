import * as t from 'io-ts';
import { AgentChannel } from './AgentChannel.js';
import { AgentStatus } from './AgentStatus.js';

/**
 * An agent as the API and the CLI show it: every field present (`description`
 * null when unset), `channels` in canonical order, `language` a canonical BCP 47
 * tag, timestamps ISO 8601 UTC with milliseconds.
 */
export const AgentView = t.type({
  id: t.string,
  name: t.string,
  description: t.union([t.string, t.null]),
  status: AgentStatus,
  channels: t.array(AgentChannel),
  language: t.string,
  createdAt: t.string,
  updatedAt: t.string,
});
export type Agent = t.TypeOf<typeof AgentView>;
