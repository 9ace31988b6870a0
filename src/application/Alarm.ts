/** Backoff for a retried subscription handler: 50 ms doubling up to 5 s. */
export const backoffMs = (attempt: number, baseMs = 50, maxMs = 5000): number =>
  Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));

/** A sleep that `wake()` ends early (used to stop or to react to new events). */
export class Alarm {
  private wakeUp: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pending = false;

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeUp = () => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        this.wakeUp = null;
        resolve();
      };
      this.timer = setTimeout(this.wakeUp, ms);
    });
  }

  /** Ends the current sleep, or makes the next one return at once. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.pending = true;
  }
}
