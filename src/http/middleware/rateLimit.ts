import type { Middleware } from 'koa';
import type {
  RateLimitAdmission,
  RateLimitCounters,
  RateLimitDecision,
  RateLimitWindowName,
  ReleaseSlot,
} from '../../application/ports/RateLimitCounters.js';
import type { Clock } from '../../shared/Clock.js';
import type { AuthContext } from '../../application/callers/AuthContext.js';
import type { AdminAuthContext } from '../../application/callers/AdminAuthContext.js';
import type { LoopHealth } from '../../application/subscriptions/LoopHealth.js';
import type { Logger } from '../../application/ports/Logger.js';
import { HttpError } from '../HttpError.js';

/** The six headers of every authenticated response; resets are Unix epoch seconds of the window's end. */
export const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Hourly-Limit',
  'X-RateLimit-Hourly-Remaining',
  'X-RateLimit-Hourly-Reset',
  'X-RateLimit-Daily-Limit',
  'X-RateLimit-Daily-Remaining',
  'X-RateLimit-Daily-Reset',
] as const;

const epochSeconds = (date: Date): string => String(Math.floor(date.getTime() / 1000));

const rateLimitHeaders = (decision: RateLimitDecision): Record<(typeof RATE_LIMIT_HEADERS)[number], string> => ({
  'X-RateLimit-Hourly-Limit': String(decision.hourly.limit),
  'X-RateLimit-Hourly-Remaining': String(decision.hourly.remaining),
  'X-RateLimit-Hourly-Reset': epochSeconds(decision.hourly.resetAt),
  'X-RateLimit-Daily-Limit': String(decision.daily.limit),
  'X-RateLimit-Daily-Remaining': String(decision.daily.remaining),
  'X-RateLimit-Daily-Reset': epochSeconds(decision.daily.resetAt),
});

const WINDOW_TEXT: Record<RateLimitWindowName, string> = { hourly: 'Hourly', daily: 'Daily' };

const tooManyRequests = (detail: string, retryAfter: number, decision: RateLimitDecision): HttpError =>
  new HttpError(429, 'Rate limit exceeded', detail, {
    extras: { retryAfter, limits: { hourly: decision.hourly.limit, daily: decision.daily.limit } },
    headers: { 'Retry-After': String(retryAfter) },
  });

/** "Hourly limit of 1000 requests exceeded; it resets at 2026-01-01T14:00:00.000Z." (the last window to reset is named) */
const overLimitMessage = (decision: RateLimitDecision): string => {
  const last = decision.exceeded.includes('daily') ? 'daily' : 'hourly';
  const window = decision[last];
  const also = decision.exceeded.length > 1 ? ' (the hourly limit too)' : '';
  return (
    `${WINDOW_TEXT[last]} limit of ${window.limit} request${window.limit === 1 ? '' : 's'} exceeded${also}; ` +
    `it resets at ${window.resetAt.toISOString()}. Retry after ${decision.retryAfterSeconds} seconds.`
  );
};

/** The loop name under which failing lease releases show in `/ready`. */
export const LEASES_LOOP = 'rate-limit-leases';

/** Where a failed release of a concurrency lease is told (it expires by itself; the answer is not changed). */
export interface LeaseReports {
  readonly logger?: Logger;
  readonly health?: LoopHealth;
}

/** Where a failed lease release is told, and (the console's usage) who is told of every counted request. */
export interface RateLimitOptions extends LeaseReports {
  /**
   * Told of every counted request of an API key (the console's usage): its company, its key, and whether
   * it was refused (429). Called on the hot path: it must only count in memory.
   */
  readonly counted?: (companyId: string, keyId: string, limited: boolean) => void;
}

/** Whose requests are counted: the caller's key in the counters, found on `ctx.state`, and what messages call it. */
export interface RateLimitSubject {
  /** The caller's key in the counters; undefined: no caller of this kind (the request passes untouched). */
  readonly keyOf: (state: Record<string, unknown>) => string | undefined;
  /** What the caller holds, as a 429's message names it. */
  readonly holder: string;
}

