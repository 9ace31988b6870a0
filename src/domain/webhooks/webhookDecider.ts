import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../shared/Clock.js';
import { assertNever, type Decider } from '../../shared/Decider.js';
import type { SubscribeWebhook, UnsubscribeWebhook, WebhookCommand } from './webhookCommands.js';
import type { WebhookError } from './webhookErrors.js';
import type { UnsubscribeReason, WebhookEvent } from './webhookEvents.js';
import { subscriptionFromSubscribed, type WebhookSubscriptionRecord } from './webhookSubscription.js';

/** No subscription yet; an active one; or one that ended (for good). */
export type WebhookState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly subscription: WebhookSubscriptionRecord }
  | {
      readonly status: 'unsubscribed';
      readonly subscription: WebhookSubscriptionRecord;
      readonly reason: UnsubscribeReason;
      readonly at: string;
    };

const subscribe = (command: SubscribeWebhook, state: WebhookState): E.Either<WebhookError, readonly WebhookEvent[]> => {
  if (state.status !== 'none') return E.left({ kind: 'WebhookSubscriptionAlreadyExists', subscriptionId: command.subscriptionId });
  return E.right([
    {
      type: 'WebhookSubscribed',
      data: {
        subscriptionId: command.subscriptionId,
        companyId: command.companyId,
        event: command.event,
        targetUrl: command.targetUrl,
        filters: command.filters,
        createdAt: toIsoTimestamp(command.at),
      },
    },
  ]);
};

const unsubscribe = (command: UnsubscribeWebhook, state: WebhookState): E.Either<WebhookError, readonly WebhookEvent[]> => {
  const { subscriptionId } = command;
  // Another company's subscription is answered exactly as an unknown one.
  if (state.status === 'none' || state.subscription.companyId !== command.companyId) {
    return E.left({ kind: 'WebhookSubscriptionNotFound', subscriptionId });
  }
  if (state.status === 'unsubscribed') return E.left({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId });
  return E.right([
    {
      type: 'WebhookUnsubscribed',
      data: { subscriptionId, companyId: command.companyId, reason: command.reason, at: toIsoTimestamp(command.at) },
    },
  ]);
};

/** The webhook subscription aggregate (stream `webhook-<id>`). */
export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState, WebhookError> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'SubscribeWebhook':
        return subscribe(command, state);
      case 'UnsubscribeWebhook':
        return unsubscribe(command, state);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookSubscribed':
        return { status: 'active', subscription: subscriptionFromSubscribed(event) };
      case 'WebhookUnsubscribed':
        return state.status === 'active'
          ? {
              status: 'unsubscribed',
              subscription: { ...state.subscription, isActive: false },
              reason: event.data.reason,
              at: event.data.at,
            }
          : state;
      default:
        return assertNever(event);
    }
  },
};
