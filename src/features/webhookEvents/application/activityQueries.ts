import type { ReadModelStore } from '../../../application/ports/ReadModelStore.js';
import type { EventSource } from '../../../shared/EventMetadata.js';
import type { WebhookEventData } from '../domain/derivedWebhookEvent.js';
import type { WebhookEventType } from '../domain/eventTypes.js';

/** One event of the company's activity, as the console shows it. */
export interface ActivityEvent {
  readonly type: WebhookEventType;
  /** When the change happened (ISO 8601 UTC with ms). */
  readonly timestamp: string;
  readonly data: WebhookEventData;
  readonly eventId: string;
  readonly source: EventSource;
}

/** One page of the company's newest events, newest first; `hasMore`: an older page has events. */
export interface ActivityPage {
  readonly events: readonly ActivityEvent[];
  readonly hasMore: boolean;
}

/** What the console's activity asks of the webhook events' read models. */
export interface ActivityQueries {
  readonly recentEvents: (query: {
    readonly companyId: string;
    readonly types: readonly WebhookEventType[];
    readonly page: number;
    readonly limit: number;
  }) => Promise<ActivityPage>;
}

/** The queries over a store's read models, as the feature's index binds them. */
export type ActivityQueriesOf = (readModels: Pick<ReadModelStore, 'collection'>) => ActivityQueries;
