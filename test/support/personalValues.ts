import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** Every spelling a stored or logged value could take: as sent, lower- and upper-cased, URL-escaped, and a number's digits. */
export const spellingsOf = (value: string): string[] => {
  const spellings = new Set([value, value.toLowerCase(), value.toUpperCase(), encodeURIComponent(value), encodeURIComponent(value.toLowerCase())]);
  const digits = value.replace(/\D/g, '');
  if (digits.length >= 8) spellings.add(digits);
  return [...spellings];
};
