import { hashConsoleSecret, parseConsoleToken } from '../../shared/consoleTokens.js';
import type { Clock } from '../../shared/Clock.js';
import type { ConsoleSessionStore } from '../ports/ConsoleSessionStore.js';
import type { ConsoleSessionSettings } from './ConsoleSessionSettings.js';

/** A console session resumed by a request: whose it is, and its secret (the CSRF token is derived from it). */
export interface ConsoleSession {
  readonly sessionId: string;
  readonly companyId: string;
  readonly secret: string;
  readonly expiresAt: Date;
  readonly idleExpiresAt: Date;
}

/**
 * The session a cookie names, when it is still open (see ConsoleSessionStore:
 * neither its idle nor its absolute end reached); the request moves its idle
 * end. Null for anything else, a malformed cookie included.
 */
export const resumeConsoleSession = async (
  deps: { readonly sessions: ConsoleSessionStore; readonly clock: Clock },
  cookie: unknown,
  settings: ConsoleSessionSettings,
): Promise<ConsoleSession | null> => {
  const parsed = parseConsoleToken(cookie);
  if (!parsed) return null;
  const record = await deps.sessions.resume(parsed.id, hashConsoleSecret(parsed.secret), deps.clock.now(), settings.idleMs);
  return record && { sessionId: record.sessionId, companyId: record.companyId, secret: parsed.secret, expiresAt: record.expiresAt, idleExpiresAt: record.idleExpiresAt };
};

/** Logout: ends the session the cookie names (true when there was one). */
export const endConsoleSession = async (sessions: ConsoleSessionStore, cookie: unknown): Promise<boolean> => {
  const parsed = parseConsoleToken(cookie);
  return parsed !== null && sessions.end(parsed.id, hashConsoleSecret(parsed.secret));
};

/**
 * Ends every session of a company at once, in every process (the platform
 * offboarding a customer, or a customer's access taken away): answers how many.
 */
export const endCompanyConsoleSessions = (sessions: Pick<ConsoleSessionStore, 'endAll'>, companyId: string): Promise<number> =>
  sessions.endAll({ companyId });
