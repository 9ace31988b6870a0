import type { StoredWebhookEventType } from './webhookEvents.js';
import type { EnableReason, UnsubscribeReason } from './webhookEvents.js';
import type { WebhookFilters } from './webhookFilters.js';

/**
 * Subscribe `targetUrl` (already checked by the target-URL guard) to `event`,
 * under a server-assigned id. `at` becomes createdAt.
 */
export interface SubscribeWebhook {
  readonly type: 'SubscribeWebhook';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly event: StoredWebhookEventType;
  readonly targetUrl: string;
  readonly filters: WebhookFilters;
  readonly at: Date;
}

/** End a subscription of `companyId` (another company's subscription is not found). */
export interface UnsubscribeWebhook {
  readonly type: 'UnsubscribeWebhook';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly reason: UnsubscribeReason;
  readonly at: Date;
}

/** Pause deliveries to a receiver that keeps failing (the dispatcher's decision). */
export interface PauseWebhook {
  readonly type: 'PauseWebhook';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly failingSince: Date;
  readonly at: Date;
}

/** Stop trying a receiver that failed for the documented time (the dispatcher's decision). */
export interface DisableWebhook {
  readonly type: 'DisableWebhook';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly failingSince: Date;
  readonly at: Date;
}

/** Let deliveries to a paused or disabled subscription go on. */
export interface EnableWebhook {
  readonly type: 'EnableWebhook';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly reason: EnableReason;
  readonly at: Date;
}

/** End a subscription that came in with an imported company, without its secret (the import's decision). */
export interface EndImportedWebhook {
  readonly type: 'EndImportedWebhook';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly at: Date;
}

/** Rotate the signing secret of an active subscription of `companyId`, the previous one signing until `previousSecretExpiresAt`. */
export interface RotateWebhookSecret {
  readonly type: 'RotateWebhookSecret';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly overlapHours: number;
  readonly previousSecretExpiresAt: Date;
  readonly at: Date;
}

export type WebhookCommand =
  | SubscribeWebhook
  | UnsubscribeWebhook
  | PauseWebhook
  | DisableWebhook
  | EnableWebhook
  | EndImportedWebhook
  | RotateWebhookSecret;
