import { randomBytes } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * A new signing secret: `whsec_` + base64 of 32 random bytes (256 bits), the
 * Standard Webhooks format, so receivers can verify with its libraries as they are.
 */
export const generateWebhookSecret = (): string => `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
