import { createHmac } from 'node:crypto';

/** The key store's name for the key of stream names (never a person's: never erased). */
export const STREAM_NAMES_KEY_SUBJECT = 'chronicle:stream-names';

/** What starts the stored part that replaced a personal one: no escaped personal part starts so (they are digits and `%XX`). */
const HASHED_MARK = 'k';
/** 128 bits of the keyed hash, in hex. */
const HASHED_HEX_CHARS = 32;

/**
 * Stream names whose last part is a person's value (a phone number's reservation
 * stream, `phone-<company>-<number>`, declared by its feature): stored with that
 * part replaced by a keyed hash of the whole name (HMAC-SHA-256 under a key of the
 * key store, the first 128 bits in hex, after `k`), so that neither the log nor its
 * index on stream names holds the value. The same logical name always gives the
 * same stored one, so the uniqueness a reservation stream stands for is kept. A
 * stored name given again is left as it is.
 */
export class PersonalStreamNames {
  constructor(
    /** The prefixes of the streams whose last part (after the last `-`) is personal. */
    private readonly prefixes: readonly string[],
    private readonly key: Buffer,
  ) {}

  /** Whether `stream` is one of them with its personal part still in it (a name as the domain makes it, or as an earlier release stored it). */
  holdsValue(stream: string): boolean {
    if (!this.prefixes.some((prefix) => stream.startsWith(prefix))) return false;
    const cut = stream.lastIndexOf('-');
    return cut >= 0 && !stream.startsWith(HASHED_MARK, cut + 1);
  }

  /** The name `stream` is stored under. */
  stored(stream: string): string {
    if (!this.holdsValue(stream)) return stream;
    const cut = stream.lastIndexOf('-');
    return `${stream.slice(0, cut + 1)}${HASHED_MARK}${createHmac('sha256', this.key).update(stream, 'utf8').digest('hex').slice(0, HASHED_HEX_CHARS)}`;
  }
}
