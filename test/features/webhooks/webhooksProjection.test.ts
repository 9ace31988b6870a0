import { expect } from 'chai';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { UndecodableEventError } from '../../../src/application/versioning/UndecodableEventError.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { DocumentCollection } from '../../../src/application/ports/ReadModelStore.js';
import type { StoredWebhookEventType as WebhookEventType } from '../../../src/features/webhooks/domain/webhookEvents.js';
import type { WebhookEvent } from '../../../src/features/webhooks/domain/webhookEvents.js';
import { activeSubscriptions, activeSubscriptionsQuery } from '../../../src/features/webhooks/readModels/webhookQueries.js';
import { subscriptionOf, webhooksProjection, type WebhookDoc } from '../../../src/features/webhooks/readModels/webhooksProjection.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

describe('webhooks projection', () => {
  let webhooks: DocumentCollection<WebhookDoc>;
  let position: number;
  const log: RecordedEvent[] = [];

  /** Records an event at the next log position and applies it, as the runner would. */
  const apply = async (event: WebhookEvent): Promise<RecordedEvent> => {
    position += 1;
    const recorded: RecordedEvent = {
      id: `e-${position}`,
      stream: `webhook-${event.data.subscriptionId}`,
      revision: event.type === 'WebhookSubscribed' ? 0 : 1,
      position: String(position),
      type: event.type,
      data: event.data,
      metadata: { source: 'api', correlationId: 'r', companyId: event.data.companyId },
      recordedAt: iso(position),
    };
    log.push(recorded);
    await webhooks.apply([recorded]);
    return recorded;
  };
  const subscribe = (id: string, event: WebhookEventType, companyId = 'co-1', filters: { tags?: string[] } | null = null) =>
    apply({
      type: 'WebhookSubscribed',
      data: { subscriptionId: id, companyId, event, targetUrl: `https://hooks.example.com/${id}`, filters, createdAt: iso(position) },
    });
  const unsubscribe = (id: string, companyId = 'co-1', reason: 'client' | 'gone' = 'client') =>
    apply({ type: 'WebhookUnsubscribed', data: { subscriptionId: id, companyId, reason, at: iso(position) } });
  const ids = (docs: readonly WebhookDoc[]) => docs.map((doc) => doc.id);

  beforeEach(() => {
    webhooks = new MemoryReadModelStore().collection(webhooksProjection);
    position = 0;
    log.length = 0;
  });

  it('keeps a subscription under its company, with the position of its event and no secret', async () => {
    const event = await subscribe('w-1', 'contact.created', 'co-1', { tags: ['vip'] });
    expect(await webhooks.get('co-1', 'w-1')).to.deep.equal({
      id: 'w-1',
      companyId: 'co-1',
      position: event.position,
      subscription: {
        id: 'w-1',
        event: 'contact.created',
        targetUrl: 'https://hooks.example.com/w-1',
        filters: { tags: ['vip'] },
        isActive: true,
        createdAt: iso(0),
        deliveryStatus: 'active',
        failingSince: null,
      },
    });
    expect(await webhooks.get('co-2', 'w-1')).to.equal(null);
  });

  it('keeps an imported subscription, ended by the import, inactive: left out of the active ones', async () => {
    await subscribe('w-1', 'contact.created');
    await subscribe('w-2', 'contact.created');
    const ended = await apply({ type: 'WebhookEndedByImport', data: { subscriptionId: 'w-1', companyId: 'co-1', at: iso(5) } });
    const doc = (await webhooks.get('co-1', 'w-1'))!;
    expect([doc.position, subscriptionOf(doc).isActive]).to.deep.equal([ended.position, false]);
    expect(ids(await activeSubscriptions(webhooks, 'co-1'))).to.deep.equal(['w-2']);
  });

  it('follows the delivery status: paused, disabled (since the first failure), enabled again; still listed as active', async () => {
    await subscribe('w-1', 'deal.won');
    const status = async () => {
      const { deliveryStatus, failingSince, isActive } = subscriptionOf((await webhooks.get('co-1', 'w-1'))!);
      return { deliveryStatus, failingSince, isActive };
    };
    await apply({ type: 'WebhookPaused', data: { subscriptionId: 'w-1', companyId: 'co-1', failingSince: iso(1), at: iso(2) } });
    expect(await status()).to.deep.equal({ deliveryStatus: 'paused', failingSince: iso(1), isActive: true });
    await apply({ type: 'WebhookDisabled', data: { subscriptionId: 'w-1', companyId: 'co-1', failingSince: iso(1), at: iso(3) } });
    expect(await status()).to.deep.equal({ deliveryStatus: 'disabled', failingSince: iso(1), isActive: true });
    expect(ids(await activeSubscriptions(webhooks, 'co-1'))).to.deep.equal(['w-1']);
    const enabled = await apply({ type: 'WebhookEnabled', data: { subscriptionId: 'w-1', companyId: 'co-1', reason: 'client', at: iso(4) } });
    expect(await status()).to.deep.equal({ deliveryStatus: 'active', failingSince: null, isActive: true });
    expect((await webhooks.get('co-1', 'w-1'))?.position).to.equal(enabled.position);
  });

  it('reads a document projected before delivery statuses existed as active', () => {
    const older = { id: 'w-0', companyId: 'co-1', position: '1', subscription: { id: 'w-0', event: 'deal.won', targetUrl: 'https://x/', filters: null, isActive: true, createdAt: iso(0) } };
    expect(subscriptionOf(older as unknown as WebhookDoc)).to.include({ deliveryStatus: 'active', failingSince: null });
  });

  it('keeps an unsubscribed subscription, inactive, and changes nothing when events are applied again', async () => {
    await subscribe('w-1', 'deal.won');
    const ended = await unsubscribe('w-1', 'co-1', 'gone');
    const doc = await webhooks.get('co-1', 'w-1');
    expect(doc?.position).to.equal(ended.position);
    expect(subscriptionOf(doc!).isActive).to.equal(false);
    await webhooks.apply(log);
    expect(await webhooks.get('co-1', 'w-1')).to.deep.equal(doc);
  });

  it('creates nothing from an unsubscription it never saw the subscription of', async () => {
    await unsubscribe('w-9');
    expect(await webhooks.get('co-1', 'w-9')).to.equal(null);
  });

  it('lists the active subscriptions of a company, oldest first, optionally for one event type', async () => {
    await subscribe('w-1', 'deal.won');
    await subscribe('w-2', 'contact.created');
    await subscribe('w-3', 'deal.won', 'co-2');
    await subscribe('w-4', 'deal.won');
    await subscribe('w-5', 'deal.won');
    await unsubscribe('w-4');
    expect(ids(await activeSubscriptions(webhooks, 'co-1'))).to.deep.equal(['w-1', 'w-2', 'w-5']);
    expect(ids(await activeSubscriptions(webhooks, 'co-1', 'deal.won'))).to.deep.equal(['w-1', 'w-5']);
    expect(ids(await activeSubscriptions(webhooks, 'co-1', 'deal.lost'))).to.deep.equal([]);
    expect(ids(await activeSubscriptions(webhooks, 'co-2', 'deal.won'))).to.deep.equal(['w-3']);
    const page = await webhooks.list(activeSubscriptionsQuery({ companyId: 'co-1', event: 'deal.won', page: 2, limit: 1 }));
    expect({ ids: ids(page.items), total: page.total }).to.deep.equal({ ids: ['w-5'], total: 2 });
  });

  it('collects every active subscription over several pages of the read model', async () => {
    for (let i = 0; i < 450; i++) await subscribe(`w-${String(i).padStart(3, '0')}`, 'contact.updated');
    const all = await activeSubscriptions(webhooks, 'co-1', 'contact.updated');
    expect(all).to.have.length(450);
    expect(all[449]?.id).to.equal('w-449');
  });

  it('stops with an error naming a stored event its codec refuses', async () => {
    const bad: RecordedEvent = {
      id: 'e-bad',
      stream: 'webhook-w-1',
      revision: 0,
      position: '1',
      type: 'WebhookSubscribed',
      data: { subscriptionId: 'w-1', companyId: 'co-1', event: 'deal.archived', targetUrl: 'x', filters: null, createdAt: iso(0) },
      metadata: { source: 'api', correlationId: 'r', companyId: 'co-1' },
      recordedAt: iso(0),
    };
    try {
      await webhooks.apply([bad]);
      expect.fail('applied an undecodable event');
    } catch (error) {
      expect(error).to.be.instanceOf(UndecodableEventError);
      expect((error as Error).message).to.contain('e-bad');
    }
  });
});
