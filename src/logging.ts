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
  // Console session cookies and link tokens.
  'cookie',
  '*.cookie',
  'headers.cookie',
  '*.headers.cookie',
  'headers["set-cookie"]',
  '*.headers["set-cookie"]',
  'token',
  '*.token',
];

/** Bytes of request lines held before they are written, and how long a line may wait at most. */
const REQUEST_LINES_BUFFER_BYTES = 4096;
const REQUEST_LINES_FLUSH_MS = 100;

let requestLinesOut: ReturnType<typeof pino.destination> | null = null;

/**
 * Stdout for request lines, written in blocks: one write for about 4 KiB of lines,
 * at the latest every REQUEST_LINES_FLUSH_MS, and whatever is left when the process
 * exits (however it exits short of a kill), instead of one write per request. One
 * per process. Every other line is written at once, as it is logged.
 */
const requestLinesStdout = (): pino.DestinationStream => {
  if (requestLinesOut === null) {
    const stream = pino.destination({ dest: 1, sync: true, minLength: REQUEST_LINES_BUFFER_BYTES, periodicFlush: REQUEST_LINES_FLUSH_MS });
    process.on('exit', () => stream.flushSync());
    requestLinesOut = stream;
  }
  return requestLinesOut;
};

/** Structured JSON logs on stdout (or the given destination), secrets redacted. */
export const createLogger = (level: string, destination?: NodeJS.WritableStream): Logger =>
  pino(
    {
      level,
      base: { service: 'chronicle' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? process.stdout,
  ) as unknown as Logger;

/**
 * The logger of request lines, built only of fields known to hold no secret (id,
 * method, path, status, address, time, key id): without redaction, which walks
 * every line for the paths above, wildcards included, work for nothing on every
 * request. A logger writing to stdout gets a logger of its own level and bindings
 * writing to `requestLinesStdout`; any other keeps its destination.
 */
export const requestLineLogger = (logger: Logger): Logger => {
  const pinoLogger = logger as unknown as pino.Logger & Record<symbol, unknown>;
  if (pinoLogger[pino.symbols.streamSym] !== process.stdout) {
    return (logger.child as (bindings: object, options: { redact: string[] }) => Logger).call(logger, {}, { redact: [] });
  }
  // Every binding, as the lines carry them (`bindings()` leaves `pid` out, which a supervised process binds).
  const bound = JSON.parse(`{${String(pinoLogger[pino.symbols.chindingsSym]).slice(1)}}`) as Record<string, unknown>;
  return pino({ level: pinoLogger.level, base: bound, timestamp: pino.stdTimeFunctions.isoTime }, requestLinesStdout()) as unknown as Logger;
};
