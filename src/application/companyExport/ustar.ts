/** A tar block: headers and every entry's content are padded to a multiple of it. */
export const BLOCK = 512;

const field = (header: Buffer, offset: number, length: number, text: string): void => {
  header.write(text, offset, length, 'utf8');
};

/** An octal number in a header field of `length` bytes: digits, then a NUL. */
const octal = (header: Buffer, offset: number, length: number, value: number): void => {
  field(header, offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
};

/** The header of a regular file (POSIX ustar) of `size` bytes named `name` (at most 100 bytes), modified at `mtime`. */
export const ustarHeader = (name: string, size: number, mtime: Date): Buffer => {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const header = Buffer.alloc(BLOCK);
  field(header, 0, 100, name);
  octal(header, 100, 8, 0o600); // mode
  octal(header, 108, 8, 0); // uid
  octal(header, 116, 8, 0); // gid
  octal(header, 124, 12, size);
  octal(header, 136, 12, Math.floor(mtime.getTime() / 1000));
  field(header, 148, 8, '        '); // the checksum counts its own field as spaces
  field(header, 156, 1, '0'); // a regular file
  field(header, 257, 6, 'ustar\0');
  field(header, 263, 2, '00');
  let sum = 0;
  for (const byte of header) sum += byte;
  field(header, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return header;
};

/** The zeros that pad `size` bytes of content to a whole block. */
export const paddingOf = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** The end of an archive: two blocks of zeros. */
export const END_OF_ARCHIVE = Buffer.alloc(2 * BLOCK);

/** One entry as a header tells it: its name and content size; null for a block of zeros (the end). */
export interface UstarEntry {
  readonly name: string;
  readonly size: number;
}

const text = (header: Buffer, offset: number, length: number): string => {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
};

/** Reads one header block; null for the end's zeros. Throws for a block that is not a valid header. */
export const parseUstarHeader = (header: Buffer): UstarEntry | null => {
  if (header.length !== BLOCK) throw new Error('a tar header is 512 bytes');
  if (header.every((byte) => byte === 0)) return null;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  const recorded = parseInt(text(header, 148, 8).trim(), 8);
  if (recorded !== sum) throw new Error('a tar header has a wrong checksum');
  const size = parseInt(text(header, 124, 12).trim(), 8);
  if (!Number.isSafeInteger(size) || size < 0) throw new Error('a tar header has no valid size');
  return { name: text(header, 0, 100), size };
};
