/**
 * A global log position: a non-negative decimal integer as a string, so that it
 * travels safely through JSON and MongoDB. Adapters convert their own
 * representation (SQLite rowid, EventStoreDB bigint) at their boundary.
 */
export type Position = string;

const DECIMAL = /^(0|[1-9][0-9]*)$/;

export const isPosition = (value: string): value is Position => DECIMAL.test(value);

/**
 * A position as text whose order is the positions' order: its length in two
 * digits, then its digits (`0242` for 42), for positions of up to 99 digits. Two
 * bytes more than the number, where zero-padding to the widest position
 * (EventStoreDB's commit × 2^64 + prepare: 40 digits) would add up to 39.
 */
export const orderedPositionText = (position: Position): string => String(position.length).padStart(2, '0') + position;

/** Compares two positions numerically (as bigint would) without allocating. */
export const comparePositions = (a: Position, b: Position): number => {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
};

/** Compares positions where null means "before the first event". */
export const compareNullablePositions = (a: Position | null, b: Position | null): number => {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  return comparePositions(a, b);
};

/** The later of two positions, null meaning none (so the other one). */
export const laterPosition = (a: Position | null, b: Position | null): Position | null => (compareNullablePositions(a, b) >= 0 ? a : b);
