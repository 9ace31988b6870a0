import Router from '@koa/router';
import type { Context } from 'koa';
import type { WebhookEventType } from '../domain/eventTypes.js';
import type { WebhookEventCatalogue } from '../application/webhookEventCatalogue.js';
import { parseInstant } from '../../../shared/instant.js';
import type { WebhookEventData } from '../domain/derivedWebhookEvent.js';
import { webhookEventDataOf, type WebhookEventCollections, type WebhookEventDoc } from '../readModels/webhookEventsProjection.js';
import { recentWebhookEvents } from '../readModels/webhookEventQueries.js';
import { HttpError } from '../../../http/HttpError.js';
import { authOf, requirePermission } from '../../../http/middleware/requirePermission.js';
import { integerParam, singleParam, validationFailed, type QueryValue } from '../../../http/query/listQuery.js';
import type { ApiResource } from '../../../http/ApiResource.js';
import { triggersOpenApi } from './triggersOpenApi.js';
import { webhookEventCollections, type WebhookEventReadModels } from '../readModels/webhookEventsProjection.js';

export interface TriggerRoutesDeps {
  /** The derived webhook events, one collection per type. */
  readonly webhookEvents: WebhookEventCollections;
  readonly catalogue: WebhookEventCatalogue;
}

export const DEFAULT_TRIGGER_LIMIT = 25;
export const MAX_TRIGGER_LIMIT = 100;

const unknownEventType = (raw: string, catalogue: WebhookEventCatalogue): HttpError =>
  new HttpError(404, 'Unknown event type', `${JSON.stringify(raw)} is not an event type; use one of ${catalogue.types.join(', ')}.`);

/**
 * The event type of the path: 404 `Unknown event type` for anything else, then 403
 * unless the key may also read the resource the records show (`contacts:read` or
 * `deals:read`): a trigger returns whole records.
 */
const eventTypeOf = async (ctx: Context, catalogue: WebhookEventCatalogue): Promise<WebhookEventType> => {
  const raw = ctx.params.event_type ?? '';
  if (!catalogue.isType(raw)) throw unknownEventType(raw, catalogue);
  await requirePermission(catalogue.readPermissionOf(raw))(ctx, async () => undefined);
  return raw;
};


/**
 * A polling record: the event's `data` in the specification's shape (`id` is the
 * contact's or deal's), plus `eventId`, the webhook event's id (as in a delivery's
 * `metadata.eventId`). Zapier and Make de-duplicate polled records on a key; `id`
 * is the same for every change of one record, `eventId` differs for each.
 */
export type TriggerRecord = WebhookEventData & { readonly eventId: string };

const triggerRecordOf = (doc: WebhookEventDoc): TriggerRecord => ({ ...webhookEventDataOf(doc), eventId: doc.event.eventId });

/** The made-up example of a type, as a trigger record. */
export const sampleRecordOf = (catalogue: WebhookEventCatalogue, type: WebhookEventType): TriggerRecord => {
  const sample = catalogue.sampleOf(type);
  return { ...sample.data, eventId: sample.eventId };
};

/** `limit` (1–100, default 25) and `since` (an ISO 8601 instant); each problem is a 422 naming the parameter. */
const decodeRecentParams = (query: Record<string, QueryValue>): { limit: number; since?: string } => {
  const problems: Record<string, string> = {};
  const single = (name: string): string | undefined => singleParam(name, query[name], problems);
  const limit = integerParam('limit', single('limit'), DEFAULT_TRIGGER_LIMIT, 1, MAX_TRIGGER_LIMIT, problems);
  let since: string | undefined;
  const rawSince = single('since');
  if (rawSince !== undefined) {
    const instant = parseInstant(rawSince);
    if (instant === null) problems.since = 'since must be an ISO 8601 date, or a date-time with a zone';
    else since = instant;
  }
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return since === undefined ? { limit } : { limit, since };
};

/**
 * Polling triggers for Zapier and Make: bare records (not wrapped in
 * `success`/`data`), from the read model of derived webhook events, so a trigger
 * returns exactly what a webhook of the same type carries as `data`.
 */
export const triggerRoutes = (deps: TriggerRoutesDeps): Router => {
  const router = new Router();

  router.get('/triggers/:event_type/sample', requirePermission('webhooks:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const type = await eventTypeOf(ctx, deps.catalogue);
    const [latest] = await recentWebhookEvents(deps.webhookEvents, { companyId, type, limit: 1 });
    ctx.body = latest ? triggerRecordOf(latest) : sampleRecordOf(deps.catalogue, type);
  });

  router.get('/triggers/:event_type/recent', requirePermission('webhooks:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const type = await eventTypeOf(ctx, deps.catalogue);
    const params = decodeRecentParams(ctx.query);
    const docs = await recentWebhookEvents(deps.webhookEvents, { companyId, type, ...params });
    ctx.body = docs.map(triggerRecordOf);
  });

  return router;
};

/** `/triggers`: sample and recent records of each event type, for polling integrations. */
export const triggersResource = (catalogue: WebhookEventCatalogue, readModels: WebhookEventReadModels): ApiResource => ({
  openapi: triggersOpenApi(catalogue),
  routes: (api) => [triggerRoutes({ webhookEvents: webhookEventCollections(api.readModels, readModels), catalogue })],
});
