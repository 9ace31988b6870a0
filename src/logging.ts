import { pino } from 'pino';
import type { Logger } from './application/ports/Logger.js';

/** Paths that could hold a secret; pino replaces their values before anything is written. */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'password',
  '*.password',
];

/** Bytes of log lines stdout holds before it writes them, and how long a line may wait there at most. */
const STDOUT_BUFFER_BYTES = 4096;
const STDOUT_FLUSH_MS = 100;

let stdout: ReturnType<typeof pino.destination> | null = null;

/**
 * The process's stdout for its log lines, written in blocks: one write for
 * about 4 KiB of lines, at the latest every STDOUT_FLUSH_MS, and whatever is
 * left when the process exits (however it exits short of a kill), instead of
 * one write per line (a request's line was a write of its own). One per process.
 */
const bufferedStdout = (): pino.DestinationStream => {
  if (stdout === null) {
    const stream = pino.destination({ dest: 1, sync: true, minLength: STDOUT_BUFFER_BYTES, periodicFlush: STDOUT_FLUSH_MS });
    process.on('exit', () => stream.flushSync());
    stdout = stream;
  }
  return stdout;
};

/** Structured JSON logs on stdout (or the given destination), secrets redacted. */
export const createLogger = (level: string, destination?: NodeJS.WritableStream | pino.DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service: 'chronicle' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? bufferedStdout(),
  ) as unknown as Logger;

/**
 * The same logger without redaction, for lines built only of fields known to
 * hold no secret (the request line: id, method, path, status, address, time,
 * key id). Redaction walks every line for the paths above, wildcards included:
 * for a line that cannot hold them, it is work for nothing on every request.
 */
export const withoutRedaction = (logger: Logger): Logger =>
  (logger.child as (bindings: object, options: { redact: string[] }) => Logger).call(logger, {}, { redact: [] });
