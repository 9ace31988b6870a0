import { expect } from 'chai';
import { ContactView, type Contact } from '../../../src/features/contacts/domain/contactView.js';
import { DealView, type Deal } from '../../../src/features/deals/domain/dealView.js';
import { DealWonData } from '../../../src/features/deals/domain/dealWonData.js';
import * as t from 'io-ts';
import { WEBHOOK_EVENT_TYPES, deriveSampleData } from '../../support/webhookEvents.js';

/** What a delete's, a restore's and an erasure's events carry: the record's id and the time, nothing else. */
const Deleted = t.type({ id: t.string, deletedAt: t.string });
const Restored = t.type({ id: t.string, restoredAt: t.string });
const Erased = t.type({ id: t.string, erasedAt: t.string });
const codecOf = (type: string) => {
  if (type.endsWith('.deleted')) return Deleted;
  if (type.endsWith('.restored')) return Restored;
  if (type.endsWith('.erased')) return Erased;
  return type.startsWith('contact.') ? ContactView : type === 'deal.won' ? DealWonData : DealView;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('deriveSampleData', () => {
  it('gives every event type an example of exactly its record shape', () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const sample = deriveSampleData(type);
      const codec = codecOf(type);
      expect(codec.is(sample), type).to.equal(true);
      expect(Object.keys(sample), type).to.have.members(Object.keys(codec.props));
    }
  });

  it('uses plainly fake values, UUID ids, and matches each type\'s meaning', () => {
    const created = deriveSampleData('contact.created') as Contact;
    expect(created.id).to.match(UUID);
    expect(created.email).to.match(/@example\.com$/);
    const updated = deriveSampleData('contact.updated') as Contact;
    expect(updated.updatedAt > updated.createdAt).to.equal(true);
    expect(deriveSampleData('deal.created')).to.include({ status: 'open' });
    expect(deriveSampleData('deal.won')).to.include({ status: 'won' });
    expect(deriveSampleData('deal.lost')).to.include({ status: 'lost' });
    const moved = deriveSampleData('deal.stage_changed') as Deal;
    expect(moved.stage).to.equal('Negotiation');
    expect(moved.id).to.match(UUID);
    expect(deriveSampleData('contact.deleted')).to.deep.equal({ id: created.id, deletedAt: '2024-01-17T08:00:00.000Z' });
    expect(deriveSampleData('contact.restored')).to.deep.equal({ id: created.id, restoredAt: '2024-01-17T08:15:00.000Z' });
    // Another made-up contact: the sample one stays, as the example deals' contact.
    const erased = deriveSampleData('contact.erased') as { id: string; erasedAt: string };
    expect(erased.id).to.match(UUID).and.not.equal(created.id);
    expect(erased.erasedAt).to.equal('2024-01-18T11:00:00.000Z');
    expect(deriveSampleData('deal.deleted')).to.include({ id: moved.id });
    expect(deriveSampleData('deal.restored')).to.include({ id: moved.id });
  });

  it('is the same every time, and a copy (changing one changes no later answer)', () => {
    const first = deriveSampleData('deal.updated') as Deal;
    const again = deriveSampleData('deal.updated');
    expect(again).to.deep.equal(first);
    first.title = 'changed';
    expect(deriveSampleData('deal.updated')).to.deep.equal(again);
  });
});
