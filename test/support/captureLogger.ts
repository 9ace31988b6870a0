import type { Logger } from '../../src/application/ports/Logger.js';

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error' | 'debug';
  readonly obj: object;
  readonly msg: string | undefined;
}

/** A logger that keeps what it is told, for assertions. */
export const captureLogger = (): Logger & { readonly lines: LogLine[] } => {
  const lines: LogLine[] = [];
  const make = (): Logger => ({
    info: (obj, msg) => void lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => void lines.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => void lines.push({ level: 'error', obj, msg }),
    debug: (obj, msg) => void lines.push({ level: 'debug', obj, msg }),
    child: () => make(),
    isLevelEnabled: () => true,
  });
  return Object.assign(make(), { lines });
};
