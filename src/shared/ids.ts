import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const POOL_SIZE = 16 * 256;
const pool = Buffer.alloc(POOL_SIZE);
let offset = POOL_SIZE;

/** 16 random bytes from a pool refilled 256 ids at a time (one system call instead of 256). */
const randomBytes16 = (): Uint8Array => {
  if (offset === POOL_SIZE) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 16);
  offset += 16;
  return bytes;
};

/**
 * A new server-assigned id (events, entities): a UUIDv7, time-ordered, so that
 * new rows land at the right edge of every index (SQLite B-trees, MongoDB _id)
 * instead of on random pages (what that gives appends: docs/benchmarks/design-measurements.md,
 * "Ids").
 */
export const newId = (): string => v7({ random: randomBytes16() });
