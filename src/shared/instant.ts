/** `YYYY-MM-DD`, optionally followed by `T` (or a space), `hh:mm[:ss[.fraction]]` and a required zone. */
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2})))?$/;

/** Milliseconds since the epoch of a UTC date-time (`Date.UTC` alone would read years 0–99 as 1900–1999). */
const utc = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millis = 0): number => {
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second, millis));
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
};

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;
const daysInMonth = (year: number, month: number): number =>
  month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);

/** Four-digit years only in the output too (an offset may push 0000-01-01 into year -1). */
const CANONICAL = /^\d{4}-/;
const canonical = (time: number): string | null => {
  const iso = new Date(time).toISOString();
  return CANONICAL.test(iso) ? iso : null;
};

/**
 * An ISO 8601 instant as a client sends it, in its canonical stored form
 * (`toISOString`: UTC with milliseconds), so that string order is time order.
 *
 * Accepted:
 * - a calendar date `YYYY-MM-DD`, read as midnight UTC;
 * - a date-time `YYYY-MM-DDThh:mm[:ss[.fraction]]` (or a space for `T`) **with a
 *   zone**: `Z` or an offset `±hh:mm` / `±hhmm`. A date-time without a zone is
 *   refused: which clock it means is a guess.
 *
 * The date must exist (`2023-02-29` and `2024-02-30` are refused, where
 * `Date.parse` would roll them over into March); hours 00–23, minutes and seconds
 * 00–59; fractions beyond milliseconds are truncated.
 *
 * The one rule for instants in request bodies and query parameters alike.
 */
export const parseInstant = (raw: string): string | null => {
  const match = INSTANT.exec(raw.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zone, sign, zh, zm] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (h === undefined) return canonical(utc(year, month, day));
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s ?? '0');
  if (hour > 23 || minute > 59 || second > 59) return null;
  const millis = Number((fraction ?? '').padEnd(3, '0').slice(0, 3));
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const offsetHours = Number(zh);
    const offsetMins = Number(zm);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  return canonical(utc(year, month, day, hour, minute, second, millis) - offsetMinutes * 60_000);
};

/** `parseInstant` for a value already validated upstream: a bad one is a programming error. */
export const requireInstant = (name: string, raw: string): string => {
  const instant = parseInstant(raw);
  if (instant === null) throw new RangeError(`${name} is not an ISO 8601 date or date-time with a zone: ${raw}`);
  return instant;
};
