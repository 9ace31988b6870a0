import { activityRoutes } from './console/activityRoutes.js';
import { eventsResource } from './api/eventRoutes.js';
import { triggersResource } from './api/triggerRoutes.js';
import type { WebhookEventCatalogue } from './application/webhookEventCatalogue.js';
import type { WebhookEventType } from './domain/eventTypes.js';
import type { ActivityQueriesOf } from './application/activityQueries.js';
import { readRecentFeed } from './readModels/webhookEventFeed.js';
import { webhookEventCollections, webhookEventReadModels, type WebhookEventReadModels } from './readModels/webhookEventsProjection.js';
import { readModel, type Feature } from '../Feature.js';
import { DOCUMENT_FIELDS, nestedUnder, type FieldsDeclaration } from '../../shared/PersonalData.js';

/**
 * The webhook events derived from the log, kept per type: polling triggers and
 * the company's event feed. Built with the catalogue of the webhook events the
 * other features declare (the registry gathers it).
 */
/** The console's activity queries, bound to the read models of each type. */
const activityQueriesOf =
  (readModels: WebhookEventReadModels): ActivityQueriesOf =>
  (store) => {
    const collections = webhookEventCollections(store, readModels);
    return {
      recentEvents: async (query) => {
        const feed = await readRecentFeed(collections, query);
        return { events: feed.events.map((doc) => doc.event), hasMore: feed.hasMore };
      },
    };
  };

/** A derived webhook event's document: its own fields, and its `data` as the type's feature declares it. */
const documentFields = (catalogue: WebhookEventCatalogue, type: WebhookEventType): FieldsDeclaration =>
  nestedUnder('event.data', catalogue.fieldsOf(type), [...DOCUMENT_FIELDS, 'event.type', 'event.timestamp', 'event.eventId', 'event.source']);

export const webhookEventsFeature = (catalogue: WebhookEventCatalogue): Feature => {
  const readModels = webhookEventReadModels(catalogue);
  return {
    name: 'webhook events',
    // The records the events carry, as the features whose records they are declare them.
    personalData: {
      events: {},
      readModels: Object.fromEntries(catalogue.types.map((type) => [readModels.byType.get(type)!.name, documentFields(catalogue, type)])),
    },
    readModels: readModels.projections.map((projection) => readModel(projection)),
    resources: [triggersResource(catalogue, readModels), eventsResource(catalogue, readModels)],
    consolePages: [{ routes: activityRoutes(catalogue, activityQueriesOf(readModels)), signedIn: true }],
  };
};

// What other features, the registry and the start-up use of this one.
export { webhookEventCatalogue, sampleHistoryOf } from './application/webhookEventCatalogue.js';
export type { WebhookEventCatalogue, WebhookEventSample } from './application/webhookEventCatalogue.js';
export { webhookEventId } from './domain/derivedWebhookEvent.js';
export type { DerivedWebhookEvent, WebhookEventData } from './domain/derivedWebhookEvent.js';
export type { WebhookEventType } from './domain/eventTypes.js';
export { toEnvelope } from './domain/envelope.js';
export type { WebhookEnvelope } from './domain/envelope.js';
export { recordTimeline } from './WebhookEventSource.js';
export { RECORD_ERASED, recordLifecycleSchemas } from './api/recordLifecycleRecords.js';
export type {
  RecordShape,
  RecordTimeline,
  RecordVisibility,
  RecordErasure,
  RecordErasureSource,
  RecordVisibilitySource,
  SampleEvent,
  TriggerRecordSchemas,
  WebhookEventSource,
  WebhookEventTypeSpec,
} from './WebhookEventSource.js';
