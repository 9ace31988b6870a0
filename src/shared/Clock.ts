export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Output timestamps: ISO 8601, UTC, with milliseconds. */
export const toIsoTimestamp = (date: Date): string => date.toISOString();
