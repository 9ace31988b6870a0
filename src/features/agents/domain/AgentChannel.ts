import * as t from 'io-ts';

/** The messaging channels an agent can serve, in their canonical order. */
const CHANNELS = {
  whatsapp: null,
  sms: null,
  email: null,
  webchat: null,
  messenger: null,
  instagram: null,
  telegram: null,
  voice: null,
};

export const AgentChannel = t.keyof(CHANNELS, 'AgentChannel');
export type AgentChannel = t.TypeOf<typeof AgentChannel>;

/** Every channel, in canonical order (the order an agent's channels are kept and returned in). */
export const AGENT_CHANNELS = Object.keys(CHANNELS) as readonly AgentChannel[];

interface AgentChannelsBrand {
  readonly AgentChannels: unique symbol;
}

const isCanonical = (channels: readonly unknown[]): boolean => {
  let last = -1;
  for (const channel of channels) {
    const index = AgentChannel.is(channel) ? AGENT_CHANNELS.indexOf(channel) : -1;
    if (index <= last) return false;
    last = index;
  }
  return channels.length > 0;
};

/**
 * An agent's channels: a non-empty set of channel names. Input is an array of
 * names (trimmed, matched exactly); duplicates are dropped and the set is kept in
 * the canonical order of `AGENT_CHANNELS`, so equal sets are equal arrays.
 */
export const AgentChannels = new t.Type<t.Branded<AgentChannel[], AgentChannelsBrand>, string[], unknown>(
  'AgentChannels',
  (u): u is t.Branded<AgentChannel[], AgentChannelsBrand> => Array.isArray(u) && isCanonical(u),
  (u, c) => {
    if (!Array.isArray(u) || !u.every((name): name is string => typeof name === 'string')) {
      return t.failure(u, c, 'must be a list of channel names');
    }
    const names = u.map((name) => name.trim());
    const unknown = names.filter((name) => !AgentChannel.is(name));
    if (unknown.length > 0) {
      return t.failure(u, c, `has unknown channel ${unknown.map((n) => `"${n}"`).join(', ')}; channels are ${AGENT_CHANNELS.join(', ')}`);
    }
    if (names.length === 0) return t.failure(u, c, `must name at least one of ${AGENT_CHANNELS.join(', ')}`);
    const chosen = new Set(names);
    return t.success(AGENT_CHANNELS.filter((channel) => chosen.has(channel)) as t.Branded<AgentChannel[], AgentChannelsBrand>);
  },
  (channels) => [...channels],
);
export type AgentChannels = t.TypeOf<typeof AgentChannels>;

/** Two channel sets in canonical order are equal when their arrays are. */
export const sameChannels = (a: readonly AgentChannel[], b: readonly AgentChannel[]): boolean =>
  a.length === b.length && a.every((channel, i) => channel === b[i]);
