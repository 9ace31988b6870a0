import type { EventStore, RecordedEvent } from '../ports/EventStore.js';
import { UndecodableEventError } from '../versioning/UndecodableEventError.js';
import type { DocumentCollection, Projection, ReadModelDocument } from '../ports/ReadModelStore.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import { compareFields } from './compareFields.js';
import { LogFolds } from './logFolds.js';
import type { Observed, ReadModelCheck } from './ReadModelCheck.js';

/** One way in which the log and the read models disagree. */
export type Difference =
  | {
      readonly kind: 'field';
      readonly readModel: string;
      readonly document: string;
      readonly field: string;
      /** The value folding the log gives (absent: none). */
      readonly logValue?: unknown;
      /** The value the document holds (absent: none). */
      readonly readModelValue?: unknown;
    }
  /** The log has the stream, the read model no document for it. */
  | { readonly kind: 'missing-document'; readonly readModel: string; readonly document: string; readonly stream: string }
  /** The read model has a document that no stream of the log describes. */
  | { readonly kind: 'missing-stream'; readonly readModel: string; readonly document: string }
  /** Two documents of one read model stand for the same stream. */
  | { readonly kind: 'duplicate-document'; readonly readModel: string; readonly document: string }
  /** A stored event this release cannot read (no codec or upcaster of its version reads it), or its aggregate's codec refuses. */
  | {
      readonly kind: 'undecodable-event';
      readonly stream: string;
      readonly eventId: string;
      readonly type: string;
      readonly position: Position;
      /** The schema version it is stored in (recorded or inferred), when known. */
      readonly version: number | null;
      readonly reason: string;
    };

export interface VerifyReport {
  /** Events of the log folded (and, when rebuilding, applied to the read models). */
  readonly events: number;
  /** The log was compared up to this position (null: nothing to compare). */
  readonly position: Position | null;
  /** Aggregate streams folded. */
  readonly streams: number;
  /** Documents compared. */
  readonly documents: number;
  /** Documents changed after `position` (live read models moving on), left out. */
  readonly skipped: number;
  readonly readModels: readonly string[];
  readonly differences: readonly Difference[];
}

export interface VerifyDeps {
  readonly eventStore: EventStore;
  /** Where the read models' documents are read (and built, with `rebuild`). */
  readonly readModels: { collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> };
  /**
   * True: the collections are empty and are built here from the very events the
   * streams are folded from (embedded mode, where the read models live in the
   * server's memory). False: compare with read models kept by another process.
   */
  readonly rebuild: boolean;
  /**
   * For kept read models: waits (bounded) for them to apply the log up to `head`
   * and resolves how far they got; the log is then compared up to there.
   * Absent: up to the head.
   */
  readonly readModelsReached?: (head: Position) => Promise<Position | null>;
  /** The read models to check and how (each read model's check, registered with it in src/features). */
  readonly checks: readonly ReadModelCheck[];
  readonly batchSize?: number;
}

const quote = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

/** The line `chronicle verify` prints for a difference. */
export const describeDifference = (difference: Difference): string => {
  switch (difference.kind) {
    case 'field':
      return (
        `${difference.readModel} ${difference.document}: ${difference.field}: ` +
        `log says ${quote(difference.logValue)}, read model says ${quote(difference.readModelValue)}`
      );
    case 'missing-document':
      return `${difference.readModel} ${difference.document}: no document, but the log has stream ${difference.stream}`;
    case 'missing-stream':
      return `${difference.readModel} ${difference.document}: document without a stream in the log`;
    case 'duplicate-document':
      return `${difference.readModel} ${difference.document}: more than one document`;
    case 'undecodable-event': {
      const version = difference.version === null ? '' : `, version ${difference.version}`;
      return (
        `log ${difference.stream}: event ${difference.eventId} (${difference.type}${version}) at position ${difference.position} ` +
        `does not decode: ${difference.reason}`
      );
    }
    default: {
      const unknown: never = difference;
      return unknown;
    }
  }
};

/**
 * A batch of the log after `after`; when an event in it cannot be read (the
 * event store's read paths refuse it), the events before it, read one at a
 * time, and its error, so that verify can list it and go on after it.
 */
