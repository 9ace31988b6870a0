import { expect } from 'chai';
import { WEBHOOK_EVENTS } from '../../../src/features/index.js';
import { webhookEventCatalogue, type WebhookEventSource } from '../../../src/features/webhookEvents/index.js';
import { webhooksFeature } from '../../../src/features/webhooks/index.js';

const source = (types: readonly string[], storedEventTypes: readonly string[]): WebhookEventSource => ({
  types: types.map((type) => ({ type, readPermission: 'contacts:read', tagged: false, recordPath: 'contacts', fields: { personal: [], notPersonal: ['id'] } })),
  storedEventTypes,
  derive: () => [],
  sampleHistory: () => [],
  triggerRecords: { shapes: [], shared: {}, records: {}, alternatives: [] },
  timelines: [],
});

describe('the webhook event catalogue (gathered from the features by the registry)', () => {
  it('holds the specification\'s webhook event types, in its order, then the deletes, restores and erasures, each declared by the feature whose records it carries', () => {
    expect(WEBHOOK_EVENTS.types).to.deep.equal([
      'contact.created',
      'contact.updated',
      'contact.deleted',
      'contact.restored',
      'contact.erased',
      'deal.created',
      'deal.updated',
      'deal.stage_changed',
      'deal.won',
      'deal.lost',
      'deal.deleted',
      'deal.restored',
    ]);
    expect(WEBHOOK_EVENTS.types.map(WEBHOOK_EVENTS.readPermissionOf)).to.deep.equal([
      'contacts:read',
      'contacts:read',
      'contacts:read',
      'contacts:read',
      'contacts:read',
      'deals:read',
      'deals:read',
      'deals:read',
      'deals:read',
      'deals:read',
      'deals:read',
      'deals:read',
    ]);
    expect(WEBHOOK_EVENTS.types.filter(WEBHOOK_EVENTS.isTagged)).to.deep.equal(['contact.created', 'contact.updated']);
    expect([...WEBHOOK_EVENTS.sourceEventTypes]).to.deep.equal([
      'ContactCreated',
      'ContactUpdated',
      'ContactDeleted',
      'ContactRestored',
      'ContactErased',
      'DealCreated',
      'DealStatusChanged',
      'DealDeleted',
      'DealRestored',
    ]);
    // The deletes and restores also take the records' other events out of the recent triggers, and bring them back.
    expect([...WEBHOOK_EVENTS.visibilityEventTypes]).to.deep.equal(['ContactDeleted', 'ContactRestored', 'ContactErased', 'DealDeleted', 'DealRestored']);
    // An erasure takes the person's values out of every type's records that carry them.
    expect([...WEBHOOK_EVENTS.erasureEventTypes]).to.deep.equal(['ContactErased', 'UserErased']);
    expect(WEBHOOK_EVENTS.types.filter(WEBHOOK_EVENTS.isHideable)).to.deep.equal([
      'contact.created',
      'contact.updated',
      'deal.created',
      'deal.updated',
      'deal.stage_changed',
      'deal.won',
      'deal.lost',
    ]);
    expect(WEBHOOK_EVENTS.timelines.map((timeline) => timeline.path)).to.deep.equal(['contacts', 'deals']);
  });

  it('knows no other type, and derives nothing from a stored event no feature maps', () => {
    expect(WEBHOOK_EVENTS.isType('deal.archived')).to.equal(false);
    expect(WEBHOOK_EVENTS.isType(7)).to.equal(false);
    const stored = { id: 'e', stream: 'agent-1', revision: 0, position: '1', type: 'AgentCreated', data: { companyId: 'co-1' }, metadata: { source: 'api' as const, correlationId: 'c' }, recordedAt: '2024-01-01T00:00:00.000Z' };
    expect(WEBHOOK_EVENTS.derive(stored)).to.deep.equal([]);
    expect(WEBHOOK_EVENTS.companyOf(stored)).to.equal(null);
  });

  it('refuses a webhook event type two features declare, and a stored event type two features map', () => {
    expect(() => webhookEventCatalogue([source(['a.created'], ['A']), source(['a.created'], ['B'])])).to.throw('a.created is declared twice');
    expect(() => webhookEventCatalogue([source(['a.created'], ['A']), source(['b.created'], ['A'])])).to.throw('A derives webhook events in two features');
  });

  it('cannot start the webhooks feature with a type a stored subscription may not name: that needs a new version of WebhookSubscribed', () => {
    const catalogue = webhookEventCatalogue([source(['contact.created', 'note.created'], ['NoteCreated'])]);
    expect(() => webhooksFeature(catalogue)).to.throw('webhook event types note.created need a new version of WebhookSubscribed');
    expect(webhooksFeature(WEBHOOK_EVENTS).name).to.equal('webhooks');
  });
});
