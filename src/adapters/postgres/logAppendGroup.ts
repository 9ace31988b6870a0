import {
  DuplicateEventIdError,
  SubjectKeyTakenError,
  WrongExpectedRevisionError,
  type AppendResult,
  type ExpectedRevision,
  type RecordedEvent,
  type StreamAppend,
} from '../../application/ports/EventStore.js';

/** One append or multi-stream append waiting for the next group commit. */
export interface PendingAppend {
  readonly appends: readonly StreamAppend[];
  /** New subjects' key texts to keep in the same transaction (`appendToStreamsWithKeys`): subject → text. */
  readonly keys?: ReadonlyMap<string, string>;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

/** What `log_append` answers for one append: each stream's outcome, or why it was refused. */
export type AppendOutcome =
  | ReadonlyArray<{ readonly revision: number; readonly position: string; readonly at?: number; readonly before?: string | null }>
  | { readonly refused: 'revision'; readonly stream: string; readonly actual: number | null }
  | { readonly refused: 'duplicate'; readonly eventId: string }
  | { readonly refused: 'key'; readonly subject: string; readonly erased: boolean };

/** Why an append cannot be sent at all (a bad expected revision, an event id given twice in it), or null. */
export const invalidAppend = (appends: readonly StreamAppend[]): Error | null => {
  const ids = new Set<string>();
  for (const { expected, events } of appends) {
    if (!isExpectedRevision(expected)) return new RangeError(`Invalid expected revision ${expected}`);
    for (const { id } of events) {
      if (ids.has(id)) return new DuplicateEventIdError(id);
      ids.add(id);
    }
  }
  return null;
};

const isExpectedRevision = (expected: ExpectedRevision): boolean =>
  typeof expected !== 'number' || (Number.isSafeInteger(expected) && expected >= 0);

/**
 * Splits what is pending into the next group commit and what waits for a later
 * one, keeping the order: an append that shares a stream or an event id with an
 * append before it waits (`log_append` checks every append of a group against the
 * log as it was before the group), and so does every later append that shares one
 * with it, so that appends to one stream keep their order. At most `max` appends
 * go in one group.
 */
export const nextAppendGroup = (
  pending: readonly PendingAppend[],
  max: number,
): { readonly group: PendingAppend[]; readonly later: PendingAppend[] } => {
  const group: PendingAppend[] = [];
  const later: PendingAppend[] = [];
  const seen = new Set<string>();
  for (const request of pending) {
    const keys = [
      ...request.appends.flatMap(({ stream, events }) => [`stream:${stream}`, ...events.map(({ id }) => `event:${id}`)]),
      ...[...(request.keys?.keys() ?? [])].map((subject) => `key:${subject}`),
    ];
    if (group.length < max && keys.every((key) => !seen.has(key))) group.push(request);
    else later.push(request);
    keys.forEach((key) => seen.add(key));
  }
  return { group, later };
};

/**
 * `log_append`'s parameters after its lock timeout, as parallel arrays: per stream
 * append its append's number in the group (from 1), stream, expected revision and
 * count of events; per event its id, type, data and metadata (JSON text).
 */
export const appendGroupParameters = (group: readonly PendingAppend[]): unknown[][] => {
  const [appends, streams, expected, counts]: [number[], string[], string[], number[]] = [[], [], [], []];
  const [ids, types, data, metadata]: [string[], string[], string[], string[]] = [[], [], [], []];
  group.forEach((request, i) => {
    for (const append of request.appends) {
      appends.push(i + 1);
      streams.push(append.stream);
      expected.push(String(append.expected));
      counts.push(append.events.length);
      for (const event of append.events) {
        ids.push(event.id);
        types.push(event.type);
        data.push(JSON.stringify(event.data ?? null));
        metadata.push(JSON.stringify(event.metadata));
      }
    }
  });
  return [appends, streams, expected, counts, ids, types, data, metadata];
};

/**
 * The new subjects' keys of a group, as `log_append_keyed` takes them: per key, the
 * index of its append in the group (as `appendGroupParameters` numbers them), its
 * subject and its text. Null when no append of the group has one (`log_append` does).
 */
export const appendGroupKeys = (group: readonly PendingAppend[]): unknown[][] | null => {
  const [appends, subjects, texts]: [number[], string[], string[]] = [[], [], []];
  group.forEach((request, i) => {
    for (const [subject, text] of request.keys ?? []) {
      appends.push(i + 1);
      subjects.push(subject);
      texts.push(text);
    }
  });
  return appends.length === 0 ? null : [appends, subjects, texts];
};

/**
 * Resolves or rejects each append of the group with its outcome; answers the log's head
 * after the group (its last position stored: positions follow the appends' order), or
 * null when none was stored.
 */
export const settleAppendGroup = (group: readonly PendingAppend[], outcomes: readonly AppendOutcome[]): string | null => {
  let head: string | null = null;
  group.forEach((request, i) => {
    const outcome = outcomes[i]!;
    if ('refused' in outcome) {
      request.reject(refusal(outcome, request.appends));
      return;
    }
    head = outcome[outcome.length - 1]?.position ?? head;
    request.resolve(outcome.map(({ revision, position }) => ({ nextRevision: revision, position })));
  });
  return head;
};

/**
 * The events the group stored, as the log now holds them, in position order: each stream
 * append's events end at the position and revision its answer gives, recorded at its
 * `at` (milliseconds; from log step 6 on); with `before`, the id of the event the first of
 * them follows (null: none). `data` and `metadata` are parsed from the JSON text the call
 * sent (`appendGroupParameters`), as a read of the log parses what it stored. Null when an
 * answer lacks its time (a function older than step 6).
 */
export const recordedEvents = (
  group: readonly PendingAppend[],
  outcomes: readonly AppendOutcome[],
  parameters: readonly unknown[][],
): { readonly events: RecordedEvent[]; readonly before: string | null } | null => {
  const [data, metadata] = [parameters[6] as string[], parameters[7] as string[]];
  const events: RecordedEvent[] = [];
  let before: string | null = null;
  let k = 0;
  for (let i = 0; i < group.length; i++) {
    const outcome = outcomes[i]!;
    const appends = group[i]!.appends;
    if ('refused' in outcome) {
      for (const append of appends) k += append.events.length;
      continue;
    }
    for (let j = 0; j < appends.length; j++) {
      const { stream, events: appended } = appends[j]!;
      const { revision, position, at, before: follows } = outcome[j]!;
      if (at === undefined || follows === undefined) return null;
      before = follows;
      const recordedAt = new Date(at).toISOString();
      const last = BigInt(position);
      appended.forEach((event, n) => {
        const back = appended.length - 1 - n;
        events.push({
          id: event.id,
          stream,
          revision: revision - back,
          position: String(last - BigInt(back)),
          type: event.type,
          data: JSON.parse(data[k]!) as unknown,
          metadata: JSON.parse(metadata[k]!) as RecordedEvent['metadata'],
          recordedAt,
        });
        k += 1;
      });
    }
  }
  return { events, before };
};

/** The port's error for an append that `log_append` refused. */
const refusal = (outcome: Extract<AppendOutcome, { readonly refused: string }>, appends: readonly StreamAppend[]): Error => {
  if (outcome.refused === 'duplicate') return new DuplicateEventIdError(outcome.eventId);
  if (outcome.refused === 'key') return new SubjectKeyTakenError(outcome.subject, outcome.erased);
  const expected = appends.find((append) => append.stream === outcome.stream)?.expected ?? 'any';
  return new WrongExpectedRevisionError(outcome.stream, expected, outcome.actual ?? 'no_stream');
};