const readAllListing = async (
  eventStore: Pick<EventStore, 'readAll'>,
  after: Position | null,
  batchSize: number,
): Promise<{ events: RecordedEvent[]; failure: UndecodableEventError | null }> => {
  try {
    return { events: await eventStore.readAll({ after, maxCount: batchSize }), failure: null };
  } catch (error) {
    if (!(error instanceof UndecodableEventError)) throw error;
  }
  const events: RecordedEvent[] = [];
  let cursor = after;
  // Bounded by the batch that failed: at most batchSize reads reach the event it failed on.
  for (let i = 0; i <= batchSize; i++) {
    try {
      const [next] = await eventStore.readAll({ after: cursor, maxCount: 1 });
      if (!next) break;
      events.push(next);
      cursor = next.position;
    } catch (error) {
      if (!(error instanceof UndecodableEventError)) throw error;
      if (cursor !== null && comparePositions(error.position, cursor) <= 0) throw error; // it must be the next event
      return { events, failure: error };
    }
  }
  return { events, failure: null };
};

const minPosition = (a: Position, b: Position | null): Position | null => (b === null ? null : comparePositions(a, b) <= 0 ? a : b);

/**
 * Folds every stream of the log again with its aggregate's own `evolve` and
 * compares the result with the read-model documents, field by field on the
 * fields both carry; also finds documents without a stream and streams without
 * a document. Read models kept by another process are compared up to the
 * position they have reached, and documents that moved past it meanwhile are
 * skipped (counted), so a busy system shows no false differences.
 */
export const verifyReadModels = async (deps: VerifyDeps): Promise<VerifyReport> => {
  const { eventStore, rebuild } = deps;
  const { checks } = deps;
  const batchSize = deps.batchSize ?? 1000;
  const collections = checks.map((check) => deps.readModels.collection(check.projection));

  const head = await eventStore.headPosition();
  const upTo = head === null || rebuild || !deps.readModelsReached ? head : minPosition(head, await deps.readModelsReached(head));

  // Every aggregate a check reads, folded once.
  const folds = new LogFolds([...new Set(checks.flatMap((check) => check.folds))]);
  const unreadable: UndecodableEventError[] = [];
  let after: Position | null = null;
  // Bounded: every batch moves `after` forward, and the loop ends at `upTo`.
  while (upTo !== null && (after === null || comparePositions(after, upTo) < 0)) {
    const { events: read, failure } = await readAllListing(eventStore, after, batchSize);
    const batch = read.filter((event) => comparePositions(event.position, upTo) <= 0);
    if (batch.length > 0) {
      folds.apply(batch);
      if (rebuild) for (const collection of collections) await collection.apply(batch);
      after = batch[batch.length - 1]!.position;
    }
    // An event that cannot be read is listed and passed: the events after it are checked as usual.
    if (failure && comparePositions(failure.position, upTo) <= 0) {
      unreadable.push(failure);
      after = failure.position;
    } else if (batch.length === 0) break;
  }

  const differences: Difference[] = [
    ...unreadable.map((error) => ({
      kind: 'undecodable-event' as const,
      stream: error.stream,
      eventId: error.eventId,
      type: error.type,
      position: error.position,
      version: error.version,
      reason: error.reason,
    })),
    ...folds.undecodable.map(({ event, reason }) => ({
      kind: 'undecodable-event' as const,
      stream: event.stream,
      eventId: event.id,
      type: event.type,
      position: event.position,
      version: event.version?.stored ?? null,
      reason,
    })),
  ];
  let documents = 0;
  let skipped = 0;
  const changedSince = (observed: Observed): boolean => upTo === null || comparePositions(observed.position, upTo) > 0;

  for (const [i, check] of checks.entries()) {
    const readModel = check.projection.name;
    const observed = new Map<string, Observed>();
    for await (const doc of collections[i]!.scan()) {
      const seen = check.observed(doc);
      if (changedSince(seen)) {
        skipped++;
        observed.set(seen.key, seen);
        continue;
      }
      if (observed.has(seen.key)) differences.push({ kind: 'duplicate-document', readModel, document: seen.label });
      else observed.set(seen.key, seen);
    }
    for (const expected of check.expected(folds)) {
      const found = observed.get(expected.key);
      observed.delete(expected.key);
      if (found === undefined) {
        differences.push({ kind: 'missing-document', readModel, document: expected.label, stream: expected.stream });
        continue;
      }
      if (changedSince(found)) continue;
      documents++;
      for (const { field, log, readModel: value } of compareFields(expected.fields, found.fields)) {
        differences.push({
          kind: 'field',
          readModel,
          document: expected.label,
          field,
          ...(log === undefined ? {} : { logValue: log }),
          ...(value === undefined ? {} : { readModelValue: value }),
        });
      }
    }
    for (const orphan of observed.values()) {
      if (changedSince(orphan)) continue;
      documents++;
      differences.push({ kind: 'missing-stream', readModel, document: orphan.label });
    }
  }

  return {
    events: folds.events,
    position: after,
    streams: folds.streams,
    documents,
    skipped,
    readModels: checks.map((check) => check.projection.name),
    differences,
  };
};
