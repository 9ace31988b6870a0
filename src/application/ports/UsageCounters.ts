/**
 * Per-company usage by UTC hour, for the customer console: requests (and of
 * them, those refused by a rate limit, 429) per API key, and webhook delivery
 * attempts that succeeded or failed. Written in batches (`UsageRecorder` adds up
 * in memory and flushes every few seconds), so the API's requests never wait on
 * it; shared by every process (the embedded SQLite file, MongoDB, PostgreSQL).
 */
export interface UsageCounts {
  readonly requests: number;
  /** Requests answered 429 by the rate limits (counted in `requests` too). */
  readonly limited: number;
  /** Delivery attempts answered 200. */
  readonly deliveriesOk: number;
  /** Delivery attempts that failed (any other status, a timeout, a refused address). */
  readonly deliveriesFailed: number;
}

/** One counter row: a company, an hour, and the API key of its requests (null for deliveries, which have none). */
export interface UsageRow extends UsageCounts {
  readonly companyId: string;
  /** The start of the UTC hour. */
  readonly hour: Date;
  readonly keyId: string | null;
}

export interface UsageCounters {
  /** Adds each row's counts to the stored ones (creating rows as needed), atomically per row. */
  add(rows: readonly UsageRow[]): Promise<void>;
  /** The company's rows whose hour is in [from, to), in any order. */
  read(companyId: string, from: Date, to: Date): Promise<readonly UsageRow[]>;
  /** Deletes rows of hours before `before`; answers how many. */
  prune(before: Date): Promise<number>;
  /** Deletes every row of the company (its erasure); answers how many. */
  forgetCompany(companyId: string): Promise<number>;
  /** Releases what the counters opened themselves (a file); counters on a shared connection have none. */
  close(): Promise<void>;
}

export const NO_USAGE: UsageCounts = { requests: 0, limited: 0, deliveriesOk: 0, deliveriesFailed: 0 };

/** The sum of two counts. */
export const addCounts = (a: UsageCounts, b: UsageCounts): UsageCounts => ({
  requests: a.requests + b.requests,
  limited: a.limited + b.limited,
  deliveriesOk: a.deliveriesOk + b.deliveriesOk,
  deliveriesFailed: a.deliveriesFailed + b.deliveriesFailed,
});

/** The rows with the same company, hour and key added into one, in the order each first appears. */
export const mergeUsageRows = (rows: readonly UsageRow[]): UsageRow[] => {
  const merged = new Map<string, UsageRow>();
  for (const row of rows) {
    const key = `${row.companyId}|${row.hour.getTime()}|${row.keyId ?? ''}`;
    const seen = merged.get(key);
    merged.set(key, seen ? { ...seen, ...addCounts(seen, row) } : row);
  }
  return [...merged.values()];
};
