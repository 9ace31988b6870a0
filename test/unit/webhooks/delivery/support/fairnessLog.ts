import { randomUUID } from 'node:crypto';
import type { FannedOutSubscription, NewDelivery, WebhookOutbox } from '../../../../../src/application/ports/WebhookOutbox.js';
import { aSecret } from './events.js';

/**
 * What a fairness scenario writes to the outbox, as the fan-out would: subscriptions
 * of a company to a path of `baseUrl` (each signing secret kept in `secrets`), a
 * `contact.created` row for one, and a batch stored under `checkpoint`, after which
 * the dispatcher is woken. Positions grow with every subscription and row.
 */
export const fairnessLog = (deps: {
  readonly outbox: Pick<WebhookOutbox, 'commitFanOut'>;
  readonly secrets: Map<string, string>;
  readonly baseUrl: string;
  readonly checkpoint: string;
  readonly wake: () => void;
}) => {
  let position = 0;
  return {
    subscription: (companyId: string, path: string): FannedOutSubscription => {
      const sub = {
        subscriptionId: `sub-${randomUUID()}`,
        companyId,
        event: 'contact.created',
        targetUrl: `${deps.baseUrl}${path}`,
        filters: null,
        subscribedAt: String(++position),
        unsubscribedAt: null,
      };
      deps.secrets.set(sub.subscriptionId, aSecret());
      return sub;
    },
    row: (sub: FannedOutSubscription): NewDelivery => ({
      subscriptionId: sub.subscriptionId,
      companyId: sub.companyId,
      eventId: randomUUID(),
      eventType: 'contact.created',
      position: String(++position),
      ordinal: 0,
      occurredAt: new Date().toISOString(),
      envelope: JSON.stringify({ event: 'contact.created', data: {} }),
    }),
    store: async (subscriptions: FannedOutSubscription[], deliveries: NewDelivery[]): Promise<void> => {
      await deps.outbox.commitFanOut(deps.checkpoint, { position: String(position), subscriptions, deliveries }, new Date());
      deps.wake();
    },
  };
};
