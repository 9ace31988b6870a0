import * as t from 'io-ts';

export const AGENT_DESCRIPTION_MAX_LENGTH = 1000;

interface AgentDescriptionBrand {
  readonly AgentDescription: unique symbol;
}

/** Control characters other than tab, line feed and carriage return (a description may have lines). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

const isDescription = (u: unknown): u is t.Branded<string, AgentDescriptionBrand> =>
  typeof u === 'string' && u === u.trim() && u.length > 0 && u.length <= AGENT_DESCRIPTION_MAX_LENGTH && !CONTROL.test(u);

/**
 * An agent's optional description: trimmed, at most 1000 characters, line breaks
 * and tabs allowed but no other control characters. `null` or a string that is
 * empty after trimming means "no description" (on update: clear it).
 */
export const AgentDescription = new t.Type<t.Branded<string, AgentDescriptionBrand> | null, string | null, unknown>(
  'AgentDescription',
  (u): u is t.Branded<string, AgentDescriptionBrand> | null => u === null || isDescription(u),
  (u, c) => {
    if (u === null) return t.success(null);
    if (typeof u !== 'string') return t.failure(u, c, 'must be a string');
    const description = u.trim();
    if (description === '') return t.success(null);
    return isDescription(description)
      ? t.success(description)
      : t.failure(u, c, `must be at most ${AGENT_DESCRIPTION_MAX_LENGTH} characters without control characters`);
  },
  t.identity,
);
export type AgentDescription = t.TypeOf<typeof AgentDescription>;
