import type { DocumentCollection, ReadModelDocument, ReadModelStore } from '../../../application/ports/ReadModelStore.js';
import type { Delivery, WebhookOutbox } from '../../../application/ports/WebhookOutbox.js';
import { allDocuments } from '../../../application/queries/allDocuments.js';
import type { WebhookSubscriptionView } from '../domain/webhookSubscription.js';

/** A subscription as pages show it, active or ended (no secret: it is never shown again). */
export type SubscriptionView = WebhookSubscriptionView;

/** One subscription of a company, and what a change to it names. */
export interface OwnSubscription {
  readonly id: string;
  readonly companyId: string;
  readonly subscription: SubscriptionView;
}

/**
 * The `webhooks` read model as these queries read it: the collection, a document's
 * subscription, and the count the API's cap is measured with. The feature's index.ts
 * hands it over (`subscriptionQueriesOf`): application/ never imports readModels/,
 * which import it.
 */
export interface SubscriptionsReadModel<D extends ReadModelDocument> {
  readonly subscriptions: DocumentCollection<D>;
  readonly viewOf: (doc: D) => SubscriptionView;
  /** How many subscriptions of a company are not unsubscribed (paused and disabled ones count). */
  readonly countActive: (subscriptions: DocumentCollection<D>, companyId: string) => Promise<number>;
}

/** What pages read of a company's subscriptions. */
export interface SubscriptionQueries {
  /** Every subscription of the company, ended ones too, newest first. */
  readonly subscriptionsOf: (companyId: string) => Promise<SubscriptionView[]>;
  /** One subscription of the company (ended ones too); null when it has none with this id (another company's is as unknown). */
  readonly subscriptionOf: (companyId: string, subscriptionId: string) => Promise<OwnSubscription | null>;
  /** How many subscriptions of the company are not unsubscribed (paused and disabled ones count), as the API counts them for its cap. */
  readonly countActive: (companyId: string) => Promise<number>;
}

/** The queries over the read models, as the feature's index.ts binds them (`subscriptionQueriesOf`). */
export type SubscriptionQueriesOf = (readModels: Pick<ReadModelStore, 'collection'>) => SubscriptionQueries;

/** The queries of a company's subscriptions over the `webhooks` read model. */
export const subscriptionQueries = <D extends ReadModelDocument>({ subscriptions, viewOf, countActive }: SubscriptionsReadModel<D>): SubscriptionQueries => ({
  subscriptionsOf: async (companyId) => (await allDocuments(subscriptions, companyId)).map(viewOf),
  subscriptionOf: async (companyId, subscriptionId) => {
    const doc = await subscriptions.get(companyId, subscriptionId);
    return doc ? { id: doc.id, companyId: doc.companyId, subscription: viewOf(doc) } : null;
  },
  countActive: (companyId) => countActive(subscriptions, companyId),
});

/** Deliveries of a subscription shown on a page of its delivery log. */
export const DELIVERIES_PER_PAGE = 50;

/** One page of a subscription's delivery log, newest first. */
export interface DeliveryLogPage {
  readonly deliveries: readonly Delivery[];
  /** 1-based. */
  readonly page: number;
  /** Whether older deliveries follow on the next page. */
  readonly hasMore: boolean;
}

/** A page of a subscription's delivery log, from the outbox. */
export const deliveryLogPage = async (outbox: Pick<WebhookOutbox, 'listDeliveries'>, subscriptionId: string, page: number): Promise<DeliveryLogPage> => {
  const deliveries = await outbox.listDeliveries(subscriptionId, { page, limit: DELIVERIES_PER_PAGE });
  return { deliveries: deliveries.items, page, hasMore: page * DELIVERIES_PER_PAGE < deliveries.total };
};
