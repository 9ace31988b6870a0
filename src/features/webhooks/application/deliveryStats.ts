import type { Delivery, WebhookOutbox } from '../../../application/ports/WebhookOutbox.js';

/** One bar of a success-rate chart: the attempts that started in [from, to), and how many got a 200. */
export interface RateBucket {
  readonly from: string;
  readonly to: string;
  readonly attempts: number;
  readonly succeeded: number;
}

/** A window of a subscription's attempts (the last 24 hours by hour, or the last 7 days by day). */
export interface SuccessRate {
  readonly label: string;
  readonly attempts: number;
  readonly succeeded: number;
  readonly buckets: readonly RateBucket[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The rate of one window: `count` buckets of `size` ms, oldest first, the last one the
 * bucket `now` is in (whole UTC hours or days: [end - count·size, end), end the next
 * multiple of `size` after `now`).
 */
export const successRate = (deliveries: readonly Pick<Delivery, 'attempts'>[], now: Date, label: string, size: number, count: number): SuccessRate => {
  const end = (Math.floor(now.getTime() / size) + 1) * size;
  const start = end - size * count;
  const attempts = new Array<number>(count).fill(0);
  const succeeded = new Array<number>(count).fill(0);
  for (const delivery of deliveries) {
    for (const attempt of delivery.attempts) {
      const at = Date.parse(attempt.at);
      if (!(at >= start && at < end)) continue;
      const i = Math.min(count - 1, Math.floor((at - start) / size));
      attempts[i]! += 1;
      if (attempt.statusCode === 200) succeeded[i]! += 1;
    }
  }
  const buckets = attempts.map((n, i) => ({
    from: new Date(start + i * size).toISOString(),
    to: new Date(start + (i + 1) * size).toISOString(),
    attempts: n,
    succeeded: succeeded[i]!,
  }));
  return { label, attempts: attempts.reduce((a, b) => a + b, 0), succeeded: succeeded.reduce((a, b) => a + b, 0), buckets };
};

/** Deliveries read, newest first, for the charts: at most this many (the charts say so when they reach it). */
export const CHART_DELIVERIES = 2_000;
const PAGE = 500;

/** What the charts of a subscription are drawn from. */
export interface SuccessRates {
  readonly day: SuccessRate;
  readonly week: SuccessRate;
  /** The deliveries read reached `CHART_DELIVERIES`: older attempts are not counted. */
  readonly capped: boolean;
}

/**
 * The success rates of a subscription's attempts over the last 24 hours (by hour) and
 * the last 7 days (by day), from its delivery log: its most recent `CHART_DELIVERIES`
 * deliveries, as long as the log keeps them (WEBHOOK_LOG_RETENTION_DAYS).
 */
export const successRates = async (outbox: Pick<WebhookOutbox, 'listDeliveries'>, subscriptionId: string, now: Date): Promise<SuccessRates> => {
  const deliveries: Delivery[] = [];
  let total = 0;
  for (let page = 1; deliveries.length < CHART_DELIVERIES; page++) {
    const found = await outbox.listDeliveries(subscriptionId, { page, limit: PAGE });
    total = found.total;
    deliveries.push(...found.items);
    if (found.items.length < PAGE) break;
  }
  return {
    day: successRate(deliveries, now, 'Last 24 hours', HOUR, 24),
    week: successRate(deliveries, now, 'Last 7 days', DAY, 7),
    capped: total > deliveries.length,
  };
};
