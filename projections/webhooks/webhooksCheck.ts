import { webhookAggregate } from '../../src/application/aggregates/webhookAggregate.js';
import type { WebhookState } from '../../src/domain/webhooks/webhookDecider.js';
import { toSubscriptionView } from '../../src/domain/webhooks/webhookSubscription.js';
import { check, expectedFrom, observedAt } from '../verifyCheck.js';
import { webhooksProjection, type WebhookDoc } from './webhooksProjection.js';

/** Every subscription's stream has its document, active or ended as its stream says. */
export const webhooksCheck = check<WebhookDoc>({
  projection: webhooksProjection,
  folds: [webhookAggregate.fold],
  expected: (folds) =>
    expectedFrom<WebhookState>(folds, webhookAggregate.fold, (state) => {
      if (state.status === 'none') return null;
      const { subscription } = state;
      return { companyId: subscription.companyId, id: subscription.id, fields: { companyId: subscription.companyId, ...toSubscriptionView(subscription) } };
    }),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, ...doc.subscription }),
});
