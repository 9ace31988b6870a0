import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 to `target` that can be cut: while cut, nothing flows
 * either way (what arrives is held back) and new connections are accepted but not
 * carried on, as when a link is down and TCP keeps retransmitting; once restored,
 * everything goes on where it stopped, in order. Where a test cannot take a network
 * link down (no network namespaces), a process's database connections go through one.
 */
export interface CutProxy {
  readonly port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** One direction of a carried connection: its chunks written on at once, or held while cut. */
interface Direction {
  to: Socket | null;
  readonly held: Buffer[];
}

export const startCutProxy = async (target: { readonly host: string; readonly port: number }): Promise<CutProxy> => {
  const sockets = new Set<Socket>();
  const flushers = new Set<() => void>();
  let isCut = false;

  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  /** Carries `client`'s connection on (upstream connected now, or once the link is restored). */
  const accept = (client: Socket): void => {
    track(client);
    let upstream: Socket | null = null;
    const up: Direction = { to: null, held: [] };
    const down: Direction = { to: client, held: [] };
    const send = (direction: Direction, chunk: Buffer): void => {
      if (isCut || direction.to === null) direction.held.push(chunk);
      else direction.to.write(chunk);
    };
    const flush = (): void => {
      if (upstream === null) {
        upstream = connect(target.port, target.host);
        track(upstream);
        up.to = upstream;
        upstream.on('data', (chunk: Buffer) => send(down, chunk));
        upstream.once('close', () => client.destroy());
        client.once('close', () => upstream?.destroy());
      }
      for (const direction of [up, down]) direction.held.splice(0).forEach((chunk) => direction.to!.write(chunk));
    };
    client.on('data', (chunk: Buffer) => send(up, chunk));
    client.once('close', () => flushers.delete(flush));
    flushers.add(flush);
    if (!isCut) flush();
  };

  const server: Server = createServer(accept);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      isCut = true;
    },
    restore: () => {
      isCut = false;
      flushers.forEach((flush) => flush());
    },
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
