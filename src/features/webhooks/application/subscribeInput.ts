/** What a way in checks of a subscription before it subscribes it: the domain's validation of the subscribe fields. */
export { validateSubscribe, type SubscribeFields } from '../domain/subscriptionInput.js';