/** The customer API's callers: counted by API key id. */
export const API_KEY_SUBJECT: RateLimitSubject = {
  keyOf: (state) => (state.auth as AuthContext | undefined)?.keyId,
  holder: 'API key',
};

/** The admin API's callers: counted by admin token id, under a prefix no API key id has (ids are UUIDs). */
export const ADMIN_TOKEN_SUBJECT: RateLimitSubject = {
  keyOf: (state) => {
    const admin = state.admin as AdminAuthContext | undefined;
    return admin && `admin-token:${admin.tokenId}`;
  },
  holder: 'admin token',
};

/**
 * Per-caller limits (per API key; on the admin API, per admin token), after
 * authentication (unauthenticated requests pass untouched). Every request counts
 * in its UTC hour and UTC day, refused ones included; the six `X-RateLimit-*`
 * headers are set before anything else runs, so they are on every authenticated
 * response, errors included. Over a window's limit, or with all concurrency slots
 * taken, the answer is 429 with `Retry-After`. The slot is given back when the
 * request ends, however it ends.
 */
export const rateLimit = (counters: RateLimitCounters, clock: Clock, reports: RateLimitOptions = {}, subject: RateLimitSubject = API_KEY_SUBJECT): Middleware => {
  const releasing = (release: ReleaseSlot) =>
    release().then(
      () => reports.health?.succeeded(LEASES_LOOP),
      (error: unknown) => {
        reports.health?.failed(LEASES_LOOP);
        reports.logger?.warn({ err: error }, 'rate limits: a concurrency lease could not be released; it expires by itself');
      },
    );
  /** The 429 for a request refused by a window, or (allowed, but no slot free) by the concurrency limit; null: it may go on. */
  const refusal = (decision: RateLimitDecision, slot: boolean): HttpError | null => {
    if (!decision.allowed) return tooManyRequests(overLimitMessage(decision), decision.retryAfterSeconds, decision);
    if (!slot) {
      return tooManyRequests(
        `Too many concurrent requests: at most ${counters.limits.concurrent} at a time per ${subject.holder}. Retry after 1 second.`,
        1,
        decision,
      );
    }
    return null;
  };
  const consumeAndAcquire = async (keyId: string): Promise<RateLimitAdmission> => {
    const [decided, acquired] = await Promise.allSettled([counters.consume(keyId, clock.now()), counters.acquire(keyId)]);
    if (decided.status === 'rejected' || acquired.status === 'rejected') {
      if (acquired.status === 'fulfilled' && acquired.value) await releasing(acquired.value);
      throw decided.status === 'rejected' ? decided.reason : (acquired as PromiseRejectedResult).reason;
    }
    return { decision: decided.value, release: acquired.value };
  };
  const countUsage = (state: Record<string, unknown>, limited: boolean): void => {
    const auth = state.auth as AuthContext | undefined;
    if (reports.counted && auth) reports.counted(auth.companyId, auth.keyId, limited);
  };
  return async (ctx, next) => {
    const keyId = subject.keyOf(ctx.state as Record<string, unknown>);
    if (keyId === undefined) {
      await next();
      return;
    }
    if (counters.take) {
      // Counters in this process's memory: counted and given a slot at once.
      const { decision, release } = counters.take(keyId, clock.now());
      ctx.set(rateLimitHeaders(decision));
      const refused = refusal(decision, release !== null);
      countUsage(ctx.state as Record<string, unknown>, refused !== null);
      if (refused) throw refused;
      try {
        await next();
      } finally {
        release!();
      }
      return;
    }
    // Counters kept by another process answer both in one question; a shared store, both at once.
    const { decision, release } = counters.admit ? await counters.admit(keyId, clock.now()) : await consumeAndAcquire(keyId);
    ctx.set(rateLimitHeaders(decision));
    const refused = refusal(decision, release !== null);
    countUsage(ctx.state as Record<string, unknown>, refused !== null);
    if (refused) {
      if (release) await releasing(release);
      throw refused;
    }
    try {
      await next();
    } finally {
      // A store failure here must not turn the answer into an error: the lease expires anyway.
      await releasing(release!);
    }
  };
};
