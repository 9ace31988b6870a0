/**
 * A store cannot take the write now, for a reason that passes (its storage is
 * full, its lock could not be had in time, its server is changing hands). Nothing
 * of the write was stored, but for `interrupted`: the connection broke while a
 * write ran, and whether it was stored could not be found out. Raised by adapters
 * in place of their driver's error; the HTTP layer answers 503 with `Retry-After`.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(
    /**
     * `storage_full`: no space left (disk, or the operator's quota); `busy`: the store's lock was not
     * free in time, or its server could not be reached (nothing was written); `interrupted`: the
     * connection broke while a write ran, and whether it was stored is unknown.
     */
    readonly reason: 'storage_full' | 'busy' | 'interrupted',
    /** A suggested wait before trying again, in seconds. */
    readonly retryAfterSeconds: number,
    options?: { readonly cause?: unknown },
  ) {
    super(
      reason === 'storage_full'
        ? 'The store is full: nothing was written'
        : reason === 'busy'
          ? 'The store is busy: nothing was written'
          : 'The connection to the store broke during a write: whether it was stored is unknown',
      options,
    );
  }
}
