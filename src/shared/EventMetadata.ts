import * as t from 'io-ts';

/** Where a change came from. */
export const EventSource = t.keyof({ api: null, cli: null, system: null });
export type EventSource = t.TypeOf<typeof EventSource>;

/**
 * Metadata recorded with every stored event: who caused it and in which request.
 * Never carries a secret (no API key, no webhook secret).
 */
export const EventMetadata = t.intersection([
  t.type({
    source: EventSource,
    correlationId: t.string,
  }),
  t.partial({
    companyId: t.string,
    keyId: t.string,
    userId: t.string,
    causationId: t.string,
  }),
]);
export type EventMetadata = t.TypeOf<typeof EventMetadata>;
