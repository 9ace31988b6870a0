/** How long a console session lives: ended after `idleMs` without a request, and `maxMs` after it opened, whatever happens. */
export interface ConsoleSessionSettings {
  readonly idleMs: number;
  readonly maxMs: number;
}
