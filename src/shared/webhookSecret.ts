import { randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits), the
 * Standard Webhooks format, so receivers can verify with its libraries as they are.
 */
export const generateWebhookSecret = (): string => `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

/**
 * What the webhook secret store keeps for a subscription: its signing secret and,
 * after a rotation, the previous one with the end of its overlap. A subscription
 * never rotated keeps its secret alone (`whsec_…`, as every release before rotation
 * did); a rotated one keeps this as JSON (`{"current":…,"previous":…,"previousExpiresAt":…}`),
 * encrypted like any value under SECRETS_KEY.
 */
export interface SigningSecrets {
  readonly current: string;
  /** The secret before the last rotation, and when it stops signing (ISO 8601 UTC); null when never rotated. */
  readonly previous: { readonly secret: string; readonly expiresAt: string } | null;
  /** The secrets were rotated at least once (the subscribe response's secret is not the current one any more). */
  readonly rotated: boolean;
}

/** Reads a value of the webhook secret store (see `SigningSecrets`). */
export const decodeSigningSecrets = (stored: string): SigningSecrets => {
  if (!stored.startsWith('{')) return { current: stored, previous: null, rotated: false };
  const parsed = JSON.parse(stored) as { current?: unknown; previous?: unknown; previousExpiresAt?: unknown };
  if (typeof parsed.current !== 'string') throw new Error('A stored webhook secret has no current secret');
  const previous =
    typeof parsed.previous === 'string' && typeof parsed.previousExpiresAt === 'string'
      ? { secret: parsed.previous, expiresAt: parsed.previousExpiresAt }
      : null;
  return { current: parsed.current, previous, rotated: true };
};

/** The value the store keeps after a rotation to `next`, the secret before it signing until `previousExpiresAt` (none when null). */
export const encodeRotatedSecrets = (next: string, previous: { readonly secret: string; readonly expiresAt: string } | null): string =>
  JSON.stringify(previous === null ? { current: next } : { current: next, previous: previous.secret, previousExpiresAt: previous.expiresAt });

/** The secrets deliveries are signed with at `now`: the current one, then the previous one while its overlap lasts. */
export const secretsAt = (secrets: SigningSecrets, now: Date): readonly string[] =>
  secrets.previous !== null && Date.parse(secrets.previous.expiresAt) > now.getTime() ? [secrets.current, secrets.previous.secret] : [secrets.current];
