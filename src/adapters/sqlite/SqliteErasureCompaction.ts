import { timedStep, type CompactionStep, type ErasureCompaction } from '../../application/ports/ErasureCompaction.js';
import { truncateWal, type SqliteDatabase } from './openSqliteDatabase.js';

const KEPT_BY_READER = 'a reader kept the write-ahead log; run it again';

/**
 * The embedded engine's compaction: each file that holds personal values (the
 * log's, with its outbox, kept responses and keys; the read models') rebuilt by
 * `VACUUM`, which leaves no free page (pages freed before `secure_delete` was on,
 * in files of earlier releases, may still hold values), then its write-ahead log
 * emptied. The read models' file is compacted by the connection that writes it
 * (`compactReadModels`: their full-text indexes merged first).
 */
export class SqliteErasureCompaction implements ErasureCompaction {
  constructor(
    private readonly log: SqliteDatabase,
    private readonly readModels: { readonly file: string; vacuum(): Promise<{ readonly walTruncated: boolean }> },
  ) {}

  async compact(): Promise<readonly CompactionStep[]> {
    const log = await timedStep('chronicle.sqlite: VACUUM, write-ahead log emptied', async () => {
      this.log.exec('VACUUM');
      return truncateWal(this.log) ? { done: true } : { done: false, note: KEPT_BY_READER };
    });
    const readModels = await timedStep(`${this.readModels.file}: full-text indexes merged, VACUUM, write-ahead log emptied`, async () => {
      const { walTruncated } = await this.readModels.vacuum();
      return walTruncated ? { done: true } : { done: false, note: KEPT_BY_READER };
    });
    return [log, readModels];
  }
}
