import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretKey } from '../../shared/SecretKey.js';
import { UnreadableSecretError } from './UnreadableSecretError.js';

/** Every encrypted value starts with this; a secret kept in the clear never does (they are `whsec_…`). */
export const ENCRYPTED_PREFIX = 'enc:';
/** The format of this release: `enc:v1:<key id>:<base64url of nonce ‖ ciphertext ‖ tag>`. */
const V1 = `${ENCRYPTED_PREFIX}v1:`;
const CIPHER = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** How a value is kept: in the clear, or encrypted under the current key or another one. */
export type StoredForm = 'plain' | 'current' | 'other';

/**
 * The operator's keys for webhook secrets at rest: the current one (SECRETS_KEY),
 * which encrypts, and previous ones (SECRETS_KEY_PREVIOUS), which only decrypt
 * what they encrypted before a rotation. Each value is sealed with AES-256-GCM
 * under a random 96-bit nonce, with the subscription id as associated data (a
 * value copied to another subscription does not decrypt), and names its key by
 * id, so any key of the ring finds its own values. Without a current key, values
 * are kept in the clear, and encrypted ones cannot be read.
 */
export class SecretsKeyring {
  private readonly byId: ReadonlyMap<string, SecretKey>;

  constructor(
    readonly current: SecretKey | undefined,
    previous: readonly SecretKey[] = [],
  ) {
    this.byId = new Map([...previous, ...(current ? [current] : [])].map((key) => [key.id, key]));
  }

  /** The value to keep for `secret`: encrypted under the current key, or the secret itself without one. */
  seal(subscriptionId: string, secret: string): string {
    if (!this.current) {
      if (secret.startsWith(ENCRYPTED_PREFIX)) throw new Error(`A secret kept in the clear cannot start with "${ENCRYPTED_PREFIX}"`);
      return secret;
    }
    const key = this.current;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(CIPHER, key.bytes(), nonce);
    cipher.setAAD(associatedData(key.id, subscriptionId));
    const sealed = Buffer.concat([nonce, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${V1}${key.id}:${sealed.toString('base64url')}`;
  }

  /** The secret a kept value holds; throws `UnreadableSecretError` when no key of the ring opens it. */
  open(subscriptionId: string, stored: string): string {
    if (!stored.startsWith(ENCRYPTED_PREFIX)) return stored;
    const unreadable = (reason: string) => new UnreadableSecretError(subscriptionId, reason);
    const [keyId, payload] = stored.startsWith(V1) ? stored.slice(V1.length).split(':') : [];
    if (keyId === undefined || payload === undefined) throw unreadable('it is encrypted in a format this release does not know');
    const key = this.byId.get(keyId);
    if (!key) {
      throw unreadable(
        this.current
          ? `it is encrypted with key ${keyId}, which is neither SECRETS_KEY (${this.current.id}) nor in SECRETS_KEY_PREVIOUS`
          : `it is encrypted with key ${keyId}, and SECRETS_KEY is not set`,
      );
    }
    const sealed = Buffer.from(payload, 'base64url');
    if (sealed.length < NONCE_BYTES + TAG_BYTES) throw unreadable('its encrypted value is truncated');
    try {
      const decipher = createDecipheriv(CIPHER, key.bytes(), sealed.subarray(0, NONCE_BYTES));
      decipher.setAAD(associatedData(key.id, subscriptionId));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw unreadable(`it does not decrypt with key ${key.id}: altered, or kept for another subscription`);
    }
  }

  /** Whether a kept value is in the clear, encrypted under the current key, or under another one. */
  formOf(stored: string): StoredForm {
    if (!stored.startsWith(ENCRYPTED_PREFIX)) return 'plain';
    return this.current && stored.startsWith(`${V1}${this.current.id}:`) ? 'current' : 'other';
  }
}

const associatedData = (keyId: string, subscriptionId: string): Buffer => Buffer.from(`${V1}${keyId}:${subscriptionId}`, 'utf8');
