import { randomUUID } from 'node:crypto';
import type { EventToAppend } from '../../../../../src/application/ports/EventStore.js';
import type { WebhookEventType } from '../../../../../src/features/webhookEvents/domain/eventTypes.js';
import type { WebhookFilters } from '../../../../../src/features/webhooks/domain/webhookFilters.js';

const metadata = (companyId: string) => ({ source: 'api' as const, correlationId: randomUUID(), companyId });

/** A stored ContactCreated of a company (derives `contact.created`). */
export const contactCreated = (companyId: string, name: string, tags: string[] = []): EventToAppend => ({
  id: randomUUID(),
  type: 'ContactCreated',
  data: {
    contactId: randomUUID(),
    companyId,
    name,
    phoneNumber: `+4420${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
    tags,
    createdAt: new Date().toISOString(),
  },
  metadata: metadata(companyId),
});

export const webhookSubscribed = (
  subscriptionId: string,
  companyId: string,
  targetUrl: string,
  event: WebhookEventType = 'contact.created',
  filters: WebhookFilters = null,
): EventToAppend => ({
  id: randomUUID(),
  type: 'WebhookSubscribed',
  data: { subscriptionId, companyId, event, targetUrl, filters, createdAt: new Date().toISOString() },
  metadata: metadata(companyId),
});

export const webhookUnsubscribed = (subscriptionId: string, companyId: string, reason: 'client' | 'gone' = 'client'): EventToAppend => ({
  id: randomUUID(),
  type: 'WebhookUnsubscribed',
  data: { subscriptionId, companyId, reason, at: new Date().toISOString() },
  metadata: metadata(companyId),
});

/** A `whsec_` secret (Standard Webhooks format). */
export const aSecret = (): string => `whsec_${Buffer.from(randomUUID().replace(/-/g, ''), 'hex').toString('base64')}`;
