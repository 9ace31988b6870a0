import * as t from 'io-ts';

/** Where a change came from: an API key, the CLI, the customer console, or Chronicle itself. */
export const EventSource = t.keyof({ api: null, cli: null, console: null, system: null });
export type EventSource = t.TypeOf<typeof EventSource>;

/**
 * Metadata recorded with every stored event: who caused it and in which request,
 * and the version of the event type's schema its data was written in
 * (`schemaVersion`, set by the event store's versioning decorator on append;
 * absent on events written before versions were recorded). Never carries a
 * secret (no API key, no webhook secret).
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
    /** The customer-console session that made the change (source `console`). */
    sessionId: t.string,
    causationId: t.string,
    schemaVersion: t.number,
  }),
]);
export type EventMetadata = t.TypeOf<typeof EventMetadata>;
