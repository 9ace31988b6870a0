import { expect } from 'chai';
import type { DerivedWebhookEvent } from '../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { toEnvelope } from '../../../src/features/webhookEvents/domain/envelope.js';
import { StoredHistory } from './storedHistory.js';
import { deriveWebhookEvents } from '../../support/webhookEvents.js';

const T0 = '2024-05-01T10:00:00.000Z';
const contact = { id: 'c-1', name: 'Ada', email: null, phoneNumber: '+44123', currentCompany: null };

describe('toEnvelope', () => {
  let won: DerivedWebhookEvent;
  beforeEach(() => {
    const history = new StoredHistory();
    history.deal({
      type: 'CreateDeal',
      dealId: 'd-1',
      companyId: 'co-1',
      fields: { title: 'Engines', value: 10 },
      contact,
      assignedTo: null,
      at: new Date(T0),
    });
    const stored = history.deal(
      { type: 'ChangeDealStatus', dealId: 'd-1', companyId: 'co-1', change: { status: 'won' }, contact, at: new Date(T0) },
      'cli',
    );
    won = deriveWebhookEvents(history.one(stored))[0]!;
  });

  it('is exactly the specification\'s envelope: event, timestamp, data, metadata {companyId, eventId, source}', () => {
    expect(toEnvelope(won)).to.deep.equal({
      event: 'deal.won',
      timestamp: T0,
      data: {
        id: 'd-1',
        title: 'Engines',
        value: 10,
        currency: 'EUR',
        stage: null,
        status: 'won',
        wonAt: T0,
        contact: { id: 'c-1', name: 'Ada', email: null },
      },
      metadata: { companyId: 'co-1', eventId: won.eventId, source: 'cli' },
    });
  });

  it('leaves out what only Chronicle uses (position, revision, tags)', () => {
    const envelope = toEnvelope(won);
    expect(Object.keys(envelope)).to.deep.equal(['event', 'timestamp', 'data', 'metadata']);
    expect(Object.keys(envelope.metadata)).to.deep.equal(['companyId', 'eventId', 'source']);
  });

  it('serialises to the same bytes on every call (what is signed is what is resent)', () => {
    expect(JSON.stringify(toEnvelope(won))).to.equal(JSON.stringify(toEnvelope({ ...won })));
  });
});
