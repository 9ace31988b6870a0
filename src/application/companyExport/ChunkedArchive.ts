import { createHash, type Hash } from 'node:crypto';
import type { CompanyExportStore } from '../ports/CompanyExportStore.js';
import { END_OF_ARCHIVE, paddingOf, ustarHeader } from './ustar.js';

/** What one part of an archive holds: its name, how many lines, how many bytes, and their SHA-256 (hex). */
export interface ArchivePart {
  readonly name: string;
  readonly count: number;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * A tar archive written into a store as numbered chunks, never whole in memory:
 * a part's bytes go out in chunks of about `chunkBytes` as they come, and its
 * header, which needs the part's size, goes last into a chunk number kept for it
 * before the part began. The first chunk number is kept for the manifest, written
 * when every part's size and hash are known; read in their order, the chunks are
 * the archive.
 */
export class ChunkedArchive {
  private nextSeq = 0;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private total = 0;
  private part: { readonly name: string; readonly headerSeq: number; readonly hash: Hash; count: number; bytes: number } | null = null;

  constructor(
    private readonly store: Pick<CompanyExportStore, 'writeChunk'>,
    private readonly exportId: string,
    private readonly mtime: Date,
    private readonly chunkBytes: number,
  ) {}

  /** Keeps a chunk number, after everything written so far, for a header written later. */
  async reserve(): Promise<number> {
    await this.flush();
    return this.nextSeq++;
  }

  async beginPart(name: string): Promise<void> {
    if (this.part) throw new Error(`part ${this.part.name} is not ended`);
    this.part = { name, headerSeq: await this.reserve(), hash: createHash('sha256'), count: 0, bytes: 0 };
  }

  /** One NDJSON line of the current part. */
  async line(value: unknown): Promise<void> {
    const part = this.part;
    if (!part) throw new Error('no part begun');
    const bytes = Buffer.from(`${JSON.stringify(value)}\n`);
    part.hash.update(bytes);
    part.count += 1;
    part.bytes += bytes.length;
    await this.append(bytes);
  }

  async endPart(): Promise<ArchivePart> {
    const part = this.part;
    if (!part) throw new Error('no part begun');
    this.part = null;
    await this.append(paddingOf(part.bytes));
    await this.flush();
    await this.store.writeChunk(this.exportId, part.headerSeq, ustarHeader(part.name, part.bytes, this.mtime));
    this.total += 512;
    return { name: part.name, count: part.count, bytes: part.bytes, sha256: part.hash.digest('hex') };
  }

  /** A whole small entry (the manifest) into a chunk number kept for it. */
  async writeEntryAt(seq: number, name: string, content: Buffer): Promise<void> {
    await this.store.writeChunk(this.exportId, seq, Buffer.concat([ustarHeader(name, content.length, this.mtime), content, paddingOf(content.length)]));
    this.total += 512 + content.length + paddingOf(content.length).length;
  }

  /** Ends the archive; answers its size in bytes. */
  async end(): Promise<number> {
    await this.append(END_OF_ARCHIVE);
    await this.flush();
    return this.total;
  }

  private async append(bytes: Buffer): Promise<void> {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= this.chunkBytes) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const chunk = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    await this.store.writeChunk(this.exportId, this.nextSeq++, chunk);
    this.total += chunk.length;
  }
}
