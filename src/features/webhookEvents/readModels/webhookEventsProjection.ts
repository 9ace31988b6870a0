import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import type { DocumentCollection, Projection, ReadModelDocument, ReadModelStore } from '../../../application/ports/ReadModelStore.js';
import type { WebhookEventType } from '../domain/eventTypes.js';
import type { EventSource } from '../../../shared/EventMetadata.js';
import { orderedPositionText, type Position } from '../../../shared/Position.js';
import type { DerivedWebhookEvent, WebhookEventData } from '../domain/derivedWebhookEvent.js';
import type { WebhookEventCatalogue } from '../application/webhookEventCatalogue.js';
import type { RecordErasure } from '../WebhookEventSource.js';
import { erasePersonalFields } from '../../../application/personalData/personalSeal.js';
import type { FieldsDeclaration } from '../../../shared/PersonalData.js';
import { erasedWithCompany } from '../../companies/index.js';

/**
 * One derived webhook event in the read model behind the polling triggers
 * (`GET /triggers/:type/recent|sample`) and the event feed. Its id is the
 * position of the stored event it was derived from (`feedDocumentId`), so a
 * replay of the log rewrites the same documents, and each new document's key
 * comes after the last one (the webhook event's own id, a UUIDv5, would land
 * each insert on a random page of the key's index). Readers take the webhook
 * event's id from `event.eventId`; documents stored by earlier releases are keyed
 * by it, and stay so.
 */
export interface WebhookEventDoc extends ReadModelDocument {
  /** `feedDocumentId(position)` (documents of earlier releases: the webhook event's `eventId`). */
  readonly id: string;
  readonly companyId: string;
  /** Log position of the stored event it was derived from. */
  readonly position: Position;
  /**
   * Its index among the webhook events derived from that stored event (`deal.won`
   * 0, `deal.updated` 1, …): with `position`, the order of the company event feed.
   * Documents written before this field existed lack it (read as 0).
   */
  readonly ordinal?: number;
  /**
   * True while the record the event carries is deleted: the `recent` triggers
   * leave it out; the event feed still shows it. Absent otherwise. Setting it
   * keeps `position` (the feed's order), so only applying the deletes and restores
   * in log order, as every runner does, gives the right value.
   */
  readonly recordDeleted?: true;
  readonly event: {
    readonly type: WebhookEventType;
    /** When the change happened (ISO 8601 UTC with ms). */
    readonly timestamp: string;
    readonly data: WebhookEventData;
    readonly eventId: string;
    readonly source: EventSource;
  };
}

/** The record a trigger returns: the webhook event's `data`. */
export const webhookEventDataOf = (doc: WebhookEventDoc): WebhookEventData => doc.event.data;

/** The catalogue's derivation, kept per stored event: the projections of every type share one derivation per event. */
const sharedDerivation = (catalogue: WebhookEventCatalogue): ((event: RecordedEvent) => readonly DerivedWebhookEvent[]) => {
  const derivedEvents = new WeakMap<RecordedEvent, readonly DerivedWebhookEvent[]>();
  return (event) => {
    let derived = derivedEvents.get(event);
    if (!derived) derivedEvents.set(event, (derived = catalogue.derive(event)));
    return derived;
  };
};

/**
 * The key of a webhook event's document: its stored event's position as ordered
 * text (`orderedPositionText`), so keys sort in log order. A stored event derives
 * at most one webhook event of each type, and each type has its own collection,
 * so the position alone is unique there.
 */
export const feedDocumentId = (position: Position): string => orderedPositionText(position);

const toDoc = (derived: DerivedWebhookEvent, ordinal: number): WebhookEventDoc => ({
  id: feedDocumentId(derived.position),
  companyId: derived.companyId,
  position: derived.position,
  ordinal,
  event: {
    type: derived.type,
    timestamp: derived.timestamp,
    data: derived.data,
    eventId: derived.eventId,
    source: derived.source,
  },
});

/**
 * The webhook events of one type, built by the one mapping (the catalogue's `derive`).
 *
 * One collection per type (`webhook_events.<type>`), not one for all: one stored
 * event may derive several webhook events (`deal.won` and `deal.updated`), and a
 * projection's `evolve(doc | null, event)` is not told which of an event's target
 * documents it is creating, so in one collection it could create only one document
 * per stored event. A stored event derives at most one webhook event of each type,
 * so per type every target is unambiguous. It also lets a trigger read only the
 * events of its type (no scan past other types' events).
 *
 * A webhook event never changes once derived: `evolve` keeps an existing document,
 * but for `recordDeleted`, set while the record it carries is deleted (types the
 * catalogue says can be hidden: `isHideable`), and for the values of a person an
 * event erases (`ContactErased`): the documents that carry them, found by the ids
 * the type's declared fields hold (`event.data.id`, `event.data.contact.id`), keep
 * them as null, in place (the feed's order stays).
 */
