import * as t from 'io-ts';

const STATUSES = { active: null, paused: null };

/** Whether an agent answers conversations (`active`) or is switched off for now (`paused`). */
export const AgentStatus = t.keyof(STATUSES, 'AgentStatus');
export type AgentStatus = t.TypeOf<typeof AgentStatus>;

export const AGENT_STATUSES = Object.keys(STATUSES) as readonly AgentStatus[];

/** The same values as input, with a message that lists them (CLI options, query parameters). */
export const AgentStatusInput = new t.Type<AgentStatus, string, unknown>(
  'AgentStatusInput',
  AgentStatus.is,
  (u, c) => (AgentStatus.is(u) ? t.success(u) : t.failure(u, c, `must be ${AGENT_STATUSES.join(' or ')}`)),
  t.identity,
);
