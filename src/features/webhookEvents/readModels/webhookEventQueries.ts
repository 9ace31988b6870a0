import type { Filter, ListQuery } from '../../../application/ports/ReadModelStore.js';
import type { WebhookEventType } from '../domain/eventTypes.js';
import { requireInstant } from '../../../shared/instant.js';
import { collectionOf, type WebhookEventCollections, type WebhookEventDoc } from './webhookEventsProjection.js';

export interface RecentWebhookEventsParams {
  readonly companyId: string;
  readonly type: WebhookEventType;
  /** ISO 8601; only events whose timestamp is strictly after it. */
  readonly since?: string;
  readonly limit: number;
}

/**
 * A company's webhook events of one type as a typed read-model query: newest
 * first (log order, descending: the order the changes were committed), without
 * those of records deleted since (`recordDeleted`), optionally
 * only those that happened strictly after `since`, at most `limit`.
 */
export const recentWebhookEventsQuery = (params: RecentWebhookEventsParams): ListQuery => {
  // The type is also the collection's; filtering on it keeps the query right on its own.
  // Events of a deleted record are left out (they come back if it is restored).
  const filters: Filter[] = [
    { op: 'eq', field: 'event.type', value: params.type },
    { op: 'eq', field: 'recordDeleted', value: null },
  ];
  if (params.since !== undefined) {
    filters.push({ op: 'gt', field: 'event.timestamp', value: requireInstant('since', params.since) });
  }
  // Nothing reads a total: no adapter needs to count a type's every event for it.
  return { companyId: params.companyId, filters, page: 1, limit: params.limit, order: 'desc', withTotal: false };
};

/** Runs `recentWebhookEventsQuery` on the collection of its type. */
export const recentWebhookEvents = async (
  collections: WebhookEventCollections,
  params: RecentWebhookEventsParams,
): Promise<readonly WebhookEventDoc[]> => (await collectionOf(collections, params.type).list(recentWebhookEventsQuery(params))).items;