const webhookEventsProjectionFor = (
  type: WebhookEventType,
  catalogue: WebhookEventCatalogue,
  derive: (event: RecordedEvent) => readonly DerivedWebhookEvent[],
): Projection<WebhookEventDoc> => {
  // The deletes and restores of the records this type carries, when they can be hidden.
  const hideable = catalogue.isHideable(type);
  const visibilityOf = (event: RecordedEvent) => {
    if (!hideable || !catalogue.visibilityEventTypes.has(event.type)) return null;
    const visibility = catalogue.visibilityOf(event);
    return visibility && visibility.types.includes(type) ? visibility : null;
  };
  // The people erased from this type's documents: the id paths of its declared personal fields, by kind.
  const fields = catalogue.fieldsOf(type);
  const erasable = fields.personal.length > 0;
  const erasureOf = (event: RecordedEvent): RecordErasure | null => (erasable ? catalogue.erasureOf(event) : null);
  const dataIdPaths = [...new Set(fields.personal.map((group) => `event.data.${group.idAt}`))];
  const marking = new Set([...(hideable ? catalogue.visibilityEventTypes : []), ...(erasable ? catalogue.erasureEventTypes : [])]);
  const idIndexes = [...new Set([...(hideable ? ['event.data.id'] : []), ...dataIdPaths])].map((path) => [path]);
  return {
    name: `webhook_events.${type}`,
    eventTypes: marking.size > 0 ? new Set([...catalogue.sourceEventTypes, ...marking]) : catalogue.sourceEventTypes,
    // `since` filters on the timestamp; every document of a collection has the same `event.type`, so no index on it.
    // A delete finds its record's events by the record's id, an erasure the person's by the ids its fields hold.
    indexes: [['event.timestamp'], ...idIndexes],
    targets(event) {
      if (marking.has(event.type)) {
        const targets = new Map<string, { kind: 'where'; companyId: string; field: string; value: string }>();
        const visibility = visibilityOf(event);
        if (visibility) targets.set(`event.data.id ${visibility.id}`, { kind: 'where', companyId: visibility.companyId, field: 'event.data.id', value: visibility.id });
        const erasure = erasureOf(event);
        for (const group of erasure ? fields.personal.filter((candidate) => candidate.subject === erasure.subject.kind) : []) {
          const field = `event.data.${group.idAt}`;
          targets.set(`${field} ${erasure!.subject.id}`, { kind: 'where', companyId: erasure!.companyId, field, value: erasure!.subject.id });
        }
        return [...targets.values()];
      }
      return derive(event)
        .filter((derived) => derived.type === type)
        .map((derived) => ({ kind: 'id', companyId: derived.companyId, id: feedDocumentId(derived.position) }));
    },
    // Each document is keyed by the position of the event that derives it; a delete, restore or erasure only changes it.
    creates: (event) => !marking.has(event.type),
    evolve(doc, event) {
      if (marking.has(event.type)) {
        if (!doc) return doc;
        const erasure = erasureOf(event);
        return erasedFrom(visibleAs(doc, visibilityOf(event)), fields, erasure);
      }
      if (doc) return doc;
      const all = derive(event);
      const ordinal = all.findIndex((candidate) => candidate.type === type);
      return ordinal >= 0 ? toDoc(all[ordinal]!, ordinal) : null;
    },
  };
};

/** The document marked as its record's visibility says (unchanged when it says nothing new). */
const visibleAs = (doc: WebhookEventDoc, visibility: { readonly hidden: boolean } | null): WebhookEventDoc => {
  if (!visibility || (doc.recordDeleted === true) === visibility.hidden) return doc;
  if (visibility.hidden) return { ...doc, recordDeleted: true };
  const { recordDeleted: _shownAgain, ...shown } = doc;
  return shown;
};

/** The document with the erased person's values in its `data` set to null (unchanged when it holds none). */
const erasedFrom = (doc: WebhookEventDoc, fields: FieldsDeclaration, erasure: RecordErasure | null): WebhookEventDoc => {
  if (!erasure) return doc;
  const { data, erased } = erasePersonalFields(doc.event.data, fields, erasure.subject);
  return erased.length === 0 ? doc : { ...doc, event: { ...doc.event, data: data as WebhookEventData } };
};

/** The read models of the webhook events: the projection of each type of the catalogue, by type and in its order. */
export interface WebhookEventReadModels {
  readonly byType: ReadonlyMap<WebhookEventType, Projection<WebhookEventDoc>>;
  readonly projections: readonly Projection<WebhookEventDoc>[];
}

/** The projection of each webhook event type of `catalogue`. */
export const webhookEventReadModels = (catalogue: WebhookEventCatalogue): WebhookEventReadModels => {
  const derive = sharedDerivation(catalogue);
  const projections = catalogue.types.map((type) => erasedWithCompany(webhookEventsProjectionFor(type, catalogue, derive)));
  return { byType: new Map(catalogue.types.map((type, index) => [type, projections[index]!])), projections };
};

/** The collection of each webhook event type. */
export type WebhookEventCollections = ReadonlyMap<WebhookEventType, DocumentCollection<WebhookEventDoc>>;

/** The collections of `store` holding the webhook events of each type. */
export const webhookEventCollections = (store: Pick<ReadModelStore, 'collection'>, readModels: WebhookEventReadModels): WebhookEventCollections =>
  new Map([...readModels.byType].map(([type, projection]) => [type, store.collection(projection)]));

/** The collection of one webhook event type (the callers checked the type against the catalogue). */
export const collectionOf = (collections: WebhookEventCollections, type: WebhookEventType): DocumentCollection<WebhookEventDoc> => {
  const collection = collections.get(type);
  if (collection === undefined) throw new Error(`${type} is not a webhook event type`);
  return collection;
};
