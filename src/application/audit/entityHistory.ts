import type { HistorySource } from '../aggregates/AggregateDescriptor.js';
import type { EventStore, RecordedEvent } from '../ports/EventStore.js';
import type { EventSource } from '../../shared/EventMetadata.js';
import type { Position } from '../../shared/Position.js';

/** Which schema version an event of a history was stored in, and which one its `data` is shown in. */
export interface HistorySchema {
  /** The version of `data` as shown: the event type's current one. */
  readonly version: number;
  /** The version the event was stored in (lower than `version` when it was upcast). */
  readonly storedVersion: number;
  /** False when the stored event names no version (written before versions were recorded): `storedVersion` is inferred from its shape. */
  readonly versionRecorded: boolean;
}

/**
 * One stored event of an entity's history, as an auditor sees it: what happened
 * (`type`, and `data` in the type's current shape, upcast when it was stored in an
 * older version, with `schema` saying which), where it sits in its stream and in
 * the log, when it was recorded, and who caused it. Of the metadata only who and
 * which request: the company is the caller's own, and no secret is ever recorded.
 */
export interface HistoryEntry {
  readonly type: string;
  /** 0-based revision in the entity's stream. */
  readonly revision: number;
  /** Global log position (a decimal string). */
  readonly position: Position;
  /** When the store recorded the event (ISO 8601 UTC with milliseconds). */
  readonly timestamp: string;
  readonly schema: HistorySchema;
  readonly data: unknown;
  /** The paths in `data` of a person's values erased since (each reads as null); empty for most events. */
  readonly erasedFields: readonly string[];
  readonly metadata: {
    readonly source: EventSource;
    /** The API key that caused it (API requests). */
    readonly keyId?: string;
    readonly userId?: string;
    /** The request id of an API request (`X-Request-Id`), or the id a CLI command generated. */
    readonly correlationId: string;
  };
}

/** An entry of an event read through the versioning decorator (`UpcastingEventStore`), which says its versions. */
export const historyEntryOf = (event: RecordedEvent): HistoryEntry => {
  const { source, keyId, userId, correlationId } = event.metadata;
  const { version } = event;
  if (!version) throw new Error(`Event ${event.id} (${event.type}) was not read through the versioning decorator: its version is unknown`);
  return {
    type: event.type,
    revision: event.revision,
    position: event.position,
    timestamp: event.recordedAt,
    schema: { version: version.current, storedVersion: version.stored, versionRecorded: version.recorded },
    data: event.data,
    erasedFields: event.erasedFields ?? [],
    metadata: {
      source,
      ...(keyId !== undefined ? { keyId } : {}),
      ...(userId !== undefined ? { userId } : {}),
      correlationId,
    },
  };
};

export interface HistoryPage {
  readonly entries: readonly HistoryEntry[];
  /** Events in the whole stream. */
  readonly total: number;
}

/**
 * One page (1-based, oldest first) of an entity's stored events, read from the
 * event store itself (through the versioning decorator, so each event comes in
 * its current shape, with its versions), so it is current the moment a write returns. Null when the
 * entity does not exist or belongs to another company: both are answered alike,
 * so an id never tells that it exists elsewhere.
 *
 * The whole stream is read (a page needs the stream's length for `total`); an
 * entity's stream holds one event per change of it.
 */
export const readEntityHistory = async (
  eventStore: Pick<EventStore, 'readStream'>,
  source: HistorySource,
  query: { readonly companyId: string; readonly id: string; readonly page: number; readonly limit: number },
): Promise<HistoryPage | null> => {
  const events = await eventStore.readStream(source.streamOf(query.id));
  const first = events[0];
  if (!first || source.companyOf(first) !== query.companyId) return null;
  const from = (query.page - 1) * query.limit;
  return { entries: events.slice(from, from + query.limit).map(historyEntryOf), total: events.length };
};
