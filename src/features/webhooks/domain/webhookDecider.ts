import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type {
  DisableWebhook,
  EnableWebhook,
  EndImportedWebhook,
  PauseWebhook,
  RotateWebhookSecret,
  SubscribeWebhook,
  UnsubscribeWebhook,
  WebhookCommand,
} from './webhookCommands.js';
import type { WebhookError } from './webhookErrors.js';
import type { UnsubscribeReason, WebhookEvent } from './webhookEvents.js';
import { subscriptionFromSubscribed, type WebhookSubscriptionRecord } from './webhookSubscription.js';

/** No subscription yet; an active one (whose deliveries may be paused or disabled); or one that ended (for good). */
export type WebhookState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly subscription: WebhookSubscriptionRecord }
  | {
      readonly status: 'unsubscribed';
      readonly subscription: WebhookSubscriptionRecord;
      /** `imported`: it came in with an imported company, without its secret (`WebhookEndedByImport`). */
      readonly reason: UnsubscribeReason | 'imported';
      readonly at: string;
    };

type Decision = E.Either<WebhookError, readonly WebhookEvent[]>;

const subscribe = (command: SubscribeWebhook, state: WebhookState): Decision => {
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

/**
 * The subscription a command of `companyId` may change: another company's is
 * answered exactly as an unknown one, an ended one is refused.
 */
const activeOf = (
  command: { readonly subscriptionId: string; readonly companyId: string },
  state: WebhookState,
): E.Either<WebhookError, WebhookSubscriptionRecord> => {
  const { subscriptionId } = command;
  if (state.status === 'none' || state.subscription.companyId !== command.companyId) {
    return E.left({ kind: 'WebhookSubscriptionNotFound', subscriptionId });
  }
  if (state.status === 'unsubscribed') return E.left({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId });
  return E.right(state.subscription);
};

const unsubscribe = (command: UnsubscribeWebhook, state: WebhookState): Decision =>
  E.map((): readonly WebhookEvent[] => [
    {
      type: 'WebhookUnsubscribed',
      data: { subscriptionId: command.subscriptionId, companyId: command.companyId, reason: command.reason, at: toIsoTimestamp(command.at) },
    },
  ])(activeOf(command, state));

/** An imported subscription that has ended already (ended before the export) changes nothing. */
const endImported = (command: EndImportedWebhook, state: WebhookState): Decision => {
  if (state.status === 'unsubscribed' && state.subscription.companyId === command.companyId) return E.right([]);
  return E.map((): readonly WebhookEvent[] => [
    { type: 'WebhookEndedByImport', data: { subscriptionId: command.subscriptionId, companyId: command.companyId, at: toIsoTimestamp(command.at) } },
  ])(activeOf(command, state));
};

/** Pausing a paused or disabled subscription changes nothing (the dispatcher may decide it twice). */
const pause = (command: PauseWebhook, state: WebhookState): Decision =>
  E.map((subscription: WebhookSubscriptionRecord): readonly WebhookEvent[] =>
    subscription.deliveryStatus !== 'active'
      ? []
      : [
          {
            type: 'WebhookPaused',
            data: {
              subscriptionId: command.subscriptionId,
              companyId: command.companyId,
              failingSince: toIsoTimestamp(command.failingSince),
              at: toIsoTimestamp(command.at),
            },
          },
        ],
  )(activeOf(command, state));

const disable = (command: DisableWebhook, state: WebhookState): Decision =>
  E.map((subscription: WebhookSubscriptionRecord): readonly WebhookEvent[] =>
    subscription.deliveryStatus === 'disabled'
      ? []
      : [
          {
            type: 'WebhookDisabled',
            data: {
              subscriptionId: command.subscriptionId,
              companyId: command.companyId,
              failingSince: toIsoTimestamp(command.failingSince),
              at: toIsoTimestamp(command.at),
            },
          },
        ],
  )(activeOf(command, state));

/** Enabling an active subscription changes nothing: the request is answered as done. */
const enable = (command: EnableWebhook, state: WebhookState): Decision =>
  E.map((subscription: WebhookSubscriptionRecord): readonly WebhookEvent[] =>
    subscription.deliveryStatus === 'active'
      ? []
      : [
          {
            type: 'WebhookEnabled',
            data: { subscriptionId: command.subscriptionId, companyId: command.companyId, reason: command.reason, at: toIsoTimestamp(command.at) },
          },
        ],
  )(activeOf(command, state));

/** A rotation of an active subscription's secret (a paused or disabled one too: its receiver may be failing on a leaked secret). */
const rotate = (command: RotateWebhookSecret, state: WebhookState): Decision =>
  E.map((): readonly WebhookEvent[] => [
    {
      type: 'WebhookSecretRotated',
      data: {
        subscriptionId: command.subscriptionId,
        companyId: command.companyId,
        overlapHours: command.overlapHours,
        previousSecretExpiresAt: toIsoTimestamp(command.previousSecretExpiresAt),
        at: toIsoTimestamp(command.at),
      },
    },
  ])(activeOf(command, state));

/** The active subscription changed by `change`; any other state is left as it is. */
const whileActive = (state: WebhookState, change: Partial<WebhookSubscriptionRecord>): WebhookState =>
  state.status === 'active' ? { status: 'active', subscription: { ...state.subscription, ...change } } : state;

/** The webhook subscription aggregate (stream `webhook-<id>`). */
export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState, WebhookError> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'SubscribeWebhook':
        return subscribe(command, state);
      case 'UnsubscribeWebhook':
        return unsubscribe(command, state);
      case 'PauseWebhook':
        return pause(command, state);
      case 'DisableWebhook':
        return disable(command, state);
      case 'EnableWebhook':
        return enable(command, state);
      case 'EndImportedWebhook':
        return endImported(command, state);
      case 'RotateWebhookSecret':
        return rotate(command, state);
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
      case 'WebhookEndedByImport':
        return state.status === 'active'
          ? { status: 'unsubscribed', subscription: { ...state.subscription, isActive: false }, reason: 'imported', at: event.data.at }
          : state;
      case 'WebhookPaused':
        return whileActive(state, { deliveryStatus: 'paused', failingSince: event.data.failingSince });
      case 'WebhookDisabled':
        return whileActive(state, { deliveryStatus: 'disabled', failingSince: event.data.failingSince });
      case 'WebhookEnabled':
        return whileActive(state, { deliveryStatus: 'active', failingSince: null });
      case 'WebhookSecretRotated':
        // The secrets are in the secret store; the subscription itself is as it was.
        return state;
      default:
        return assertNever(event);
    }
  },
};
