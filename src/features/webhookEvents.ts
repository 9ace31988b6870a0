import { eventsResource } from '../http/routes/events.js';
import { triggersResource } from '../http/routes/triggers.js';
import { webhookEventsProjections } from '../../projections/webhookEvents/webhookEventsProjection.js';
import { readModel, type Feature } from './Feature.js';

/** The webhook events derived from the log, kept per type: polling triggers and the company's event feed. */
export const webhookEvents: Feature = {
  name: 'webhook events',
  readModels: webhookEventsProjections.map((projection) => readModel(projection)),
  resources: [triggersResource, eventsResource],
};
