import { activityRoutes } from './console/activityRoutes.js';
import { eventsResource } from './api/eventRoutes.js';
import { triggersResource } from './api/triggerRoutes.js';
import { webhookEventsProjections } from './readModels/webhookEventsProjection.js';
import { readModel, type Feature } from '../Feature.js';

/** The webhook events derived from the log, kept per type: polling triggers and the company's event feed. */
export const webhookEvents: Feature = {
  name: 'webhook events',
  readModels: webhookEventsProjections.map((projection) => readModel(projection)),
  resources: [triggersResource, eventsResource],
  consolePages: [{ routes: activityRoutes, signedIn: true }],
};

// What other features use of this one.
export { deriveSampleData } from './application/deriveSampleData.js';
export type { DerivedWebhookEvent } from './domain/derivedWebhookEvent.js';
export { WEBHOOK_EVENT_TYPES, WebhookEventType, isContactEventType, readPermissionFor } from './domain/eventTypes.js';
