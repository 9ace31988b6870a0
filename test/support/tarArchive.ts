import { createHash } from 'node:crypto';
import { BLOCK, parseUstarHeader } from '../../src/application/companyExport/ustar.js';

export interface TarEntry {
  readonly name: string;
  readonly content: Buffer;
}

/** Every entry of a whole tar archive in memory (tests: small archives), checking its blocks and its end. */
export const tarEntries = (archive: Buffer): TarEntry[] => {
  const entries: TarEntry[] = [];
  let offset = 0;
  for (;;) {
    if (offset + BLOCK > archive.length) throw new Error('the archive ends without its two blocks of zeros');
    const entry = parseUstarHeader(archive.subarray(offset, offset + BLOCK));
    if (entry === null) {
      if (!archive.subarray(offset).every((byte) => byte === 0) || archive.length - offset !== 2 * BLOCK) throw new Error('bytes after the end of the archive');
      return entries;
    }
    const start = offset + BLOCK;
    entries.push({ name: entry.name, content: archive.subarray(start, start + entry.size) });
    offset = start + Math.ceil(entry.size / BLOCK) * BLOCK;
  }
};

/** The lines of an NDJSON part, parsed. */
export const ndjson = (content: Buffer): any[] =>
  content
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

export const sha256 = (content: Buffer): string => createHash('sha256').update(content).digest('hex');
