import type { Clock } from '../../src/shared/Clock.js';

/** A clock whose time moves only when the test says so (`advance`), from `start` (epoch ms). */
export const manualClock = (start = Date.now()): Clock & { advance(ms: number): void } => {
  let now = start;
  return { now: () => new Date(now), advance: (ms) => void (now += ms) };
};

/** The system's clock, put ahead when the test says so (`advance`): its time still passes as well. */
export const clockAhead = (): Clock & { advance(ms: number): void } => {
  let aheadMs = 0;
  return { now: () => new Date(Date.now() + aheadMs), advance: (ms) => void (aheadMs += ms) };
};
