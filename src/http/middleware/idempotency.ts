import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { ADMIN_SCOPE_PREFIX, ERASED_FINGERPRINT, type IdempotencyStore, type StoredResponse } from '../../application/ports/IdempotencyStore.js';
import type { ReadModelProgress } from '../../application/subscriptions/ReadModelProgress.js';
import { canonicalJson } from '../../shared/canonicalJson.js';
import type { Clock } from '../../shared/Clock.js';
import { HttpError, errorBody } from '../HttpError.js';
import { authOf } from './requirePermission.js';
import { adminOf } from '../adminMetadata.js';
import { LOG_POSITION_HEADER, waitForReadModels } from './consistentReads.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** A response is kept this long for replays (Stripe keeps keys 24 hours). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600_000;
/**
 * A claim holds this long without an answer; after it the key may be taken over (the
 * first request presumed dead). Well above the longest a request may run: the
 * server cuts a request off after 30 s, and a write waits at most
 * `READ_YOUR_WRITES_TIMEOUT_MS` for its read models.
 */
export const IDEMPOTENCY_CLAIM_TTL_MS = 120_000;

/**
 * Statuses whose response is stored and replayed: successes, and the refusals the
 * command itself decided from the log (400 a contact of another company, 404, 409
 * a phone number taken), which the same request would meet again. Anything else
 * (a 422 of invalid input, a 403, and every 5xx) is not stored: the request
 * changed nothing, so the key is released and the request may be sent again.
 */
const STORED_STATUSES: ReadonlySet<number> = new Set([200, 201, 400, 404, 409]);

/** Response headers that belong to the stored response. */
const STORED_HEADERS = [LOG_POSITION_HEADER, 'ETag', 'Location'] as const;

/** 1–255 printable ASCII characters (space included), as Stripe and the IETF draft allow. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * The key of the header: as sent, or the content of a Structured Field string
 * (`"…"`, the IETF draft's form, with `\"` and `\\` escapes). Null when malformed.
 */
