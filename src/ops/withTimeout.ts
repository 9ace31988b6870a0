/** A promise that did not settle in time. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(readonly ms: number) {
    super(`No answer within ${ms} ms`);
  }
}

/**
 * Settles like `work`, or rejects with a TimeoutError after `ms`. The work itself
 * goes on (a store call cannot be cancelled); only the wait for it is bounded, so
 * a probe or a scrape never hangs on a store that does not answer.
 */
export const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(ms)), ms);
  });
  // A late rejection of `work` after the timeout must not be reported as unhandled.
  work.catch(() => undefined);
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
};
