import * as t from 'io-ts';

/** Where a change came from: the customer API, the CLI, the customer console, the server itself, the platform's admin API. */
export const EventSource = t.keyof({ api: null, cli: null, console: null, system: null, admin: null });
export type EventSource = t.TypeOf<typeof EventSource>;

/**
 * Metadata recorded with every stored event: who caused it (an API key, an admin
 * token, a user) and in which request, and the version of the event type's
 * schema its data was written in (`schemaVersion`, set by the event store's
 * versioning decorator on append; absent on events written before versions were
 * recorded). Never carries a secret (no API key, no admin token, no webhook secret).
 */
export const EventMetadata = t.intersection([
  t.type({
    source: EventSource,
    correlationId: t.string,
  }),
  t.partial({
    companyId: t.string,
    keyId: t.string,
    /** The admin token (its id, never the token) of a change made through the admin API. */
    adminTokenId: t.string,
    userId: t.string,
    /** The customer-console session that made the change (source `console`). */
    sessionId: t.string,
    causationId: t.string,
    schemaVersion: t.number,
  }),
]);
export type EventMetadata = t.TypeOf<typeof EventMetadata>;
