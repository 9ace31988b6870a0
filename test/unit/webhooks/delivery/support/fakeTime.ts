import type { Clock } from '../../../../../src/shared/Clock.js';

/**
 * A clock and a sleep that move only when the test says so. Sleeps end when the
 * time passes their end (`advance`) or their signal aborts.
 */
export class FakeTime implements Clock {
  private ms: number;
  private sleepers: { until: number; wake: () => void }[] = [];

  constructor(start = new Date()) {
    this.ms = start.getTime();
  }

  now = (): Date => new Date(this.ms);

  sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const sleeper = {
        until: this.ms + ms,
        wake: () => {
          this.sleepers = this.sleepers.filter((s) => s !== sleeper);
          signal.removeEventListener('abort', sleeper.wake);
          resolve();
        },
      };
      this.sleepers.push(sleeper);
      signal.addEventListener('abort', sleeper.wake, { once: true });
      if (ms <= 0) sleeper.wake();
    });

  advance(ms: number): void {
    this.ms += ms;
    this.sleepers.filter((s) => s.until <= this.ms).forEach((s) => s.wake());
  }
}
