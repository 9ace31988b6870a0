import { expect } from 'chai';
import { successRate } from '../../../src/features/webhooks/application/deliveryStats.js';
import { isTestDelivery } from '../../../src/features/webhooks/application/deliveryViews.js';
import { rateText } from '../../../src/features/webhooks/console/successRateChart.js';

const attempt = (at: string, statusCode: number | null) => ({ at, statusCode, error: statusCode === null ? 'timeout' : null, latencyMs: 1 });
const HOUR = 3_600_000;

describe('Webhook success rates (the console’s charts)', () => {
  const now = new Date('2026-03-04T10:30:00.000Z');
  const deliveries = [
    { attempts: [attempt('2026-03-04T10:05:00.000Z', 500), attempt('2026-03-04T10:06:00.000Z', 200)] },
    { attempts: [attempt('2026-03-04T09:59:59.999Z', null), attempt('2026-03-03T11:00:00.000Z', 200)] },
    // Before the window, and after it: not counted.
    { attempts: [attempt('2026-03-03T10:59:59.999Z', 200), attempt('2026-03-04T11:00:00.000Z', 500)] },
  ];

  it('counts the attempts of each whole UTC hour of the last 24, the current one last', () => {
    const rate = successRate(deliveries, now, 'Last 24 hours', HOUR, 24);
    expect(rate.buckets).to.have.length(24);
    expect(rate.buckets[0]).to.deep.equal({ from: '2026-03-03T11:00:00.000Z', to: '2026-03-03T12:00:00.000Z', attempts: 1, succeeded: 1 });
    expect(rate.buckets[22]).to.deep.equal({ from: '2026-03-04T09:00:00.000Z', to: '2026-03-04T10:00:00.000Z', attempts: 1, succeeded: 0 });
    expect(rate.buckets[23]).to.deep.equal({ from: '2026-03-04T10:00:00.000Z', to: '2026-03-04T11:00:00.000Z', attempts: 2, succeeded: 1 });
    expect([rate.attempts, rate.succeeded]).to.deep.equal([4, 2]);
  });

  it('counts by UTC day over the last 7', () => {
    const rate = successRate(deliveries, now, 'Last 7 days', 24 * HOUR, 7);
    expect(rate.buckets.map((b) => b.from.slice(0, 10))).to.deep.equal(['2026-02-26', '2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04']);
    expect(rate.buckets.map((b) => [b.attempts, b.succeeded])).to.deep.equal([[0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [2, 2], [4, 1]]);
  });

  it('writes a rate as a whole percentage, and none without attempts', () => {
    expect([rateText(2, 3), rateText(0, 0), rateText(3, 3)]).to.deep.equal(['67 %', 'no attempt', '100 %']);
  });

  it('tells a test delivery (metadata.test) from a real one', () => {
    expect(isTestDelivery({ envelope: JSON.stringify({ metadata: { test: true } }) })).to.equal(true);
    expect(isTestDelivery({ envelope: JSON.stringify({ metadata: { eventId: 'e' } }) })).to.equal(false);
    expect(isTestDelivery({ envelope: 'not json' })).to.equal(false);
  });
});

describe('The delivery log’s personal-data declaration', () => {
  it('declares every free-text field of a delivery, and erasure empties the attempts’ personal ones', async () => {
    const { webhookPersonalData } = await import('../../../src/features/webhooks/domain/webhookPersonalData.js');
    const { erasedAttempt } = await import('../../../src/application/ports/WebhookOutbox.js');
    const declared = webhookPersonalData.stores!.webhook_outbox!;
    const attempt = {
      at: 't',
      statusCode: 500,
      error: null,
      errorKind: 'other' as const,
      latencyMs: 1,
      request: { url: 'u', headers: { a: 'b' } },
      response: { headers: { c: 'Ada' }, body: 'Ada', bodyTruncated: false },
    };
    const delivery = {
      subscriptionId: 's', companyId: 'c', eventId: 'e', eventType: 'contact.created', position: '1', ordinal: 0, occurredAt: 't', envelope: '{}',
      state: 'failed', attempts: [attempt], roundAttempts: 1, nextAttemptAt: null, completedAt: 't', failureReason: 'retries_exhausted', createdAt: 't',
    };
    /** The dotted paths of a value's string fields (objects of headers count as one field). */
    const paths = (value: unknown, at: string): string[] => {
      if (typeof value === 'string') return [at];
      if (Array.isArray(value)) return value.flatMap((item) => paths(item, `${at}[]`));
      if (value === null || typeof value !== 'object') return [];
      if (at.endsWith('headers')) return [at];
      return Object.entries(value).flatMap(([key, item]) => paths(item, at === '' ? key : `${at}.${key}`));
    };
    expect([...new Set(paths(delivery, ''))].sort()).to.deep.equal([...declared.personal, ...declared.notPersonal].filter((p) => paths(delivery, '').includes(p)).sort());
    expect(paths(delivery, '').filter((p) => ![...declared.personal, ...declared.notPersonal].includes(p))).to.deep.equal([]);
    const erased = erasedAttempt(attempt);
    expect(JSON.stringify(erased)).not.to.contain('Ada');
    expect(erased.request).to.deep.equal(attempt.request);
  });
});
