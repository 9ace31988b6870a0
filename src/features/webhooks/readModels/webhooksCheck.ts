import { webhookAggregate } from '../application/webhookAggregate.js';
import type { WebhookState } from '../domain/webhookDecider.js';
import { toSubscriptionView } from '../domain/webhookSubscription.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
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
