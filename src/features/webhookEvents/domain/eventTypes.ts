import * as t from 'io-ts';
import type { Permission } from '../../../shared/permissions.js';

/** The webhook event types of the specification, in its order. */
const EVENT_TYPES = {
  'contact.created': null,
  'contact.updated': null,
  'deal.created': null,
  'deal.updated': null,
  'deal.stage_changed': null,
  'deal.won': null,
  'deal.lost': null,
};

/** A webhook event type (`contact.created`, `deal.won`, …): what a subscription listens to. */
export const WebhookEventType = t.keyof(EVENT_TYPES, 'WebhookEventType');
export type WebhookEventType = t.TypeOf<typeof WebhookEventType>;

/** Every webhook event type, in the specification's order. */
export const WEBHOOK_EVENT_TYPES = Object.keys(EVENT_TYPES) as readonly WebhookEventType[];

/**
 * The permission needed to subscribe to an event type besides `webhooks:write`:
 * deliveries carry the record, so a key that may not read contacts must not
 * receive them by webhook either.
 */
const READ_PERMISSION: Readonly<Record<WebhookEventType, Permission>> = {
  'contact.created': 'contacts:read',
  'contact.updated': 'contacts:read',
  'deal.created': 'deals:read',
  'deal.updated': 'deals:read',
  'deal.stage_changed': 'deals:read',
  'deal.won': 'deals:read',
  'deal.lost': 'deals:read',
};

export const readPermissionFor = (event: WebhookEventType): Permission => READ_PERMISSION[event];

/** Whether an event type carries a contact (so a subscription's tag filters can apply to it). */
export const isContactEventType = (event: WebhookEventType): boolean => READ_PERMISSION[event] === 'contacts:read';
