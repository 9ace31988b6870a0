import { webhookRoutes } from './console/webhookRoutes.js';
import { webhookAggregate } from './application/webhookAggregate.js';
import { webhooksResource } from './api/webhookRoutes.js';
import { adminWebhooksResource } from './admin/webhookAdminRoutes.js';
import { webhooksCheck } from './readModels/webhooksCheck.js';
import { countActiveSubscriptions } from './readModels/webhookQueries.js';
import { subscriptionOf, webhooksProjection } from './readModels/webhooksProjection.js';
import { exportedRecords } from '../../application/companyExport/ExportedRecords.js';
import { subscriptionQueries, type SubscriptionQueriesOf } from './application/subscriptionQueries.js';
import type { WebhookEventCatalogue } from '../webhookEvents/index.js';
import { storableEventTypes } from './domain/webhookEvents.js';
import { readModel, type Feature } from '../Feature.js';
import { webhookPersonalData } from './domain/webhookPersonalData.js';

/** The queries of a company's subscriptions over the read models: the console's pages. */
const subscriptionQueriesOf: SubscriptionQueriesOf = (readModels) =>
  subscriptionQueries({ subscriptions: readModels.collection(webhooksProjection), viewOf: subscriptionOf, countActive: countActiveSubscriptions });

/**
 * REST-hook subscriptions and their delivery logs (the fan-out and the dispatcher
 * are started apart, in src/startup), for the webhook event types of the catalogue
 * the registry gathers.
 */
export const webhooksFeature = (catalogue: WebhookEventCatalogue): Feature => {
  storableEventTypes(catalogue.types);
  return {
    name: 'webhooks',
    aggregates: [webhookAggregate],
    personalData: webhookPersonalData,
    readModels: [readModel(webhooksProjection, webhooksCheck)],
    resources: [webhooksResource(catalogue)],
    adminResources: [adminWebhooksResource],
    // The subscriptions as listed: their secrets are in the secret store alone, never exported.
    exports: [exportedRecords('webhook_subscriptions', webhooksProjection, subscriptionOf)],
    consolePages: [{ routes: webhookRoutes(catalogue, subscriptionQueriesOf), signedIn: true }],
  };
};

// What the start-up uses of this one: the fan-out's and the dispatcher's hooks into subscriptions.
export { announceDeliveryStatus } from './application/dispatcherAnnounce.js';
export { unsubscribeGone } from './application/dispatcherUnsubscribe.js';
export { subscriptionChange } from './application/subscriptionChange.js';
export { matchesFilters } from './domain/subscriptionFilters.js';
export { webhooksProjection } from './readModels/webhooksProjection.js';

// What the CLI uses of this one: an imported company's subscriptions end (they have no secret here).
export { endImportedWebhooks, isWebhookStream } from './application/endImportedWebhooks.js';
