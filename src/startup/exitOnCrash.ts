import type { Logger } from '../application/ports/Logger.js';

/** The part of `process` the crash handlers use (a test passes its own). */
export interface CrashSource {
  on(event: 'unhandledRejection', listener: (reason: unknown, promise: Promise<unknown>) => void): unknown;
  on(event: 'uncaughtException', listener: (error: Error, origin: string) => void): unknown;
}

/**
 * A promise rejected with nobody to handle it, or an exception nothing caught,
 * means the process is in a state nobody planned: log it with its context and
 * exit non-zero, so a supervisor starts a clean one. (Store errors in the
 * background loops are caught, logged and retried where they happen; they never
 * get here.)
 */
export const exitOnCrash = (source: CrashSource, logger: Logger, exit: (code: number) => void): void => {
  source.on('unhandledRejection', (reason) => {
    logger.error({ err: reason, kind: 'unhandledRejection' }, 'a promise was rejected and nothing handled it; exiting');
    exit(1);
  });
  source.on('uncaughtException', (error, origin) => {
    logger.error({ err: error, kind: 'uncaughtException', origin }, 'an exception was not caught; exiting');
    exit(1);
  });
};
