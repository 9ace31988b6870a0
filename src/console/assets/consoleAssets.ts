import { createHash } from 'node:crypto';
import { CONSOLE_JS } from './consoleScript.js';
import { CONSOLE_CSS } from './consoleStyles.js';

/** A file the console serves: its type and bytes. */
export interface ConsoleAsset {
  readonly type: string;
  readonly body: Buffer;
}

/** The only files under /console/assets/ (a fixed list: no path from a request reaches the file system). */
export const CONSOLE_ASSETS: Readonly<Record<string, ConsoleAsset>> = {
  'console.css': { type: 'text/css; charset=utf-8', body: Buffer.from(CONSOLE_CSS, 'utf8') },
  'console.js': { type: 'text/javascript; charset=utf-8', body: Buffer.from(CONSOLE_JS, 'utf8') },
};

/** Changes with their content: pages ask for `?v=<it>`, so a new release is never served an old cached file. */
export const CONSOLE_ASSETS_VERSION = createHash('sha256').update(CONSOLE_CSS).update(CONSOLE_JS).digest('hex').slice(0, 12);
