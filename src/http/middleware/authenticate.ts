import type { Middleware } from 'koa';
import type { Clock } from '../../shared/Clock.js';
import type { AuthContext } from '../../application/callers/AuthContext.js';
import type { CredentialKind, FailedCredentials } from '../../application/credentials/FailedCredentials.js';
import { HttpError } from '../HttpError.js';

/** What checking a presented credential found (format first, then the hash against its read model). */
export type BearerVerification<Auth> =
  | { readonly kind: 'malformed' }
  | { readonly kind: 'invalid' }
  /** Unknown to read models that stayed behind the log while the request waited: it cannot be told yet. */
  | { readonly kind: 'unverifiable' }
  | { readonly kind: 'valid'; readonly auth: Auth }
  /** Active, but its owner is suspended (an API key of a suspended company). */
  | { readonly kind: 'suspended'; readonly auth: Auth };

export type KeyVerification = BearerVerification<AuthContext>;

/** Checks a presented API key (format first, then the hash against the key directory). */
export type VerifyApiKey = (presented: string, now: Date) => Promise<KeyVerification>;

/** One kind of bearer credential: how it is checked, the 401s that refuse it, and where the caller is put. */
export interface BearerCredential<Auth> {
  /** What the credential is called in messages ("API key"). */
  readonly noun: string;
  /** Its failures' name in the failed-credentials count and metric. */
  readonly kind: CredentialKind;
  readonly verify: (presented: string, now: Date) => Promise<BearerVerification<Auth>>;
  /** `error` and `message` of the three 401s: no header, a malformed credential, an unknown or refused one. */
  readonly refusals: {
    readonly missing: readonly [string, string];
    readonly malformed: readonly [string, string];
    readonly invalid: readonly [string, string];
    /** `error` and `message` of the 403 of a credential whose owner is suspended (absent: a kind whose owner never is). */
    readonly suspended?: readonly [string, string];
  };
  /** A clearer message for a malformed credential that is a well-formed one of another kind (null: none). */
  readonly otherKind?: (presented: string) => string | null;
  /** Puts the caller on `ctx.state` for what follows. */
  readonly assign: (state: Record<string, unknown>, auth: Auth) => void;
}

/** The `error` of the 403 that refuses an API key of a suspended company. */
export const COMPANY_SUSPENDED = 'Company suspended';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The 429 of a client address past the failed-credentials limit: the spec's rate
 * limit body, with `code` `TOO_MANY_FAILED_CREDENTIALS` and the limit it passed.
 */
export const tooManyFailedCredentials = (failures: FailedCredentials, retryAfterSeconds: number): HttpError =>
  new HttpError(
    429,
    'Rate limit exceeded',
    `Too many failed credentials from this address: more than ${failures.limit} in ${failures.windowSeconds} seconds. ` +
      `Check the credential you send; retry after ${retryAfterSeconds} seconds.`,
    {
      code: 'TOO_MANY_FAILED_CREDENTIALS',
      extras: { retryAfter: retryAfterSeconds, limits: { failedCredentials: failures.limit, windowSeconds: failures.windowSeconds } },
      headers: { 'Retry-After': String(retryAfterSeconds) },
    },
  );

/** A refused credential: its 401, or the 429 once its address is past the failed-credentials limit. */
const refusal = (ctx: { readonly ip: string }, kind: CredentialKind, failures: FailedCredentials | undefined, unauthorized: HttpError): HttpError => {
  const counted = failures?.fail(ctx.ip, kind);
  return counted?.throttled ? tooManyFailedCredentials(failures!, counted.retryAfterSeconds) : unauthorized;
};

/**
 * `Authorization: Bearer <credential>`, answered with the three 401 bodies of
 * `credential.refusals`: no header; a malformed credential (refused without a
 * lookup); an unknown, expired or revoked one. One that cannot be told yet
 * (unknown while the read models are behind the log) is a 503
 * `READ_MODELS_BEHIND` with `Retry-After`, never a wrong 401. A malformed or
 * refused credential counts as a failure of the client's address (`failures`);
 * past the limit it is answered 429 instead of 401. A valid one is never counted,
 * nor is one whose owner is suspended: it is a 403 (`refusals.suspended`), in the
 * spec's error body without the permission fields of a missing permission's 403.
 */
export const authenticateBearer =
  <Auth>(credential: BearerCredential<Auth>, clock: Clock, failures?: FailedCredentials): Middleware =>
  async (ctx, next) => {
    const header = ctx.get('Authorization');
    const { missing, malformed, invalid } = credential.refusals;
    if (header === '') throw new HttpError(401, missing[0], missing[1]);
    const presented = BEARER.exec(header)?.[1];
    const verification: BearerVerification<Auth> = presented ? await credential.verify(presented, clock.now()) : { kind: 'malformed' };
    switch (verification.kind) {
      case 'malformed':
        throw refusal(ctx, credential.kind, failures, new HttpError(401, malformed[0], (presented && credential.otherKind?.(presented)) || malformed[1]));
      case 'invalid':
        throw refusal(ctx, credential.kind, failures, new HttpError(401, invalid[0], invalid[1]));
      case 'unverifiable':
        throw new HttpError(
          503,
          'Service unavailable',
          `The ${credential.noun} cannot be checked yet: the read models are catching up with the log. Retry in a moment.`,
          { code: 'READ_MODELS_BEHIND', headers: { 'Retry-After': '1' } },
        );
      case 'suspended': {
        if (!credential.refusals.suspended) throw new Error(`a ${credential.noun} was found suspended`);
        const [error, message] = credential.refusals.suspended;
        throw new HttpError(403, error, message, { code: 'COMPANY_SUSPENDED' });
      }
      case 'valid':
        credential.assign(ctx.state as Record<string, unknown>, verification.auth);
        await next();
    }
  };

/** The customer API's API keys, refused with the spec's three 401 bodies; the caller goes to `ctx.state.auth`. */
export const apiKeyCredential = (verify: VerifyApiKey): BearerCredential<AuthContext> => ({
  noun: 'API key',
  kind: 'api_key',
  verify,
  refusals: {
    missing: ['API key required in Authorization header', 'Send your API key as "Authorization: Bearer <API_KEY>".'],
    malformed: ['Invalid API key format', 'The Authorization header must be "Bearer <API_KEY>" with a well-formed key.'],
    invalid: ['Invalid API key', 'The API key is unknown, expired or revoked.'],
    suspended: [COMPANY_SUSPENDED, 'The platform suspended this company: its API keys are refused until it is resumed.'],
  },
  assign: (state, auth) => {
    state.auth = auth;
  },
});

/** `authenticateBearer` for the customer API: sets `ctx.state.auth`. */
export const authenticate = (verify: VerifyApiKey, clock: Clock, failures?: FailedCredentials): Middleware =>
  authenticateBearer(apiKeyCredential(verify), clock, failures);
