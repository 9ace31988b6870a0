import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ErasureJournal } from '../../application/ports/ErasureJournal.js';
import { erasureLine, type ErasureRecord } from '../../shared/ErasureRecord.js';

/** Flushes a folder's entries to disk (a file just made there), where the system can. */
const syncFolder = async (folder: string): Promise<void> => {
  const handle = await open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * The erasure journal in a file of its own (ERASURE_JOURNAL): one line per erasure,
 * appended with `O_APPEND` (each line in one write, so that processes appending at
 * once never interleave their lines) and flushed to disk (`fsync`) before `append`
 * resolves. The file is made, readable and writable by its owner only, by `open`.
 */
export class FileErasureJournal implements ErasureJournal {
  private constructor(readonly location: string) {}

  /** Makes the file when it does not exist yet (and flushes its folder); fails when it cannot be written. */
  static async open(path: string): Promise<FileErasureJournal> {
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
    await handle.close();
    await syncFolder(dirname(path));
    return new FileErasureJournal(path);
  }

  async append(record: ErasureRecord): Promise<void> {
    const handle = await open(this.location, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
    try {
      await handle.write(erasureLine(record));
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async read(): Promise<string> {
    try {
      return await readFile(this.location, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    }
  }
}
