/** The structured logger the application uses (pino's shape). */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
  /** Lets hot paths skip building a line that would not be written. */
  isLevelEnabled(level: 'debug' | 'info' | 'warn' | 'error'): boolean;
}

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  child: () => silentLogger,
  isLevelEnabled: () => false,
};
