import { expect } from 'chai';
import type { DerivedWebhookEvent } from '../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { matchesFilters } from '../../support/webhookEvents.js';

const event = (type: DerivedWebhookEvent['type'], tags: readonly string[]) => ({ type, tags });

describe('matchesFilters', () => {
  describe('given no filter', () => {
    it('matches every event', () => {
      for (const filters of [null, {}, { tags: [] }]) {
        expect(matchesFilters(filters, event('contact.created', [])), JSON.stringify(filters)).to.equal(true);
        expect(matchesFilters(filters, event('deal.won', []))).to.equal(true);
      }
    });
  });

  describe('given a tag filter', () => {
    const filters = { tags: ['vip', 'partner'] };

    it('matches a contact event whose contact carries any one of the tags', () => {
      expect(matchesFilters(filters, event('contact.created', ['partner']))).to.equal(true);
      expect(matchesFilters(filters, event('contact.updated', ['newsletter', 'vip']))).to.equal(true);
      expect(matchesFilters(filters, event('contact.updated', ['vip', 'partner']))).to.equal(true);
    });

    it('does not match a contact event whose contact carries none of them', () => {
      expect(matchesFilters(filters, event('contact.created', []))).to.equal(false);
      expect(matchesFilters(filters, event('contact.updated', ['newsletter']))).to.equal(false);
    });

    it('compares tags exactly (case-sensitive, as contacts keep them)', () =>
      expect(matchesFilters(filters, event('contact.created', ['VIP', 'Partner']))).to.equal(false));

    it('ignores the filter for every deal event', () => {
      for (const type of ['deal.created', 'deal.updated', 'deal.stage_changed', 'deal.won', 'deal.lost'] as const) {
        expect(matchesFilters(filters, event(type, [])), type).to.equal(true);
      }
    });
  });
});
