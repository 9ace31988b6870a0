/** A stream kept changing under a command for every one of its bounded attempts; the client may retry. */
export class ConcurrencyExhaustedError extends Error {
  override readonly name = 'ConcurrencyExhaustedError';
  constructor(
    readonly stream: string,
    readonly attempts: number,
  ) {
    super(`Stream ${stream} kept changing; gave up after ${attempts} attempts`);
  }
}