export const parseIdempotencyKey = (raw: string): string | null => {
  let key = raw;
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(raw);
  if (quoted) key = quoted[1]!.replace(/\\(["\\])/g, '$1');
  return KEY_PATTERN.test(key) ? key : null;
};

/**
 * What a request was: method, route template, its path parameters when the route
 * has any (`POST /admin/companies/:id/keys` for one company is not the same
 * request for another), and the SHA-256 of its canonical JSON body.
 */
export const requestFingerprint = (route: string, body: unknown, params: Readonly<Record<string, string>> = {}): string => {
  const withParams = Object.keys(params).length === 0 ? route : `${route}\n${canonicalJson(params)}`;
  return createHash('sha256').update(`${withParams}\n${canonicalJson(body ?? null)}`).digest('hex');
};

/** Whose keys a key is one of: the caller's company on the customer API (the admin API: the admin token). */
export type IdempotencyScope = (state: Record<string, unknown>) => string;

/** The customer API's scope: the company of the API key. */
export const companyScope: IdempotencyScope = (state) => authOf(state).companyId;

/** The admin API's scope: the admin token (a prefix no company id has: ids are UUIDs). */
export const adminTokenScope: IdempotencyScope = (state) => `${ADMIN_SCOPE_PREFIX}${adminOf(state).tokenId}`;

/** How a route's body is kept: without secrets at rest, and made whole again on replay. */
export interface StoredBodyCodec {
  /** The body as it may be stored (no secret in it). */
  store(body: unknown): unknown;
  /** The stored body as it is replayed (the secret read back from where it is kept). */
  replay(stored: unknown): Promise<unknown>;
}

export interface IdempotencyDeps {
  readonly store: IdempotencyStore;
  readonly clock: Clock;
  /** Replays wait (bounded) for the stored write's log position, as the first response did. */
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  readonly retentionMs?: number;
  readonly claimTtlMs?: number;
}

const invalidKey = (): HttpError =>
  new HttpError(422, 'Validation failed', 'The Idempotency-Key header is malformed.', {
    code: 'INVALID_IDEMPOTENCY_KEY',
    details: { [IDEMPOTENCY_KEY_HEADER]: 'must be 1 to 255 printable ASCII characters' },
  });

const keyReused = (): HttpError =>
  new HttpError(422, 'Validation failed', 'This Idempotency-Key was already used for a different request.', {
    code: 'IDEMPOTENCY_KEY_REUSED',
    details: {
      [IDEMPOTENCY_KEY_HEADER]: 'was used with another request (method, path or body); use a new key for a new request',
    },
  });

const keyInFlight = (): HttpError =>
  new HttpError(409, 'Request in progress', 'A request with this Idempotency-Key is still being processed; retry it in a moment.', {
    code: 'IDEMPOTENCY_KEY_IN_USE',
    headers: { 'Retry-After': '1' },
  });

const storedHeaders = (ctx: Context): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = ctx.response.get(name);
    if (value !== '') headers[name] = value;
  }
  return headers;
};

/**
 * `Idempotency-Key` on a creating POST (Stripe's semantics, and the IETF
 * draft's): without the header the request runs as usual. With it, the first
 * request claims the key in the caller's scope (its company; on the admin API,
 * its admin token) and runs; its response (status, body, headers) is stored
 * durably when it is a stored status, and every later
 * request with the same key and the same request gets it back with
 * `Idempotent-Replayed: true`, for `retentionMs`. The same key with another
 * request is a 422; while the first is still running, a 409 with `Retry-After`.
 * A record an erasure rewrote (`IdempotencyStore.eraseMentions`) answers its
 * rewritten response to any request with its key.
 *
 * Runs after authentication and the route's permission check, so a key is only
 * claimed by a caller allowed to make the request.
 */
export const idempotency = (deps: IdempotencyDeps, route: string, codec?: StoredBodyCodec, scopeOf: IdempotencyScope = companyScope): Middleware => {
  const retentionMs = deps.retentionMs ?? IDEMPOTENCY_RETENTION_MS;
  const claimTtlMs = deps.claimTtlMs ?? IDEMPOTENCY_CLAIM_TTL_MS;

  const replay = async (ctx: Context, response: StoredResponse): Promise<void> => {
    const position = response.headers[LOG_POSITION_HEADER];
    if (position !== undefined) await waitForReadModels(ctx, deps.progress, position, deps.readYourWritesTimeoutMs);
    ctx.status = response.status;
    ctx.body = codec && response.status < 300 ? await codec.replay(response.body) : response.body;
    for (const [name, value] of Object.entries(response.headers)) ctx.set(name, value);
    ctx.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
  };

  return async (ctx, next) => {
    const raw = ctx.get(IDEMPOTENCY_KEY_HEADER);
    if (raw === '' && ctx.headers['idempotency-key'] === undefined) return next();
    const key = parseIdempotencyKey(raw);
    if (key === null) throw invalidKey();

    // The store's `companyId` is the scope: a company's id, or (`admin-token:<id>`) no company's.
    const companyId = scopeOf(ctx.state as Record<string, unknown>);
    const fingerprint = requestFingerprint(route, ctx.request.body, ctx.params ?? {});
    const claimed = await deps.store.claim({ companyId, key, fingerprint, now: deps.clock.now(), claimTtlMs });
    if (claimed.kind !== 'claimed') {
      // A record an erasure rewrote answers what it holds now, whatever the request (its hash is gone with the values).
      if (claimed.kind === 'completed' && claimed.fingerprint === ERASED_FINGERPRINT) return replay(ctx, claimed.response);
      if (claimed.fingerprint !== fingerprint) throw keyReused();
      if (claimed.kind === 'in_flight') throw keyInFlight();
      return replay(ctx, claimed.response);
    }

    const { token } = claimed;
    let stored = false;
    try {
      try {
        await next();
      } catch (error) {
        // A refusal the command decided is answered here, so that it can be stored as it is answered.
        if (!(error instanceof HttpError) || !STORED_STATUSES.has(error.status)) throw error;
        ctx.status = error.status;
        ctx.body = errorBody(error, deps.clock.now());
        for (const [name, value] of Object.entries(error.options.headers ?? {})) ctx.set(name, value);
      }
      if (STORED_STATUSES.has(ctx.status)) {
        const body = codec && ctx.status < 300 ? codec.store(ctx.body) : ctx.body;
        const response: StoredResponse = { status: ctx.status, body: body ?? null, headers: storedHeaders(ctx) };
        stored = await deps.store.complete({ companyId, key, token, response, now: deps.clock.now(), retentionMs });
      }
    } finally {
      // Not stored (a failure, input refused before any change, or a claim lost to a take-over): the key is free again.
      if (!stored) await deps.store.release({ companyId, key, token });
    }
  };
};
