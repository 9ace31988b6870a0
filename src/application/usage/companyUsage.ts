import { DAY_MS, HOUR_MS, utcDayStart, utcHourStart } from '../ports/RateLimitCounters.js';
import { NO_USAGE, addCounts, type UsageCounters, type UsageCounts } from '../ports/UsageCounters.js';

/** One hour of a company's usage. */
export interface UsageHour extends UsageCounts {
  /** The start of the UTC hour. */
  readonly hour: Date;
}

/** What one API key used in the current UTC hour and day (its limits are per key). */
export interface KeyUsage {
  readonly thisHour: number;
  readonly today: number;
}

export interface CompanyUsage {
  /** The last 24 UTC hours, oldest first, the current one last. */
  readonly hours: readonly UsageHour[];
  readonly thisHour: UsageCounts;
  /** Since midnight UTC. */
  readonly today: UsageCounts;
  /** Requests per API key in this hour and today, by key id. */
  readonly keys: ReadonlyMap<string, KeyUsage>;
}

/** A company's usage over the last 24 hours and today, read from the usage counters at `now`. */
export const companyUsage = async (counters: Pick<UsageCounters, 'read'>, companyId: string, now: Date): Promise<CompanyUsage> => {
  const thisHour = utcHourStart(now.getTime());
  const today = utcDayStart(now.getTime());
  const first = Math.min(thisHour - 23 * HOUR_MS, today);
  const rows = await counters.read(companyId, new Date(first), new Date(thisHour + HOUR_MS));
  const byHour = new Map<number, UsageCounts>();
  const keys = new Map<string, KeyUsage>();
  let day = NO_USAGE;
  for (const row of rows) {
    const hour = row.hour.getTime();
    byHour.set(hour, addCounts(byHour.get(hour) ?? NO_USAGE, row));
    if (hour >= today && hour < today + DAY_MS) day = addCounts(day, row);
    if (row.keyId !== null && hour >= today) {
      const key = keys.get(row.keyId) ?? { thisHour: 0, today: 0 };
      keys.set(row.keyId, { thisHour: key.thisHour + (hour === thisHour ? row.requests : 0), today: key.today + row.requests });
    }
  }
  const hours = Array.from({ length: 24 }, (_, i) => {
    const hour = thisHour - (23 - i) * HOUR_MS;
    return { hour: new Date(hour), ...(byHour.get(hour) ?? NO_USAGE) };
  });
  return { hours, thisHour: byHour.get(thisHour) ?? NO_USAGE, today: day, keys };
};
