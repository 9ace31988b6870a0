import type { DocumentCollection, Filter, ListQuery } from '../../../application/ports/ReadModelStore.js';
import type { WebhookEventType } from '../../webhookEvents/index.js';
import type { WebhookDoc } from './webhooksProjection.js';

export interface ActiveSubscriptionsParams {
  readonly companyId: string;
  /** Only subscriptions to this event type; absent: every type. */
  readonly event?: WebhookEventType;
  /** 1-based. */
  readonly page: number;
  readonly limit: number;
}

/** Active subscriptions of a company (optionally for one event type) as a typed read-model query, oldest first. */
export const activeSubscriptionsQuery = (params: ActiveSubscriptionsParams): ListQuery => {
  const filters: Filter[] = [{ op: 'eq', field: 'subscription.isActive', value: true }];
  if (params.event !== undefined) filters.push({ op: 'eq', field: 'subscription.event', value: params.event });
  return { companyId: params.companyId, filters, page: params.page, limit: params.limit, order: 'asc' };
};

/** Rows fetched per read-model query while collecting every active subscription. */
const PAGE_SIZE = 200;

/**
 * Every active subscription of a company (for one event type when `event` is
 * given), in creation order: GET /webhooks, and the fan-out's "who receives this
 * event". Pages through the read model, so it has no upper bound of its own.
 */
export const activeSubscriptions = async (
  webhooks: DocumentCollection<WebhookDoc>,
  companyId: string,
  event?: WebhookEventType,
): Promise<WebhookDoc[]> => {
  const found: WebhookDoc[] = [];
  for (let page = 1; ; page++) {
    const result = await webhooks.list(
      activeSubscriptionsQuery({ companyId, page, limit: PAGE_SIZE, ...(event !== undefined ? { event } : {}) }),
    );
    found.push(...result.items);
    if (result.items.length < PAGE_SIZE || found.length >= result.total) return found;
  }
};

/** How many subscriptions of a company are not unsubscribed (paused and disabled ones count): one count of the read model. */
export const countActiveSubscriptions = async (webhooks: DocumentCollection<WebhookDoc>, companyId: string): Promise<number> =>
  (await webhooks.list(activeSubscriptionsQuery({ companyId, page: 1, limit: 1 }))).total;
