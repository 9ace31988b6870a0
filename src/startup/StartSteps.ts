import type { Logger } from '../application/ports/Logger.js';

/**
 * The steps of a start, each named and each registered with how to undo it: a
 * failed start stops everything the steps before it started (newest first) and
 * leaves nothing running.
 */
export class StartSteps {
  private readonly undo: { readonly what: string; readonly run: () => Promise<unknown> }[] = [];

  constructor(private readonly logger: Logger) {}

  /** Runs step `what`; `stop` undoes what it started if a later step fails. */
  async run<T>(what: string, start: () => Promise<T> | T, stop?: (started: T) => Promise<unknown> | unknown): Promise<T> {
    const begun = performance.now();
    const started = await start();
    if (stop) this.undo.push({ what, run: async () => stop(started) });
    this.logger.debug({ step: what, ms: Math.round(performance.now() - begun) }, 'start: step done');
    return started;
  }

  /** Undoes every step that ran, newest first; a failing undo is logged and the rest still run. */
  async rollback(): Promise<void> {
    for (const step of this.undo.reverse()) {
      try {
        await step.run();
      } catch (error) {
        this.logger.error({ err: error, step: step.what }, 'could not stop what a failed start had started');
      }
    }
    this.undo.length = 0;
  }
}
