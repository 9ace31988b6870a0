import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { validateUnsubscribe } from '../../../src/features/webhooks/domain/subscriptionInput.js';
import { WEBHOOK_EVENT_TYPES, WebhookEventType, readPermissionFor, validateSubscribe } from '../../support/webhookEvents.js';

const body = (fields: Record<string, unknown> = {}) => ({ event: 'contact.created', target_url: 'https://hooks.example.com/x', ...fields });

const problemOf = <A>(result: E.Either<unknown, A>): unknown => (E.isLeft(result) ? result.left : expect.fail(`accepted: ${JSON.stringify(result)}`));

describe('webhook event types', () => {
  it('are the seven of the specification, then the deletes, restores and erasures, as a codec', () => {
    expect(WEBHOOK_EVENT_TYPES).to.deep.equal([
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
    expect(WebhookEventType.is('deal.won')).to.equal(true);
    expect(WebhookEventType.is('deal.archived')).to.equal(false);
    expect(E.isLeft(WebhookEventType.decode('Contact.Created'))).to.equal(true);
  });

  it('need the read permission of their resource', () => {
    expect(WEBHOOK_EVENT_TYPES.map(readPermissionFor)).to.deep.equal([
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
  });
});

describe('subscribe body', () => {
  it('accepts an event type and a target URL (trimmed), without filters', () => {
    expect(validateSubscribe(body({ target_url: '  https://hooks.example.com/x ' }))).to.deep.equal(
      E.right({ event: 'contact.created', targetUrl: 'https://hooks.example.com/x', filters: null }),
    );
  });

  it('accepts tag filters, trimmed and de-duplicated; null filters mean none', () => {
    expect(validateSubscribe(body({ filters: { tags: [' vip ', 'lead', 'vip'] } }))).to.deep.equal(
      E.right({ event: 'contact.created', targetUrl: 'https://hooks.example.com/x', filters: { tags: ['vip', 'lead'] } }),
    );
    expect(validateSubscribe(body({ filters: null }))).to.deep.equal(
      E.right({ event: 'contact.created', targetUrl: 'https://hooks.example.com/x', filters: null }),
    );
  });

  it('reports missing event and target_url first and alone', () => {
    expect(problemOf(validateSubscribe({ filters: 'nonsense' }))).to.deep.equal({ kind: 'MissingFields', fields: ['event', 'target_url'] });
    expect(problemOf(validateSubscribe({ event: null, target_url: 'https://x.example' }))).to.deep.equal({
      kind: 'MissingFields',
      fields: ['event'],
    });
  });

  it('refuses an unknown event type, naming the valid ones', () => {
    const problem = problemOf(validateSubscribe(body({ event: 'deal.archived' }))) as { details: Record<string, string> };
    expect(Object.keys(problem.details)).to.deep.equal(['event']);
    expect(problem.details.event).to.contain('contact.created').and.contain('deal.lost');
  });

  it('refuses a target_url that is not a string, is blank or is too long', () => {
    for (const target_url of [42, '   ', `https://example.com/${'a'.repeat(2048)}`]) {
      const problem = problemOf(validateSubscribe(body({ target_url }))) as { details: Record<string, string> };
      expect(Object.keys(problem.details), JSON.stringify(target_url)).to.deep.equal(['target_url']);
    }
  });

  it('refuses filters other than 1 to 50 tags of 1 to 50 characters', () => {
    const tooMany = Array.from({ length: 51 }, (_, i) => `t${i}`);
    for (const filters of [
      'vip',
      ['vip'],
      {},
      { tags: [] },
      { tags: 'vip' },
      { tags: [1] },
      { tags: ['  '] },
      { tags: ['x'.repeat(51)] },
      { tags: tooMany },
      { tags: ['vip'], status: 'won' },
    ]) {
      const problem = problemOf(validateSubscribe(body({ filters }))) as { kind: string; details: Record<string, string> };
      expect(problem.kind, JSON.stringify(filters)).to.equal('Invalid');
      expect(Object.keys(problem.details), JSON.stringify(filters)).to.deep.equal(['filters']);
    }
    expect(E.isRight(validateSubscribe(body({ filters: { tags: tooMany.slice(0, 50) } })))).to.equal(true);
  });

  it('refuses tag filters on deal event types, where they could never match', () => {
    for (const event of ['deal.created', 'deal.updated', 'deal.stage_changed', 'deal.won', 'deal.lost']) {
      expect(problemOf(validateSubscribe(body({ event, filters: { tags: ['vip'] } }))), event).to.deep.equal({
        kind: 'Invalid',
        details: { filters: 'tag filters apply to contact events (contact.*) only' },
      });
      expect(E.isRight(validateSubscribe(body({ event, filters: null }))), event).to.equal(true);
    }
    expect(E.isRight(validateSubscribe(body({ event: 'contact.updated', filters: { tags: ['vip'] } })))).to.equal(true);
  });

  it('reports every invalid field at once', () => {
    const problem = problemOf(validateSubscribe(body({ event: 'nope', target_url: 7, filters: {} }))) as { details: Record<string, string> };
    expect(Object.keys(problem.details).sort()).to.deep.equal(['event', 'filters', 'target_url']);
  });

  it('refuses a body that is not an object', () => {
    expect(problemOf(validateSubscribe(['contact.created']))).to.have.property('kind', 'Invalid');
  });
});

describe('unsubscribe body', () => {
  it('takes subscription_id', () => {
    expect(validateUnsubscribe({ subscription_id: ' abc ' })).to.deep.equal(E.right({ subscriptionId: 'abc' }));
  });

  it('reports a missing, null or blank subscription_id as missing', () => {
    for (const value of [{}, { subscription_id: null }, { subscription_id: ' ' }]) {
      expect(problemOf(validateUnsubscribe(value))).to.deep.equal({ kind: 'MissingFields', fields: ['subscription_id'] });
    }
  });

  it('refuses a subscription_id that is not a string', () => {
    expect(problemOf(validateUnsubscribe({ subscription_id: 12 }))).to.deep.equal({
      kind: 'Invalid',
      details: { subscription_id: 'subscription_id must be a string' },
    });
  });
});
