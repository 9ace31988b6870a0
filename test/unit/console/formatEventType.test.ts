import { expect } from 'chai';
import { formatEventType } from '../../../src/console/html/format.js';

describe('formatEventType: stored event types named as the console names events', () => {
  it('writes a type as a webhook event type: the kind, a dot, the rest in snake case', () => {
    expect(['ContactCreated', 'ContactErased', 'DealStatusChanged', 'DealContactRefreshed', 'DealStageChanged'].map(formatEventType)).to.deep.equal([
      'contact.created',
      'contact.erased',
      'deal.status_changed',
      'deal.contact_refreshed',
      'deal.stage_changed',
    ]);
  });

  it('leaves a name that is not one word after another as it is', () => {
    expect(['contact.created', 'Contact', 'X', ''].map(formatEventType)).to.deep.equal(['contact.created', 'Contact', 'X', '']);
  });
});
