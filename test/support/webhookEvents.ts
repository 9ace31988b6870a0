import * as t from 'io-ts';
import type { Projection, ReadModelStore } from '../../src/application/ports/ReadModelStore.js';
import { WEBHOOK_EVENTS } from '../../src/features/index.js';
import type { DerivedWebhookEvent, WebhookEventType as EventType } from '../../src/features/webhookEvents/index.js';
import { webhookEventCollections as collectionsOf, webhookEventReadModels, type WebhookEventDoc } from '../../src/features/webhookEvents/readModels/webhookEventsProjection.js';
import { matchesFilters as matchesWithTypes, type SubscriptionFilters } from '../../src/features/webhooks/domain/subscriptionFilters.js';
import { validateSubscribe as validateWithTypes } from '../../src/features/webhooks/domain/subscriptionInput.js';

/**
 * The registry's webhook event catalogue (`WEBHOOK_EVENTS`) under the names the
 * tests use: every webhook event type, the one derivation, the examples, the
 * read models of each type, and the subscription checks bound to the catalogue.
 * A derived event's `data` is loosely typed here, so a test reads its fields.
 */
export const WEBHOOK_EVENT_TYPES: readonly EventType[] = WEBHOOK_EVENTS.types;

/** A webhook event type of the catalogue. */
export const WebhookEventType = new t.Type<EventType, string, unknown>('WebhookEventType', WEBHOOK_EVENTS.isType, (u, c) =>
  WEBHOOK_EVENTS.isType(u) ? t.success(u) : t.failure(u, c), t.identity);

export const deriveWebhookEvents: (event: Parameters<typeof WEBHOOK_EVENTS.derive>[0]) => DerivedWebhookEvent<any>[] = WEBHOOK_EVENTS.derive;
export const webhookCompanyOf = WEBHOOK_EVENTS.companyOf;
export const readPermissionFor = WEBHOOK_EVENTS.readPermissionOf;
export const deriveSampleData = (type: EventType): any => WEBHOOK_EVENTS.sampleOf(type).data;

export const matchesFilters = (filters: SubscriptionFilters, derived: Pick<DerivedWebhookEvent, 'type' | 'tags'>): boolean =>
  matchesWithTypes(filters, derived, WEBHOOK_EVENTS);

export const validateSubscribe = (body: unknown) => validateWithTypes(body, WEBHOOK_EVENTS);

const readModels = webhookEventReadModels(WEBHOOK_EVENTS);

/** The projection of a webhook event type. */
export const projectionOf = (type: EventType): Projection<WebhookEventDoc> => {
  const projection = readModels.byType.get(type);
  if (projection === undefined) throw new Error(`${type} is not a webhook event type`);
  return projection;
};

/** Every webhook-event projection, in the catalogue's order. */
export const webhookEventsProjections: readonly Projection<WebhookEventDoc>[] = readModels.projections;

/** The collection of each webhook event type in `store`. */
export const webhookEventCollections = (store: Pick<ReadModelStore, 'collection'>) => collectionsOf(store, readModels);
