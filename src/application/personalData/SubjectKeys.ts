import { randomBytes } from 'node:crypto';
import type { SubjectKeyStore } from '../ports/SubjectKeyStore.js';
import type { SecretsKeyring } from '../secrets/SecretsKeyring.js';
import type { SubjectKind } from '../../shared/PersonalData.js';

/** A subject's name in the key store: `contact:<id>`, `user:<id>` (ids only). */
export const subjectOf = (kind: SubjectKind, id: string): string => `${kind}:${id}`;

const KEY_BYTES = 32;

/**
 * The subjects' data keys (256 bits each, random), kept in the key store
 * encrypted under SECRETS_KEY when it is set (as webhook secrets are), in the
 * clear otherwise. A key is made the first time a subject's data is written;
 * an erased subject has none and never gets one again.
 */
export class SubjectKeys {
  constructor(
    private readonly store: SubjectKeyStore,
    private readonly keyring: SecretsKeyring,
  ) {}

  /** The key of each subject, made for those that have none; erased subjects are left out. */
  async keysFor(subjects: readonly string[]): Promise<ReadonlyMap<string, Buffer>> {
    const wanted = [...new Set(subjects)];
    if (wanted.length === 0) return new Map();
    const existing = await this.store.get(wanted);
    const missing = wanted.filter((subject) => !existing.has(subject));
    if (missing.length === 0) return this.opened(existing);
    const candidates = new Map(missing.map((subject) => [subject, this.keyring.seal(subject, randomBytes(KEY_BYTES).toString('base64url'))]));
    const kept = await this.store.putIfAbsent(candidates);
    return this.opened(new Map([...existing, ...kept]));
  }

  /** The keys the subjects have, making none (absent: not written yet, or erased). */
  async existingKeys(subjects: readonly string[]): Promise<ReadonlyMap<string, Buffer>> {
    const wanted = [...new Set(subjects)];
    return wanted.length === 0 ? new Map() : this.opened(await this.store.get(wanted));
  }

  /** Destroys the subject's key: every value sealed with it is unreadable from now on. */
  erase(subject: string, at: Date): Promise<void> {
    return this.store.erase(subject, at);
  }

  erasedAt(subject: string): Promise<Date | null> {
    return this.store.erasedAt(subject);
  }

  private opened(stored: ReadonlyMap<string, string>): ReadonlyMap<string, Buffer> {
    return new Map([...stored].map(([subject, text]) => [subject, Buffer.from(this.keyring.open(subject, text), 'base64url')]));
  }
}
