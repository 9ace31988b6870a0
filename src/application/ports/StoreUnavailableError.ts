/**
 * A store cannot take the write now, for a reason that passes (its storage is
 * full, its lock could not be had in time). Nothing of the write was stored. Raised
 * by adapters in place of their driver's error; the HTTP layer answers 503 with
 * `Retry-After`.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(
    /** `storage_full`: no space left (disk, or the operator's quota); `busy`: the store's lock was not free in time. */
    readonly reason: 'storage_full' | 'busy',
    /** A suggested wait before trying again, in seconds. */
    readonly retryAfterSeconds: number,
    options?: { readonly cause?: unknown },
  ) {
    super(reason === 'storage_full' ? 'The store is full: nothing was written' : 'The store is busy: nothing was written', options);
  }
}
