import * as E from 'fp-ts/lib/Either.js';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import type { Decider, DomainEvent } from '../../../shared/Decider.js';
import type { Permission } from '../../../shared/permissions.js';
import type { FieldsDeclaration } from '../../../shared/PersonalData.js';
import type { DerivedWebhookEvent, WebhookEventData } from '../domain/derivedWebhookEvent.js';
import type { WebhookEventType } from '../domain/eventTypes.js';
import type {
  RecordErasure,
  RecordTimeline,
  RecordVisibility,
  SampleEvent,
  TriggerRecordSchemas,
  WebhookEventSource,
  WebhookEventTypeSpec,
} from '../WebhookEventSource.js';

/** The example of a webhook event type: its `data` and its (made-up, fixed) event id. */
export interface WebhookEventSample {
  readonly data: WebhookEventData;
  readonly eventId: string;
}

/**
 * Every webhook event type and the one mapping from stored events to webhook
 * events, gathered from the features that declare them (the registry builds it
 * from FEATURES). The webhook features are built with it, so none of them names
 * another feature's records.
 */
export interface WebhookEventCatalogue {
  /** Every webhook event type, in the features' order (the specification's). */
  readonly types: readonly WebhookEventType[];
  readonly isType: (value: unknown) => value is WebhookEventType;
  readonly readPermissionOf: (type: WebhookEventType) => Permission;
  /** Whether a subscription's tag filters apply to the type (its records carry tags). */
  readonly isTagged: (type: WebhookEventType) => boolean;
  /** The console path of the records the type carries (`contacts`, `deals`). */
  readonly recordPathOf: (type: WebhookEventType) => string;
  /** The fields of the type's `data`, personal or not, as the feature that declares the type declares them. */
  readonly fieldsOf: (type: WebhookEventType) => FieldsDeclaration;
  /** The stored event types that derive webhook events; every other derives none. */
  readonly sourceEventTypes: ReadonlySet<string>;
  /**
   * The webhook events of one stored event, in their order: a pure function of the
   * event, so the fan-out, the trigger read models, a redelivery and a replay of the
   * log see the same events with the same ids. Each feature maps its own stored
   * events (see its `WebhookEventSource`); every other type derives none.
   */
  readonly derive: (event: RecordedEvent) => DerivedWebhookEvent[];
  /**
   * The company of every webhook event `derive` gives for a stored event, read
   * without deriving them: its `data.companyId`. Null when the type derives none, or
   * the field is not a text (the derivation then says what is wrong).
   */
  readonly companyOf: (event: RecordedEvent) => string | null;
  /**
   * The example of a type, for `GET /triggers/:type/sample` when the company has
   * no record of it yet and for a test delivery: derived from the features'
   * made-up histories by the real deciders and mappings, so it has exactly the shape
   * of a real record. A fresh copy each time.
   */
  readonly sampleOf: (type: WebhookEventType) => WebhookEventSample;
  /** The stored event types that take a record out of the `recent` triggers or bring it back. */
  readonly visibilityEventTypes: ReadonlySet<string>;
  /** Whether the events of a deleted record of this type leave the `recent` triggers. */
  readonly isHideable: (type: WebhookEventType) => boolean;
  /**
   * What a stored event of `visibilityEventTypes` says of its record, with the
   * types whose events of that record it hides or shows again; null for any other event.
   */
  readonly visibilityOf: (event: RecordedEvent) => (RecordVisibility & { readonly types: readonly WebhookEventType[] }) | null;
  /** The stored event types that erase a person (`ContactErased`). */
  readonly erasureEventTypes: ReadonlySet<string>;
  /** Whom a stored event of `erasureEventTypes` erases; null for any other event. */
  readonly erasureOf: (event: RecordedEvent) => RecordErasure | null;
  /** The trigger records' schemas, in the features' order. */
  readonly triggerRecords: readonly TriggerRecordSchemas[];
  /** The records' timelines in the console, in the features' order. */
  readonly timelines: readonly RecordTimeline[];
}

