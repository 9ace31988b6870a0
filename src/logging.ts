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
