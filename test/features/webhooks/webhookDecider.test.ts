import { expect } from 'chai';
import type {
  DisableWebhook,
  EnableWebhook,
  EndImportedWebhook,
  PauseWebhook,
  RotateWebhookSecret,
  SubscribeWebhook,
  UnsubscribeWebhook,
} from '../../../src/features/webhooks/domain/webhookCommands.js';
import { webhookDecider } from '../../../src/features/webhooks/domain/webhookDecider.js';
import type {
  WebhookDisabled,
  WebhookEndedByImport,
  WebhookEnabled,
  WebhookPaused,
  WebhookSecretRotated,
  WebhookSubscribed,
  WebhookUnsubscribed,
} from '../../../src/features/webhooks/domain/webhookEvents.js';
import { specFor } from '../../support/givenWhenThen.js';

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

const pause = (fields: Partial<PauseWebhook> = {}): PauseWebhook => ({
  type: 'PauseWebhook',
  subscriptionId: 'w-1',
  companyId: 'co-1',
  failingSince: new Date(T0),
  at: new Date(T1),
  ...fields,
});
const disable = (fields: Partial<DisableWebhook> = {}): DisableWebhook => ({
  type: 'DisableWebhook',
  subscriptionId: 'w-1',
  companyId: 'co-1',
  failingSince: new Date(T0),
  at: new Date(T2),
  ...fields,
});
const enable = (fields: Partial<EnableWebhook> = {}): EnableWebhook => ({
  type: 'EnableWebhook',
  subscriptionId: 'w-1',
  companyId: 'co-1',
  reason: 'client',
  at: new Date(T2),
  ...fields,
});
const paused = (): WebhookPaused => ({ type: 'WebhookPaused', data: { subscriptionId: 'w-1', companyId: 'co-1', failingSince: T0, at: T1 } });
const disabled = (): WebhookDisabled => ({ type: 'WebhookDisabled', data: { subscriptionId: 'w-1', companyId: 'co-1', failingSince: T0, at: T2 } });
const enabled = (reason: 'client' | 'recovered' = 'client'): WebhookEnabled => ({
  type: 'WebhookEnabled',
  data: { subscriptionId: 'w-1', companyId: 'co-1', reason, at: T2 },
});

const endImported = (fields: Partial<EndImportedWebhook> = {}): EndImportedWebhook => ({
  type: 'EndImportedWebhook',
  subscriptionId: 'w-1',
  companyId: 'co-1',
  at: new Date(T2),
  ...fields,
});

const endedByImport = (): WebhookEndedByImport => ({ type: 'WebhookEndedByImport', data: { subscriptionId: 'w-1', companyId: 'co-1', at: T2 } });

