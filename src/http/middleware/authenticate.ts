import type { Middleware } from 'koa';
import type { Clock } from '../../shared/Clock.js';
import type { AuthContext } from '../../application/apiKeys/AuthContext.js';
import { HttpError } from '../HttpError.js';

export type KeyVerification =
  | { readonly kind: 'malformed' }
  | { readonly kind: 'invalid' }
  /** Unknown to read models that stayed behind the log while the request waited: it cannot be told yet. */
  | { readonly kind: 'unverifiable' }
  | { readonly kind: 'valid'; readonly auth: AuthContext };

/** Checks a presented API key (format first, then the hash against the key directory). */
export type VerifyApiKey = (presented: string, now: Date) => Promise<KeyVerification>;

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * `Authorization: Bearer <key>`, answered exactly as the spec's three 401 bodies:
 * no header; a malformed key (refused without a lookup); an unknown, expired or
 * revoked key. A key that cannot be told yet (unknown while the read models are
 * behind the log) is a 503 `READ_MODELS_BEHIND` with `Retry-After`, never a wrong
 * 401. Sets `ctx.state.auth` for what follows.
 */
export const authenticate =
  (verify: VerifyApiKey, clock: Clock): Middleware =>
  async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (header === '') {
      throw new HttpError(
        401,
        'API key required in Authorization header',
        'Send your API key as "Authorization: Bearer <API_KEY>".',
      );
    }
    const presented = BEARER.exec(header)?.[1];
    const verification: KeyVerification = presented ? await verify(presented, clock.now()) : { kind: 'malformed' };
    switch (verification.kind) {
      case 'malformed':
        throw new HttpError(401, 'Invalid API key format', 'The Authorization header must be "Bearer <API_KEY>" with a well-formed key.');
      case 'invalid':
        throw new HttpError(401, 'Invalid API key', 'The API key is unknown, expired or revoked.');
      case 'unverifiable':
        throw new HttpError(
          503,
          'Service unavailable',
          'The API key cannot be checked yet: the read models are catching up with the log. Retry in a moment.',
          { code: 'READ_MODELS_BEHIND', headers: { 'Retry-After': '1' } },
        );
      case 'valid':
        ctx.state.auth = verification.auth;
        await next();
    }
  };
