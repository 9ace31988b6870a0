import type { AggregateDescriptor } from '../../application/aggregates/AggregateDescriptor.js';
import type { FieldsDeclaration, SubjectKind } from '../../shared/PersonalData.js';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../../application/ports/ReadModelStore.js';
import type { ConsoleDeps } from '../../console/ConsoleDeps.js';
import type { JsonSchema } from '../../http/openapi/types.js';
import type { DomainEvent } from '../../shared/Decider.js';
import type { Permission } from '../../shared/permissions.js';
import type { DerivedWebhookEvent } from './domain/derivedWebhookEvent.js';
import type { WebhookEventType } from './domain/eventTypes.js';

/** One webhook event type as the feature whose records it carries declares it. */
export interface WebhookEventTypeSpec {
  readonly type: WebhookEventType;
  /**
   * The permission needed to receive it besides `webhooks:*`: deliveries and
   * trigger records carry the record, so a key that may not read it must not get
   * it by webhook either.
   */
  readonly readPermission: Permission;
  /** Whether its records carry the tags a subscription's tag filters match (filters are refused on the others). */
  readonly tagged: boolean;
  /** The console's path of the records it carries (`contacts`, `deals`): where the activity page links them. */
  readonly recordPath: string;
  /** The fields of its `data`, personal or not (the trigger read models and deliveries keep them). */
  readonly fields: FieldsDeclaration;
}

/** A stored event of a made-up history: the examples of the webhook events are derived from these. */
export interface SampleEvent {
  readonly stream: string;
  readonly revision: number;
  readonly event: DomainEvent;
}

/** One shape of the records webhook events carry: its schema in the document, and the types that carry it. */
export interface RecordShape {
  /** The record's schema (`Contact`, `DealWon`, `Deal`). */
  readonly schema: string;
  /** The types whose `data` it is, in the specification's order. */
  readonly types: readonly WebhookEventType[];
  /** In words, for the descriptions of `TriggerRecord` and of the feed's `data` (``a Contact (`contact.*`)``). */
  readonly described: { readonly trigger: string; readonly feed: string };
}

/**
 * The records of a source's webhook events in the OpenAPI document: their
 * shapes, each shape's trigger record (the record with `eventId`), and the
 * schemas they refer to.
 */
export interface TriggerRecordSchemas {
  readonly shapes: readonly RecordShape[];
  /** Schemas the records refer to, added to the document as they are. */
  readonly shared: Readonly<Record<string, JsonSchema>>;
  /** Each trigger record's schema, by its name in the document, before `eventId` is added. */
  readonly records: Readonly<Record<string, JsonSchema>>;
  /** The trigger record of each shape, in the order of `shapes`. */
  readonly alternatives: readonly string[];
  /** The types whose examples illustrate the document's answers of `/sample` and `/recent`. */
  readonly examples?: { readonly sample?: WebhookEventType; readonly recent?: WebhookEventType };
}

/** Who asks the log of a record as it was at an instant (the API's `asOf`), for the console. */
export type RecordAsOf = (
  eventStore: ConsoleDeps['commands']['eventStore'],
  query: { companyId: string; id: string; asOf: string },
) => Promise<object | null>;

/** How the console's activity shows the history of one kind of record, change by change. */
export interface RecordTimeline<D extends ReadModelDocument = ReadModelDocument> {
  /** In the page's words (`contact`, `deal`). */
  readonly kind: string;
  /** Its path under `/console/` (`contacts`, `deals`). */
  readonly path: string;
  /** How it is named in the lookup form's choice of kinds. */
  readonly label: string;
  readonly aggregate: Pick<AggregateDescriptor, 'history'>;
  readonly projection: Projection<D>;
  readonly viewOf: (doc: D) => object;
  readonly titleOf: (view: Record<string, unknown>) => string;
  readonly asOf: RecordAsOf;
  /** The stored event types that erase such a record for good (absent: none). */
  readonly erasedBy?: readonly string[];
}

/** A record taken out of the `recent` triggers, or brought back: what one stored event says of it. */
export interface RecordVisibility {
  readonly companyId: string;
  /** The record's id: the `id` of the webhook events' `data` that carry it. */
  readonly id: string;
  /** True: deleted, its events leave the `recent` triggers; false: restored, they come back. */
  readonly hidden: boolean;
}

/**
 * The stored events that take a source's records out of the `recent` triggers
 * (a delete) or bring them back (a restore), and which of its webhook event types
 * that applies to. The event feed keeps showing them: it is history.
 */
export interface RecordVisibilitySource {
  readonly storedEventTypes: readonly string[];
  /** The types whose events of a deleted record leave the `recent` triggers. */
  readonly types: readonly WebhookEventType[];
  /** What one stored event of `storedEventTypes` says (a pure function of it). */
  readonly of: (event: RecordedEvent) => RecordVisibility;
}

/** A person erased: what one stored event says of whom. */
export interface RecordErasure {
  readonly companyId: string;
  readonly subject: { readonly kind: SubjectKind; readonly id: string };
}

/**
 * The stored events that erase a person (`ContactErased`): every webhook event
 * that carries their values, whatever its type, keeps them no more (each type's
 * declared `fields` say where they are).
 */
export interface RecordErasureSource {
  readonly storedEventTypes: readonly string[];
  /** What one stored event of `storedEventTypes` says (a pure function of it). */
  readonly of: (event: RecordedEvent) => RecordErasure;
}

/**
 * What a feature whose records webhooks carry declares of them: its webhook event
 * types, the one mapping of its stored events to webhook events, a made-up
 * history for their examples, its trigger records' schemas and its records'
 * timeline in the console. The registry gathers every feature's into the
 * catalogue (`webhookEventCatalogue`) that the webhook features are built with.
 */
export interface WebhookEventSource {
  /** Its webhook event types, in the specification's order. */
  readonly types: readonly WebhookEventTypeSpec[];
  /** The stored event types that derive webhook events; every other derives none. */
  readonly storedEventTypes: readonly string[];
  /** The webhook events of one stored event of those types, in their order (a pure function of the event). */
  readonly derive: (event: RecordedEvent) => DerivedWebhookEvent[];
  /** A made-up history, decided by the real deciders, whose first webhook event of each type is its example. */
  readonly sampleHistory: () => readonly SampleEvent[];
  readonly triggerRecords: TriggerRecordSchemas;
  /** Its records' timelines in the console. */
  readonly timelines: readonly RecordTimeline[];
  /** How its records leave the `recent` triggers when deleted (absent: they never do). */
  readonly visibility?: RecordVisibilitySource;
  /** The events that erase a person whose values webhook events may carry (absent: none). */
  readonly erasure?: RecordErasureSource;
}

/** A timeline of any document type, as a source holds it. */
export const recordTimeline = <D extends ReadModelDocument>(timeline: RecordTimeline<D>): RecordTimeline =>
  timeline as unknown as RecordTimeline;
