/** A stream kept changing under a command for every one of its bounded attempts; the client may retry. */
export class ConcurrencyExhaustedError extends Error {
  override readonly name = 'ConcurrencyExhaustedError';
  constructor(
    readonly stream: string,
    readonly attempts: number,
    /** What the message names: the stream as it is stored (never a person's value; see `WrongExpectedRevisionError.storedAs`). */
    shownAs: string = stream,
  ) {
    super(`Stream ${shownAs} kept changing; gave up after ${attempts} attempts`);
  }

  /** After the last of `attempts` found the stream of `error` moved. */
  static after(error: { readonly stream: string; readonly storedAs: string }, attempts: number): ConcurrencyExhaustedError {
    return new ConcurrencyExhaustedError(error.stream, attempts, error.storedAs);
  }
}
