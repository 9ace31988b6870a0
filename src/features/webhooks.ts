import { webhookAggregate } from '../application/aggregates/webhookAggregate.js';
import { webhooksResource } from '../http/routes/webhooks.js';
import { webhooksCheck } from '../../projections/webhooks/webhooksCheck.js';
import { webhooksProjection } from '../../projections/webhooks/webhooksProjection.js';
import { readModel, type Feature } from './Feature.js';

/** REST-hook subscriptions and their delivery logs (the fan-out and the dispatcher are started apart, in src/startup). */
export const webhooks: Feature = {
  name: 'webhooks',
  aggregates: [webhookAggregate],
  readModels: [readModel(webhooksProjection, webhooksCheck)],
  resources: [webhooksResource],
};
