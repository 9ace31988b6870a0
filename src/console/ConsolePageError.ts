/**
 * A request the console refuses, shown as a page: its status, a title and what
 * to do. `pageHeaders` go with it (a cleared cookie, Retry-After).
 */
export class ConsolePageError extends Error {
  override readonly name = 'ConsolePageError';
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly pageHeaders: Readonly<Record<string, string>> = {},
    /** Whether the page leads back to the console (not when there is no console to go back to: signed out). */
    readonly backToConsole = true,
  ) {
    super(detail);
  }
}
