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

/** How log lines are written: JSON lines, or one readable line each (a terminal); `auto` picks by stdout. */
export type LogFormat = 'auto' | 'json' | 'pretty';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** ANSI colours of the level names (on a terminal only). */
const LEVEL_COLOURS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every line has, or that say nothing on a terminal: the time, level and message are the line's head. */
const HEAD_FIELDS = new Set(['level', 'time', 'msg', 'service']);

/** A field's value as `key=value`: strings as they are unless they hold a space or a quote, anything else as JSON. */
const field = (key: string, value: unknown): string => {
  const text = typeof value === 'string' && !/[\s"=]/.test(value) && value !== '' ? value : JSON.stringify(value);
  return `${key}=${text}`;
};

/**
 * One pino JSON line as one readable line: `HH:MM:SS.mmm LEVEL message key=value …`, an error's stack on
 * the lines after it. What is not JSON (never expected) is passed as it is.
 */
export const prettyLine = (json: string, colour: boolean): string => {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const name = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const fields: string[] = [];
  let stack = '';
  for (const [key, value] of Object.entries(entry)) {
    if (HEAD_FIELDS.has(key)) continue;
    if (key === 'err' && value !== null && typeof value === 'object' && typeof (value as { stack?: unknown }).stack === 'string') {
      const { stack: errorStack, ...rest } = value as { stack: string };
      stack = `\n    ${errorStack.split('\n').join('\n    ')}`;
      fields.push(field(key, rest));
      continue;
    }
    fields.push(field(key, value));
  }
  const head = colour ? `\u001b[${LEVEL_COLOURS[level] ?? '0'}m${name}\u001b[0m` : name;
  const message = typeof entry.msg === 'string' ? entry.msg : '';
  const rest = fields.length > 0 ? `  ${colour ? `\u001b[2m${fields.join(' ')}\u001b[0m` : fields.join(' ')}` : '';
  return `${time} ${head} ${message}${rest}${stack}`;
};

/** A destination that writes each JSON line pino gives it to `out` as one readable line. */
export const prettyDestination = (out: NodeJS.WritableStream, colour: boolean): pino.DestinationStream => ({
  write: (lines: string) => {
    for (const line of lines.split('\n')) if (line !== '') out.write(`${prettyLine(line, colour)}\n`);
  },
});

/** Whether lines on stdout are written readable: `pretty`, or `auto` on a terminal. */
export const writesPretty = (format: LogFormat, stdoutIsTty: boolean | undefined = process.stdout.isTTY): boolean =>
  format === 'pretty' || (format === 'auto' && stdoutIsTty === true);

/**
 * Structured logs on stdout (or the given destination), secrets redacted: JSON lines,
 * unless `format` asks for readable lines (`pretty`, or `auto` when stdout is a
 * terminal; the same fields, redacted the same way, formatted by `prettyLine`).
 */
export const createLogger = (level: string, destination?: NodeJS.WritableStream, format: LogFormat = 'json'): Logger =>
  pino(
    {
      level,
      base: { service: 'chronicle' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? (writesPretty(format) ? prettyDestination(process.stdout, process.stdout.isTTY === true) : process.stdout),
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
