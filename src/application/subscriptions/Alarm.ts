/** Backoff for a retried subscription handler: 50 ms doubling up to 5 s. */
export const backoffMs = (attempt: number, baseMs = 50, maxMs = 5000): number =>
  Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));

/** A sleep that `wake()` ends early (used to stop or to react to new events). */
export class Alarm {
  private wakeUp: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pending = false;

  /** Resolves after `ms`, or at once when woken: true when woken, false when the time ran out. */
  sleep(ms: number): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const end = (woken: boolean) => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        this.wakeUp = null;
        resolve(woken);
      };
      this.wakeUp = () => end(true);
      this.timer = setTimeout(() => end(false), ms);
    });
  }

  /** Ends the current sleep, or makes the next one return at once. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.pending = true;
  }
}