describe('webhook subscription decider', () => {
  describe('given a subscription that came in with an imported company', () => {
    it('ends an active one: it has no secret here', () => spec.given(subscribed()).when(endImported()).then(endedByImport()));

    it('ends a paused or disabled one too', () => spec.given(subscribed(), paused()).when(endImported()).then(endedByImport()));

    it('changes nothing for one that had ended before the export', () => spec.given(subscribed(), unsubscribed()).when(endImported()).then());

    it('refuses an unknown one, and another company\'s, as not found', () => {
      spec.given().when(endImported()).thenError({ kind: 'WebhookSubscriptionNotFound', subscriptionId: 'w-1' });
      spec.given(subscribed()).when(endImported({ companyId: 'co-2' })).thenError({ kind: 'WebhookSubscriptionNotFound', subscriptionId: 'w-1' });
    });

    it('is ended for good in the folded state, inactive, its reason the import; it cannot be unsubscribed or enabled again', () => {
      const state = [subscribed(), endedByImport()].reduce(webhookDecider.evolve, webhookDecider.initialState);
      expect(state).to.deep.include({ status: 'unsubscribed', reason: 'imported', at: T2 });
      if (state.status !== 'unsubscribed') return expect.fail();
      expect(state.subscription.isActive).to.equal(false);
      spec.given(subscribed(), endedByImport()).when(unsubscribe()).thenError({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId: 'w-1' });
      spec.given(subscribed(), endedByImport()).when(enable()).thenError({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId: 'w-1' });
    });
  });

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
          deliveryStatus: 'active',
          failingSince: null,
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

  describe('given an active subscription whose deliveries go on', () => {
    it('pauses it when the dispatcher says its receiver keeps failing, since when', () => spec.given(subscribed()).when(pause()).then(paused()));

    it('disables it straight away when the dispatcher says so', () => spec.given(subscribed()).when(disable()).then(disabled()));

    it('enabling it changes nothing (the request is done already)', () => spec.given(subscribed()).when(enable()).then());

    it('answers another company’s enable as for an unknown subscription', () =>
      spec.given(subscribed()).when(enable({ companyId: 'co-2' })).thenError({ kind: 'WebhookSubscriptionNotFound', subscriptionId: 'w-1' }));
  });

  describe('given a paused subscription', () => {
    it('pausing it again changes nothing', () => spec.given(subscribed(), paused()).when(pause({ at: new Date(T2) })).then());

    it('disables it after the documented time', () => spec.given(subscribed(), paused()).when(disable()).then(disabled()));

    it('resumes it when its receiver answers again', () =>
      spec.given(subscribed(), paused()).when(enable({ reason: 'recovered' })).then(enabled('recovered')));

    it('enables it at the company’s request', () => spec.given(subscribed(), paused()).when(enable()).then(enabled()));

    it('is paused in the folded state, since its first failure, still listed as active', () => {
      const state = [subscribed(), paused()].reduce(webhookDecider.evolve, webhookDecider.initialState);
      if (state.status !== 'active') return expect.fail(state.status);
      expect(state.subscription).to.include({ deliveryStatus: 'paused', failingSince: T0, isActive: true });
    });

    it('can still be unsubscribed', () => spec.given(subscribed(), paused()).when(unsubscribe({ at: new Date(T2) })).then(unsubscribed({ at: T2 })));
  });

  describe('given a disabled subscription', () => {
    it('pausing it changes nothing (it stays disabled)', () => spec.given(subscribed(), disabled()).when(pause()).then());

    it('disabling it again changes nothing', () => spec.given(subscribed(), disabled()).when(disable()).then());

    it('enables it at the company’s request, and it is active again in the folded state', () => {
      spec.given(subscribed(), disabled()).when(enable()).then(enabled());
      const state = [subscribed(), disabled(), enabled()].reduce(webhookDecider.evolve, webhookDecider.initialState);
      if (state.status !== 'active') return expect.fail(state.status);
      expect(state.subscription).to.include({ deliveryStatus: 'active', failingSince: null });
    });
  });

  describe('given an unsubscribed subscription, its deliveries', () => {
    it('cannot be paused, disabled or enabled any more', () => {
      const given = spec.given(subscribed(), unsubscribed());
      given.when(pause()).thenError({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId: 'w-1' });
      given.when(disable()).thenError({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId: 'w-1' });
      given.when(enable()).thenError({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId: 'w-1' });
    });
  });

  describe('rotating the signing secret', () => {
    const rotate = (fields: Partial<RotateWebhookSecret> = {}): RotateWebhookSecret => ({
      type: 'RotateWebhookSecret',
      subscriptionId: 'w-1',
      companyId: 'co-1',
      overlapHours: 24,
      previousSecretExpiresAt: new Date('2026-03-02T11:00:00.000Z'),
      at: new Date(T1),
      ...fields,
    });
    const rotated = (data: Partial<WebhookSecretRotated['data']> = {}): WebhookSecretRotated => ({
      type: 'WebhookSecretRotated',
      data: { subscriptionId: 'w-1', companyId: 'co-1', overlapHours: 24, previousSecretExpiresAt: '2026-03-02T11:00:00.000Z', at: T1, ...data },
    });

    it('records the rotation of an active subscription, with no secret', () => spec.given(subscribed()).when(rotate()).then(rotated()));

    it('records it for a paused or disabled one too (a leaked secret may be why it fails)', () => {
      spec.given(subscribed(), paused()).when(rotate()).then(rotated());
      spec.given(subscribed(), disabled()).when(rotate({ overlapHours: 0, previousSecretExpiresAt: new Date(T1) })).then(rotated({ overlapHours: 0, previousSecretExpiresAt: T1 }));
    });

    it('may rotate again during an overlap', () => spec.given(subscribed(), rotated()).when(rotate({ at: new Date(T2) })).then(rotated({ at: T2 })));

    it('refuses an unknown subscription, another company’s, and an ended one', () => {
      spec.given().when(rotate()).thenError({ kind: 'WebhookSubscriptionNotFound', subscriptionId: 'w-1' });
      spec.given(subscribed()).when(rotate({ companyId: 'co-2' })).thenError({ kind: 'WebhookSubscriptionNotFound', subscriptionId: 'w-1' });
      spec.given(subscribed(), unsubscribed()).when(rotate()).thenError({ kind: 'WebhookAlreadyUnsubscribed', subscriptionId: 'w-1' });
    });

    it('leaves the folded subscription as it was', () => {
      const before = [subscribed(), paused()].reduce(webhookDecider.evolve, webhookDecider.initialState);
      expect(webhookDecider.evolve(before, rotated())).to.deep.equal(before);
    });
  });
});
