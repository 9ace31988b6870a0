import { webhookRoutes } from './console/webhookRoutes.js';
import { webhookAggregate } from './application/webhookAggregate.js';
import { webhooksResource } from './api/webhookRoutes.js';
import { webhooksCheck } from './readModels/webhooksCheck.js';
import { webhooksProjection } from './readModels/webhooksProjection.js';
import { readModel, type Feature } from '../Feature.js';

/** REST-hook subscriptions and their delivery logs (the fan-out and the dispatcher are started apart, in src/startup). */
export const webhooks: Feature = {
  name: 'webhooks',
  aggregates: [webhookAggregate],
  readModels: [readModel(webhooksProjection, webhooksCheck)],
  resources: [webhooksResource],
  consolePages: [{ routes: webhookRoutes, signedIn: true }],
};
