/** Domain errors of the webhook subscription aggregate, as values. */
export type WebhookError =
  | { readonly kind: 'WebhookSubscriptionAlreadyExists'; readonly subscriptionId: string }
  /** No such subscription, or one of another company. */
  | { readonly kind: 'WebhookSubscriptionNotFound'; readonly subscriptionId: string }
  | { readonly kind: 'WebhookAlreadyUnsubscribed'; readonly subscriptionId: string };

export const describeWebhookError = (error: WebhookError): string => {
  switch (error.kind) {
    case 'WebhookSubscriptionAlreadyExists':
      return `Webhook subscription ${error.subscriptionId} already exists`;
    case 'WebhookSubscriptionNotFound':
      return `Webhook subscription ${error.subscriptionId} not found`;
    case 'WebhookAlreadyUnsubscribed':
      return `Webhook subscription ${error.subscriptionId} is already unsubscribed`;
  }
};
