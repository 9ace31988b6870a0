import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a test receiver got. */
export interface Received {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** Milliseconds since the receiver started. */
  readonly at: number;
}

/** What the receiver answers; `req` is already read. Return nothing to answer 200 yourself or never. */
export type Handle = (request: Received, res: ServerResponse) => void;

export interface Receiver {
  /** `http://<host>:<port>` */
  readonly url: string;
  readonly port: number;
  readonly requests: Received[];
  /** TCP connections accepted. */
  readonly connections: () => number;
  /** Requests being answered right now, and the most at once so far. */
  readonly inFlight: () => number;
  readonly maxInFlight: () => number;
  /** Answers of one path (default: 200 "ok"). */
  on(path: string, handle: Handle): void;
  /** Ids (`webhook-id`) of the requests to a path, in arrival order. */
  ids(path: string): string[];
  close(): Promise<void>;
}

/**
 * A local webhook receiver on 127.0.0.1 (loopback only), or on `host`, an address of this
 * machine (a test network's bridge), closed by `close`.
 */
export const startReceiver = async (host = '127.0.0.1'): Promise<Receiver> => {
  const requests: Received[] = [];
  const handlers = new Map<string, Handle>();
  const sockets = new Set<Socket>();
  let connections = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const started = Date.now();
  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => (inFlight -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now() - started,
      };
      requests.push(received);
      const handle = handlers.get(received.path);
      if (handle) handle(received, res);
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    connections: () => connections,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    on: (path, handle) => void handlers.set(path, handle),
    ids: (path) => requests.filter((r) => r.path === path).map((r) => String(r.headers['webhook-id'])),
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
