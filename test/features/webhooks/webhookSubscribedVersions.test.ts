import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { WebhookSubscribed } from '../../../src/features/webhooks/domain/webhookEvents.js';
import { WebhookSubscribedV1, upcastWebhookSubscribedV1 } from '../../../src/features/webhooks/domain/webhookEventVersions.js';

describe('WebhookSubscribed versions', () => {
  const v1: WebhookSubscribedV1 = {
    type: 'WebhookSubscribed',
    data: {
      subscriptionId: 's-1',
      companyId: 'co-1',
      event: 'deal.won',
      targetUrl: 'https://example.com/hooks',
      filters: {},
      createdAt: '2024-05-01T10:00:00.000Z',
    },
  };

  it('reads version 1 as version 2 unchanged: every type it may name is one of version 2', () => {
    const upcast = upcastWebhookSubscribedV1(v1);
    expect(upcast).to.deep.equal(v1);
    expect(E.isRight(WebhookSubscribed.decode(upcast))).to.equal(true);
  });

  it('names the deletes and restores in version 2 only', () => {
    for (const event of ['contact.deleted', 'contact.restored', 'contact.erased', 'deal.deleted', 'deal.restored']) {
      const data = { ...v1.data, event };
      expect(E.isRight(WebhookSubscribed.decode({ type: 'WebhookSubscribed', data })), event).to.equal(true);
      expect(E.isLeft(WebhookSubscribedV1.decode({ type: 'WebhookSubscribed', data })), event).to.equal(true);
    }
  });
});
