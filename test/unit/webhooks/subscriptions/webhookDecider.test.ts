import { expect } from 'chai';
import type { SubscribeWebhook, UnsubscribeWebhook } from '../../../../src/domain/webhooks/webhookCommands.js';
import { webhookDecider } from '../../../../src/domain/webhooks/webhookDecider.js';
import type { WebhookSubscribed, WebhookUnsubscribed } from '../../../../src/domain/webhooks/webhookEvents.js';
import { specFor } from '../../../support/givenWhenThen.js';

const spec = specFor(webhookDecider);
const T0 = '2026-03-01T10:00:00.000Z';
const T1 = '2026-03-01T11:00:00.000Z';
const T2 = '2026-03-01T12:00:00.000Z';

const subscribe = (fields: Partial<SubscribeWebhook> = {}): SubscribeWebhook => ({
  type: 'SubscribeWebhook',
  subscriptionId: 'w-1',
  companyId: 'co-1',
  event: 'deal.won',
  targetUrl: 'https://hooks.example.com/chronicle',
  filters: null,
  at: new Date(T0),
  ...fields,
});

const unsubscribe = (fields: Partial<UnsubscribeWebhook> = {}): UnsubscribeWebhook => ({
  type: 'UnsubscribeWebhook',
  subscriptionId: 'w-1',
  companyId: 'co-1',
  reason: 'client',
  at: new Date(T1),
  ...fields,
});

const subscribed = (data: Partial<WebhookSubscribed['data']> = {}): WebhookSubscribed => ({
  type: 'WebhookSubscribed',
  data: {
    subscriptionId: 'w-1',
    companyId: 'co-1',
    event: 'deal.won',
    targetUrl: 'https://hooks.example.com/chronicle',
    filters: null,
    createdAt: T0,
    ...data,
  },
});

const unsubscribed = (data: Partial<WebhookUnsubscribed['data']> = {}): WebhookUnsubscribed => ({
  type: 'WebhookUnsubscribed',
  data: { subscriptionId: 'w-1', companyId: 'co-1', reason: 'client', at: T1, ...data },
});

describe('webhook subscription decider', () => {
  describe('given no subscription', () => {
    it('subscribes with the event type, target URL and creation time', () =>
      spec.given().when(subscribe()).then(subscribed()));

    it('records tag filters as given', () =>
      spec
        .given()
        .when(subscribe({ event: 'contact.created', filters: { tags: ['vip', 'lead'] } }))
        .then(subscribed({ event: 'contact.created', filters: { tags: ['vip', 'lead'] } })));

    it('refuses to unsubscribe it: not found', () =>
      spec.given().when(unsubscribe()).thenError({ kind: 'WebhookSubscriptionNotFound', subscriptionId: 'w-1' }));
  });

  describe('given an active subscription', () => {
    it('unsubscribes it at the client’s request', () => spec.given(subscribed()).when(unsubscribe()).then(unsubscribed()));

    it('unsubscribes it when the receiver answered 410 Gone', () =>
      spec.given(subscribed()).when(unsubscribe({ reason: 'gone' })).then(unsubscribed({ reason: 'gone' })));

    it('answers another company exactly as for an unknown subscription', () =>
      spec
        .given(subscribed())
        .when(unsubscribe({ companyId: 'co-2' }))
        .thenError({ kind: 'WebhookSubscriptionNotFound', subscriptionId: 'w-1' }));

    it('refuses to subscribe the same id again', () =>
      spec.given(subscribed()).when(subscribe()).thenError({ kind: 'WebhookSubscriptionAlreadyExists', subscriptionId: 'w-1' }));

    it('is active in the folded state', () => {
      const state = [subscribed()].reduce(webhookDecider.evolve, webhookDecider.initialState);
      expect(state).to.deep.equal({
        status: 'active',
        subscription: {
          id: 'w-1',
          companyId: 'co-1',
          event: 'deal.won',
          targetUrl: 'https://hooks.example.com/chronicle',
          filters: null,
          isActive: true,
          createdAt: T0,
        },
      });
    });
  });

  describe('given an unsubscribed subscription', () => {
    it('refuses to unsubscribe it twice', () =>
      spec
        .given(subscribed(), unsubscribed())
        .when(unsubscribe({ at: new Date(T2) }))
        .thenError({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId: 'w-1' }));

    it('still answers another company as not found', () =>
      spec
        .given(subscribed(), unsubscribed())
        .when(unsubscribe({ companyId: 'co-2' }))
        .thenError({ kind: 'WebhookSubscriptionNotFound', subscriptionId: 'w-1' }));

    it('refuses to subscribe the id again (ended for good)', () =>
      spec
        .given(subscribed(), unsubscribed())
        .when(subscribe())
        .thenError({ kind: 'WebhookSubscriptionAlreadyExists', subscriptionId: 'w-1' }));

    it('keeps the subscription, inactive, with the reason and time it ended', () => {
      const state = [subscribed(), unsubscribed({ reason: 'gone' })].reduce(webhookDecider.evolve, webhookDecider.initialState);
      expect(state).to.deep.include({ status: 'unsubscribed', reason: 'gone', at: T1 });
      if (state.status !== 'unsubscribed') return expect.fail();
      expect(state.subscription.isActive).to.equal(false);
    });
  });
});