/** A stored event around a decided one of a made-up history (ids and positions as fake as the rest). */
const recorded = (sequence: number, sample: SampleEvent): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(100 + sequence).padStart(12, '0')}`,
  stream: sample.stream,
  revision: sample.revision,
  position: String(sequence),
  type: sample.event.type,
  data: sample.event.data,
  metadata: { source: 'api', correlationId: 'sample' },
  recordedAt: '2024-01-15T09:30:00.000Z',
});

/** The first webhook event of each type the sources' made-up histories derive, numbered across them in order. */
const samplesOf = (sources: readonly WebhookEventSource[], derive: WebhookEventCatalogue['derive']): ReadonlyMap<WebhookEventType, WebhookEventSample> => {
  const samples = new Map<WebhookEventType, WebhookEventSample>();
  const history = sources.flatMap((source) => source.sampleHistory());
  history.forEach((sample, index) => {
    for (const derived of derive(recorded(index + 1, sample))) {
      if (!samples.has(derived.type)) samples.set(derived.type, { data: derived.data, eventId: derived.eventId });
    }
  });
  return samples;
};

const specsOf = (sources: readonly WebhookEventSource[]): ReadonlyMap<WebhookEventType, WebhookEventTypeSpec> => {
  const specs = new Map<WebhookEventType, WebhookEventTypeSpec>();
  for (const spec of sources.flatMap((source) => source.types)) {
    if (specs.has(spec.type)) throw new Error(`webhook event type ${spec.type} is declared twice`);
    specs.set(spec.type, spec);
  }
  return specs;
};

const derivationsOf = (sources: readonly WebhookEventSource[]): ReadonlyMap<string, WebhookEventSource['derive']> => {
  const derivations = new Map<string, WebhookEventSource['derive']>();
  for (const source of sources) {
    for (const type of source.storedEventTypes) {
      if (derivations.has(type)) throw new Error(`stored event type ${type} derives webhook events in two features`);
      derivations.set(type, source.derive);
    }
  }
  return derivations;
};

const visibilitiesOf = (sources: readonly WebhookEventSource[]): ReadonlyMap<string, NonNullable<WebhookEventSource['visibility']>> => {
  const visibilities = new Map<string, NonNullable<WebhookEventSource['visibility']>>();
  for (const { visibility } of sources) {
    for (const type of visibility?.storedEventTypes ?? []) {
      if (visibilities.has(type)) throw new Error(`stored event type ${type} hides records of two features`);
      visibilities.set(type, visibility!);
    }
  }
  return visibilities;
};

const erasuresOf = (sources: readonly WebhookEventSource[]): ReadonlyMap<string, NonNullable<WebhookEventSource['erasure']>> => {
  const erasures = new Map<string, NonNullable<WebhookEventSource['erasure']>>();
  for (const { erasure } of sources) {
    for (const type of erasure?.storedEventTypes ?? []) {
      if (erasures.has(type)) throw new Error(`stored event type ${type} erases people of two features`);
      erasures.set(type, erasure!);
    }
  }
  return erasures;
};

/** The catalogue of the webhook events the `sources` declare (the registry's features', in their order). */
export const webhookEventCatalogue = (sources: readonly WebhookEventSource[]): WebhookEventCatalogue => {
  const specs = specsOf(sources);
  const derivations = derivationsOf(sources);
  const visibilities = visibilitiesOf(sources);
  const erasures = erasuresOf(sources);
  const hideable = new Set(sources.flatMap((source) => source.visibility?.types ?? []));
  for (const type of hideable) if (!specs.has(type)) throw new Error(`${type} is hidden on delete but is not a webhook event type`);
  const specOf = (type: WebhookEventType): WebhookEventTypeSpec => {
    const spec = specs.get(type);
    if (spec === undefined) throw new Error(`${type} is not a webhook event type`);
    return spec;
  };
  const derive = (event: RecordedEvent): DerivedWebhookEvent[] => derivations.get(event.type)?.(event) ?? [];
  let samples: ReadonlyMap<WebhookEventType, WebhookEventSample> | null = null;
  return {
    types: [...specs.keys()],
    isType: (value): value is WebhookEventType => typeof value === 'string' && specs.has(value),
    readPermissionOf: (type) => specOf(type).readPermission,
    isTagged: (type) => specOf(type).tagged,
    recordPathOf: (type) => specOf(type).recordPath,
    fieldsOf: (type) => specOf(type).fields,
    sourceEventTypes: new Set(derivations.keys()),
    derive,
    companyOf: (event) => {
      if (!derivations.has(event.type)) return null;
      const data: unknown = event.data;
      const companyId = typeof data === 'object' && data !== null ? (data as { companyId?: unknown }).companyId : undefined;
      return typeof companyId === 'string' ? companyId : null;
    },
    sampleOf: (type) => {
      samples ??= samplesOf(sources, derive);
      const sample = samples.get(type);
      if (sample === undefined) throw new Error(`no sample for ${type}`);
      return structuredClone(sample);
    },
    visibilityEventTypes: new Set(visibilities.keys()),
    isHideable: (type) => hideable.has(type),
    visibilityOf: (event) => {
      const visibility = visibilities.get(event.type);
      return visibility ? { ...visibility.of(event), types: visibility.types } : null;
    },
    erasureEventTypes: new Set(erasures.keys()),
    erasureOf: (event) => erasures.get(event.type)?.of(event) ?? null,
    triggerRecords: sources.map((source) => source.triggerRecords),
    timelines: sources.flatMap((source) => source.timelines),
  };
};

/**
 * A made-up history of one stream, decided by the real decider from `state`
 * (the first command's revision `revision`): the stored events and the state after
 * them. A refused command is a bug of the history.
 */
export const sampleHistoryOf = <C, Ev extends DomainEvent, S, Err>(
  decider: Decider<C, Ev, S, Err>,
  stream: string,
  commands: readonly C[],
  from: { readonly state: S; readonly revision: number } = { state: decider.initialState, revision: 0 },
): { readonly events: readonly SampleEvent[]; readonly state: S } => {
  let { state, revision } = from;
  const events: SampleEvent[] = [];
  for (const command of commands) {
    const decided = decider.decide(command, state);
    if (E.isLeft(decided)) throw new Error(`sample history refused: ${JSON.stringify(decided.left)}`);
    for (const event of decided.right) {
      events.push({ stream, revision: revision++, event });
      state = decider.evolve(state, event);
    }
  }
  return { events, state };
};
