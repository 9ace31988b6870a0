import { chmodSync, closeSync, fchmodSync, lstatSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../application/ports/Logger.js';

/** DATA_DIR: the server's user alone may list, read or write it. */
export const PRIVATE_FOLDER_MODE = 0o700;
/** Every file in DATA_DIR: read and written by the server's user alone. */
export const PRIVATE_FILE_MODE = 0o600;

/** Set on a folder every user may write to but only owners may delete from (/tmp): a shared folder, never tightened. */
const STICKY = 0o1000;

const isCode = (error: unknown, code: string): boolean => (error as NodeJS.ErrnoException).code === code;

/** Makes `folder` (and its missing parents) with mode 0700 whatever the umask; an existing folder is left as it is. */
export const makePrivateFolder = (folder: string): void => {
  const firstMade = mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  // The umask applies to mkdir's mode; chmod does not consult it.
  if (firstMade !== undefined) chmodSync(folder, PRIVATE_FOLDER_MODE);
};

/**
 * Creates `file`, empty, with mode 0600 whatever the umask, unless it exists.
 * SQLite then opens it as a new database, and creates its `-wal`, `-shm` and
 * `-journal` files with the database file's own mode (its unix VFS sets that mode
 * on them explicitly, past the umask), so they are private too.
 */
export const createPrivateFile = (file: string): void => {
  let fd: number;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if (isCode(error, 'EEXIST')) return;
    throw error;
  }
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeSync(fd);
  }
};

/** A mode as operators write it (`0644`). */
const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

/** Sets `mode` on `path` when its permission bits differ; says what it was, or null when it already had it. */
const tighten = (path: string, mode: number, currentMode: number): string | null => {
  if ((currentMode & 0o777) === mode) return null;
  chmodSync(path, mode);
  return octal(currentMode);
};

/**
 * Makes an existing DATA_DIR private at start: the folder 0700 and every regular
 * file directly in it 0600 (the SQLite files and their `-wal`, `-shm`, `-journal`
 * companions, whatever else was left there), however they were made before (an
 * earlier release, a permissive umask, a copied backup). Symbolic links are not
 * followed. Logs once what was changed, and (as a warning) what could not be: a
 * file of another user, or a shared folder such as /tmp (sticky bit), which is never
 * changed. A DATA_DIR that does not exist yet is left to be made private when made.
 */
export const tightenDataDir = (folder: string, logger: Logger): void => {
  const stats = statSync(folder, { throwIfNoEntry: false });
  // Missing: made private when made. Not a folder: opening the stores says so.
  if (!stats?.isDirectory()) return;
  const folderMode = stats.mode;
  const tightened: Record<string, string> = {};
  const refused: Record<string, string> = {};
  const attempt = (path: string, mode: number, currentMode: number) => {
    try {
      const before = tighten(path, mode, currentMode);
      if (before !== null) tightened[path] = `${before} → ${octal(mode)}`;
    } catch (error) {
      refused[path] = (error as NodeJS.ErrnoException).code ?? String(error);
    }
  };
  if ((folderMode & STICKY) !== 0) refused[folder] = 'a shared folder (sticky bit): DATA_DIR must be a folder of its own';
  else attempt(folder, PRIVATE_FOLDER_MODE, folderMode);
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats?.isFile()) attempt(path, PRIVATE_FILE_MODE, stats.mode);
  }
  if (Object.keys(tightened).length > 0) logger.info({ dataDir: folder, modes: tightened }, 'DATA_DIR made private to this user');
  if (Object.keys(refused).length > 0) logger.warn({ dataDir: folder, notChanged: refused }, 'DATA_DIR: could not make every entry private to this user');
};
