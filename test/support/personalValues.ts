import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A webhook receiver on 127.0.0.1 answering `code` to every delivery, counting them. */
export const startCountingReceiver = async (code: number): Promise<{ url: string; count: () => number; close: () => Promise<void> }> => {
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(code).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

/**
 * A receiver on 127.0.0.1 that answers `code` with the request's body echoed back as its
 * own (and its first bytes in a header), as some receivers and debugging tools do: what
 * it answers lands in the delivery log.
 */
export const startEchoReceiver = async (code: number): Promise<{ url: string; count: () => number; close: () => Promise<void> }> => {
  let received = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received += 1;
      const body = Buffer.concat(chunks).toString('utf8');
      res.writeHead(code, { 'content-type': 'application/json', 'x-echo': encodeURIComponent(body.slice(0, 200)) }).end(`{"received":${body}}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`,
    count: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

/**
 * Every spelling a stored or logged value could take: as sent, lower- and upper-cased, URL-escaped, and a
 * number's digits. Only a value written as a number (digits, spaces, `+ ( ) . / -`, a phone number) has its
 * digits alone as a spelling: the digits inside a name or an address are no spelling of it (a name ending in
 * a random suffix that came out all digits found that suffix in an `Idempotency-Key` sent with it).
 */
export const spellingsOf = (value: string): string[] => {
  const spellings = new Set([value, value.toLowerCase(), value.toUpperCase(), encodeURIComponent(value), encodeURIComponent(value.toLowerCase())]);
  const digits = value.replace(/\D/g, '');
  if (digits.length >= 8 && /^[\d\s+()./-]+$/.test(value)) spellings.add(digits);
  return [...spellings];
};

/** Every file under `dir`, recursively, but those under a folder named in `skip`. */
export const filesUnder = (dir: string, skip: readonly string[] = []): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (skip.includes(name)) return [];
    return statSync(path).isDirectory() ? filesUnder(path, skip) : [path];
  });

/** The spellings found in any of `files` (as UTF-8 bytes), each with the file that holds it. */
export const bytesFound = (files: readonly string[], spellings: readonly string[]): string[] =>
  files.flatMap((file) => {
    const bytes = readFileSync(file);
    return spellings.filter((spelling) => bytes.includes(Buffer.from(spelling, 'utf8'))).map((spelling) => `${spelling} in ${file}`);
  });
