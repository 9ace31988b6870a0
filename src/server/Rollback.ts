import type { Logger } from '../application/ports/Logger.js';

/**
 * What a start has opened so far, to undo when a later step fails: a failed start
 * stops everything it started (newest first) and leaves nothing running.
 */
export class Rollback {
  private readonly undo: { readonly what: string; readonly run: () => Promise<unknown> }[] = [];

  constructor(private readonly logger: Logger) {}

  /** Records how to undo `started`, and passes it on. */
  add<T>(what: string, started: T, undo: (started: T) => Promise<unknown> | unknown): T {
    this.undo.push({ what, run: async () => undo(started) });
    return started;
  }

  /** Undoes everything recorded, newest first; a failing undo is logged and the rest still run. */
  async run(): Promise<void> {
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
