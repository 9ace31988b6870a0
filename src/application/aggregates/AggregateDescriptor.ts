import type * as t from 'io-ts';
import type { DomainEvent } from '../../shared/Decider.js';
import type { RecordedEvent } from '../ports/EventStore.js';
import { decodeStoredEvent } from '../versioning/decodeStoredEvent.js';
import type { AggregateFolding } from '../commands/loadAggregate.js';
import { aggregateFold, type AggregateFold } from '../verify/logFolds.js';
import type { StoredEventType } from '../versioning/storedEventTypes.js';

/** How an auditor reads one entity's history: its stream by id, and whose stream it is. */
export interface HistorySource {
  readonly streamOf: (id: string) => string;
  /** The company the stream's first (creating) event belongs to. */
  readonly companyOf: (first: RecordedEvent) => string;
}

/**
 * Everything the log side knows of one kind of aggregate, in one place: where its
 * streams are, the codec of its events and every version they were ever stored
 * in, the decider that folds them, and what history and verify need. The
 * registry of features (src/features) lists them; every list that used to name
 * aggregates one by one (stored event types, the folds `chronicle verify` runs,
 * entity histories) is derived from it.
 */
export interface AggregateDescriptor<Event extends DomainEvent = DomainEvent, State = unknown> extends AggregateFolding<Event, State> {
  /** Singular, as verify and errors name it (`contact`). */
  readonly name: string;
  /** Every stream of this aggregate starts with it (`contact-`); no other aggregate's does. */
  readonly streamPrefix: string;
  /** The codec of its events in their current versions (the codec the code writes with). */
  readonly eventCodec: t.Type<Event, unknown, unknown>;
  /** Each event type of its streams with every version it was ever stored in, and the upcasters between them. */
  readonly storedEvents: readonly StoredEventType[];
  /** Entities whose history and past states are shown (contacts, deals); null for the others. */
  readonly history: HistorySource | null;
  /** Its streams folded with its decider, as `chronicle verify` folds the whole log. */
  readonly fold: AggregateFold<State>;
}

/** Builds a descriptor; its fold is made once here (verify keys the folded states by it). */
export const describeAggregate = <Event extends DomainEvent, State>(spec: {
  readonly name: string;
  readonly streamPrefix: string;
  readonly eventCodec: t.Type<Event, unknown, unknown>;
  readonly decider: AggregateFolding<Event, State>['decider'];
  readonly storedEvents: readonly StoredEventType[];
  readonly history?: HistorySource;
}): AggregateDescriptor<Event, State> => ({
  name: spec.name,
  streamPrefix: spec.streamPrefix,
  eventCodec: spec.eventCodec,
  decider: spec.decider,
  storedEvents: spec.storedEvents,
  history: spec.history ?? null,
  fold: aggregateFold(spec.name, spec.streamPrefix, spec.eventCodec, spec.decider),
});

/** A descriptor of any aggregate, as registries hold them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAggregate = AggregateDescriptor<any, any>;

/** The company of a stream whose every event type records it in `data.companyId`. */
export const companyInData =
  (codec: t.Decoder<unknown, { readonly data: { readonly companyId: string } }>) =>
  (event: RecordedEvent): string =>
    decodeStoredEvent(codec, event).data.companyId;
