import type { WebhookEventType } from '../domain/eventTypes.js';
import { comparePositions, type Position } from '../../../shared/Position.js';
import type { WebhookEnvelope } from '../domain/envelope.js';
import { collectionOf, type WebhookEventCollections, type WebhookEventDoc } from './webhookEventsProjection.js';

/** Events per page of GET /events: the default and the most. */
export const DEFAULT_FEED_LIMIT = 100;
export const MAX_FEED_LIMIT = 1000;

export interface EventFeedParams {
  readonly companyId: string;
  /** The webhook event types to read (at least one, each once). */
  readonly types: readonly WebhookEventType[];
  /** Only events derived from stored events after this log position; null: from the start. */
  readonly after: Position | null;
  /** At most this many events, unless one stored event alone derives more (see `cutFeedPage`). */
  readonly limit: number;
  /**
   * The last log position every read model has applied (null: none yet). Read before
   * the collections: nothing after it is served, since the collections of other
   * types may not have applied it yet.
   */
  readonly appliedUpTo: Position | null;
}

export interface EventFeedPage {
  readonly events: readonly WebhookEventDoc[];
  /** True when events after `nextAfter` already exist: ask again at once. */
  readonly hasMore: boolean;
  /** The `after` of the next request: the last event's position, else the request's own `after`. */
  readonly nextAfter: Position | null;
}

/** Feed order: log position, then the order in which one stored event derived its webhook events. */
export const compareFeedOrder = (a: WebhookEventDoc, b: WebhookEventDoc): number =>
  comparePositions(a.position, b.position) || (a.ordinal ?? 0) - (b.ordinal ?? 0);

/**
 * One feed page from each requested type's next `limit + 1` events after `after`
 * (`candidates`, one list per type, each in log order; one more than a page, so
 * that `hasMore` is exact even when a single type has more).
 *
 * The first `limit + 1` events of the merge are exact: each comes from a type's
 * first `limit + 1`. The page is the first `limit` of them, served only up to
 * `appliedUpTo`, and never splits the events derived from one stored event (a won
 * deal's `deal.won` and `deal.updated` share a position): when the next event
 * shares the last one's position, that whole position is left for the next page,
 * so `after = nextAfter` resumes exactly. When the first position alone derives
 * more than `limit` events (at most one per type), the page is that position.
 */
export const cutFeedPage = (
  candidates: readonly (readonly WebhookEventDoc[])[],
  params: Pick<EventFeedParams, 'after' | 'limit' | 'appliedUpTo'>,
): EventFeedPage => {
  const merged = candidates.flat().sort(compareFeedOrder);
  const { appliedUpTo } = params;
  let served = 0;
  if (appliedUpTo !== null) while (served < merged.length && comparePositions(merged[served]!.position, appliedUpTo) <= 0) served++;
  let end = Math.min(params.limit, served);
  if (end < served) {
    const boundary = merged[end]!.position;
    while (end > 0 && merged[end - 1]!.position === boundary) end--;
    if (end === 0) while (end < served && merged[end]!.position === boundary) end++;
  }
  const events = merged.slice(0, end);
  const last = events[events.length - 1];
  return { events, hasMore: merged.length > end, nextAfter: last ? last.position : params.after };
};

/** Reads one page of a company's event feed from the per-type collections (keyset reads, no scan). */
export const readEventFeed = async (collections: WebhookEventCollections, params: EventFeedParams): Promise<EventFeedPage> => {
  const candidates = await Promise.all(
    params.types.map((type) => collectionOf(collections, type).listCreatedAfter(params.companyId, params.after, params.limit + 1)),
  );
  return cutFeedPage(candidates, params);
};

/** A feed item: the webhook envelope, plus the position of the stored event it derives from. */
export type EventFeedItem = { readonly position: Position } & WebhookEnvelope;

export const eventFeedItemOf = (doc: WebhookEventDoc): EventFeedItem => ({
  position: doc.position,
  event: doc.event.type,
  timestamp: doc.event.timestamp,
  data: doc.event.data,
  metadata: { companyId: doc.companyId, eventId: doc.event.eventId, source: doc.event.source },
});

/** Pages of the newest-first feed a reader may turn to: each is read from the top, so deep pages cost more (GET /events pages the whole log). */
export const MAX_RECENT_FEED_PAGES = 20;

/**
 * One page of a company's newest events, newest first (the console's activity):
 * each type's newest `page × limit + 1` (a keyset read from the top of its
 * collection, counting nothing), merged, then the page cut out. `hasMore` says a
 * next, older page has events.
 */
export const readRecentFeed = async (
  collections: WebhookEventCollections,
  params: { readonly companyId: string; readonly types: readonly WebhookEventType[]; readonly page: number; readonly limit: number },
): Promise<{ readonly events: readonly WebhookEventDoc[]; readonly hasMore: boolean }> => {
  const page = Math.min(Math.max(1, params.page), MAX_RECENT_FEED_PAGES);
  const depth = page * params.limit + 1;
  const lists = await Promise.all(
    params.types.map((type) =>
      collectionOf(collections, type).list({ companyId: params.companyId, filters: [], page: 1, limit: depth, order: 'desc', withTotal: false }),
    ),
  );
  const merged = lists.flatMap((list) => list.items).sort((a, b) => compareFeedOrder(b, a));
  return { events: merged.slice((page - 1) * params.limit, page * params.limit), hasMore: merged.length > page * params.limit };
};
