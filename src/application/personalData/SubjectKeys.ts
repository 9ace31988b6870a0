import { randomFillSync } from 'node:crypto';
import type { SubjectKeyStore } from '../ports/SubjectKeyStore.js';
import type { SecretsKeyring } from '../secrets/SecretsKeyring.js';
import type { SubjectKind } from '../../shared/PersonalData.js';

/** A subject's name in the key store: `contact:<id>`, `user:<id>` (ids only). */
export const subjectOf = (kind: SubjectKind, id: string): string => `${kind}:${id}`;

const KEY_BYTES = 32;
/** How many subjects' keys a process keeps at hand for its writes. */
const KEPT_AT_HAND = 10_000;

/** New keys drawn from the system's generator a pool at a time (one call per 128 keys). */
const keyPool = Buffer.alloc(KEY_BYTES * 128);
let keyPoolAt = keyPool.length;
const newKey = (): Buffer => {
  if (keyPoolAt + KEY_BYTES > keyPool.length) {
    randomFillSync(keyPool);
    keyPoolAt = 0;
  }
  const key = Buffer.from(keyPool.subarray(keyPoolAt, keyPoolAt + KEY_BYTES));
  keyPool.fill(0, keyPoolAt, keyPoolAt + KEY_BYTES);
  keyPoolAt += KEY_BYTES;
  return key;
};

/** The keys the subjects have, and new ones (with the text to keep for each) for the others. */
export interface KeysToMake {
  readonly keys: ReadonlyMap<string, Buffer>;
  readonly texts: ReadonlyMap<string, string>;
}

/**
 * The subjects' data keys (256 bits each, random), kept in the key store
 * encrypted under SECRETS_KEY when it is set (as webhook secrets are), in the
 * clear otherwise. A key is made the first time a subject's data is written;
 * an erased subject has none and never gets one again.
 *
 * For its writes a process keeps the keys it has read or made lately at hand (the
 * last 10,000 subjects), so that sealing an event costs no read of the store: a
 * command reads its stream (which fetches the keys it opens with) before it
 * appends. Reads always ask the store: an erasure made by another process shows at
 * once in every answer. An erasure made here drops the key at hand at once.
 */
export class SubjectKeys {
  private readonly erasedListeners = new Set<(subject: string) => void>();
  private readonly atHand = new Map<string, Buffer>();

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
    const kept =
      missing.length === 0
        ? existing
        : new Map([...existing, ...(await this.store.putIfAbsent(new Map(missing.map((subject) => [subject, this.keyring.seal(subject, newKey().toString('base64url'))]))))]);
    const keys = this.opened(kept);
    this.remember(wanted, keys);
    return keys;
  }

  /**
   * For a store that keeps new keys in the same commit as the events sealed with
   * them: the keys at hand, and new ones (not kept yet) for every other subject,
   * with their `texts` as the store keeps them. A subject that has a key already,
   * or was erased, makes that commit fail (`SubjectKeyTakenError`); the caller then
   * asks `keysFor`.
   */
  keysToMake(subjects: readonly string[]): KeysToMake {
    const keys = new Map<string, Buffer>();
    const texts = new Map<string, string>();
    for (const subject of subjects) {
      if (keys.has(subject)) continue;
      const known = this.atHand.get(subject);
      if (known) {
        keys.set(subject, known);
        continue;
      }
      const key = newKey();
      keys.set(subject, key);
      texts.set(subject, this.keyring.seal(subject, key.toString('base64url')));
    }
    return { keys, texts };
  }

  /** The keys the subjects have, making none (absent: not written yet, or erased). */
  async existingKeys(subjects: readonly string[]): Promise<ReadonlyMap<string, Buffer>> {
    const wanted = [...new Set(subjects)];
    if (wanted.length === 0) return new Map();
    const keys = this.opened(await this.store.get(wanted));
    this.remember(wanted, keys);
    return keys;
  }

  /** Destroys the subject's key: every value sealed with it is unreadable from now on. */
  async erase(subject: string, at: Date): Promise<void> {
    this.atHand.delete(subject);
    await this.store.erase(subject, at);
    // Again: a read answered while the erasure was under way may have put it back.
    this.atHand.delete(subject);
    for (const listener of this.erasedListeners) listener(subject);
  }

  /** Calls `listener` after each erasure made through this object (what keeps opened values in memory drops them). */
  onErased(listener: (subject: string) => void): () => void {
    this.erasedListeners.add(listener);
    return () => this.erasedListeners.delete(listener);
  }

  erasedAt(subject: string): Promise<Date | null> {
    return this.store.erasedAt(subject);
  }

  /** Keeps at hand the keys `keys` has of `subjects`, and forgets those of the others (erased, or never made). */
  private remember(subjects: readonly string[], keys: ReadonlyMap<string, Buffer>): void {
    for (const subject of subjects) {
      const key = keys.get(subject);
      this.atHand.delete(subject);
      if (key) this.atHand.set(subject, key);
    }
    while (this.atHand.size > KEPT_AT_HAND) this.atHand.delete(this.atHand.keys().next().value!);
  }

  private opened(stored: ReadonlyMap<string, string>): ReadonlyMap<string, Buffer> {
    return new Map([...stored].map(([subject, text]) => [subject, Buffer.from(this.keyring.open(subject, text), 'base64url')]));
  }
}
