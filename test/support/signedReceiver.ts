import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface SignedReceiver {
  readonly url: string;
  /** Every delivery received: its headers and body. */
  readonly received: readonly { readonly headers: Record<string, string>; readonly body: string }[];
  /** The deliveries that verify with `secret` (Standard Webhooks), as their envelopes. */
  verifiedWith(secret: string): Record<string, unknown>[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps what it got. */
export const startSignedReceiver = async (): Promise<SignedReceiver> => {
  const received: { headers: Record<string, string>; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers as Record<string, string>, body });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    verifiedWith: (secret) =>
      received.flatMap(({ headers, body }) => {
        try {
          return [new Webhook(secret).verify(body, headers) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** A receiver on 127.0.0.1 that fails every delivery with a 500, a cookie and the body echoed back. */
export const startFailingReceiver = async (): Promise<{ url: string; close: () => Promise<void> }> => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => res.writeHead(500, { 'content-type': 'application/json', 'set-cookie': 'session=s3cr3t-cookie' }).end(`{"error":"down for maintenance","got":${body}}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/failing`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
