import Router from '@koa/router';
import type { Context } from 'koa';
import type { WebhookEventType } from '../domain/eventTypes.js';
import type { WebhookEventCatalogue } from '../application/webhookEventCatalogue.js';
import { isPosition, type Position } from '../../../shared/Position.js';
import { DEFAULT_FEED_LIMIT, MAX_FEED_LIMIT, eventFeedItemOf, readEventFeed } from '../readModels/webhookEventFeed.js';
import type { WebhookEventCollections } from '../readModels/webhookEventsProjection.js';
import { authOf, requirePermission } from '../../../http/middleware/requirePermission.js';
import { integerParam, singleParam, validationFailed, type QueryValue } from '../../../http/query/listQuery.js';
import type { ApiResource } from '../../../http/ApiResource.js';
import { eventsOpenApi } from './eventsOpenApi.js';
import { webhookEventCollections, type WebhookEventReadModels } from '../readModels/webhookEventsProjection.js';

export interface EventRoutesDeps {
  /** The derived webhook events, one collection per type. */
  readonly webhookEvents: WebhookEventCollections;
  /** The last log position every read model has applied, read now (null: none yet). */
  readonly appliedPosition: () => Promise<Position | null>;
  readonly catalogue: WebhookEventCatalogue;
}

interface FeedParams {
  readonly after: Position | null;
  readonly limit: number;
  /** The requested types, each once, in the specification's order; null: not given. */
  readonly types: readonly WebhookEventType[] | null;
}

/** `after`, `limit` and `types`; every problem is a 422 naming its parameter. */
const decodeFeedParams = (query: Record<string, QueryValue>, catalogue: WebhookEventCatalogue): FeedParams => {
  const problems: Record<string, string> = {};
  const single = (name: string): string | undefined => singleParam(name, query[name], problems);
  const rawAfter = single('after');
  if (rawAfter !== undefined && !isPosition(rawAfter)) {
    problems.after = 'after must be a log position: a non-negative integer without leading zeros, as in X-Log-Position';
  }
  const limit = integerParam('limit', single('limit'), DEFAULT_FEED_LIMIT, 1, MAX_FEED_LIMIT, problems);
  let types: WebhookEventType[] | null = null;
  const rawTypes = single('types');
  if (rawTypes !== undefined) {
    const names = rawTypes.split(',').map((name) => name.trim());
    const unknown = names.filter((name) => !catalogue.isType(name));
    if (unknown.length > 0) {
      const named = unknown.map((name) => JSON.stringify(name)).join(', ');
      problems.types = `unknown event type ${named}; use a comma-separated list of ${catalogue.types.join(', ')}`;
    } else types = catalogue.types.filter((type) => names.includes(type));
  }
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return { after: rawAfter ?? null, limit, types };
};

/**
 * The types this key reads. Each type needs its resource's `:read` (the events
 * carry whole contacts and deals): named types must all be readable (403 naming
 * the first missing permission); without `types`, every type the key may read,
 * and a 403 naming `contacts:read` when it may read none.
 */
const readableTypes = async (
  ctx: Context,
  requested: readonly WebhookEventType[] | null,
  catalogue: WebhookEventCatalogue,
): Promise<readonly WebhookEventType[]> => {
  const { permissions } = authOf(ctx.state);
  const mayRead = (type: WebhookEventType) => permissions.includes(catalogue.readPermissionOf(type));
  const types = requested ?? catalogue.types.filter(mayRead);
  const refused = requested ? requested.find((type) => !mayRead(type)) : types.length === 0 ? catalogue.types[0] : undefined;
  if (refused !== undefined) await requirePermission(catalogue.readPermissionOf(refused))(ctx, async () => undefined);
  return types;
};

/**
 * `GET /events`: the company's webhook events in log order, each with the log
 * position of the stored event it derives from, so an integrator that was offline
 * catches up from where it stopped (`after` = the last `meta.nextAfter`) without
 * webhooks. Served from the per-type read models with keyset reads.
 */
export const eventRoutes = (deps: EventRoutesDeps): Router => {
  const router = new Router();

  router.get('/events', async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const params = decodeFeedParams(ctx.query, deps.catalogue);
    const types = await readableTypes(ctx, params.types, deps.catalogue);
    // First the bound, then the collections: everything up to it is in every one of them.
    const appliedUpTo = await deps.appliedPosition();
    const page = await readEventFeed(deps.webhookEvents, { companyId, types, after: params.after, limit: params.limit, appliedUpTo });
    ctx.body = {
      success: true,
      data: page.events.map(eventFeedItemOf),
      meta: { limit: params.limit, types, hasMore: page.hasMore, nextAfter: page.nextAfter },
    };
  });

  return router;
};

/** `/events`: the company's event feed, in log order. */
export const eventsResource = (catalogue: WebhookEventCatalogue, readModels: WebhookEventReadModels): ApiResource => ({
  openapi: eventsOpenApi(catalogue),
  routes: (api) => [
    eventRoutes({ webhookEvents: webhookEventCollections(api.readModels, readModels), appliedPosition: api.appliedPosition, catalogue }),
  ],
});
