/**
 * A webhook event type (`contact.created`, `deal.won`, …): what a subscription
 * listens to. The features whose records webhooks carry declare theirs
 * (`WebhookEventSource`); the catalogue the registry gathers from them is the
 * list, in the specification's order.
 */
export type WebhookEventType = string;
