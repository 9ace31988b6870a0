import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { answerClientErrors } from '../http/clientErrorResponse.js';
import type { TlsFiles } from '../ops/tlsFiles.js';

/** Limits on slow clients: all headers within `headersMs`, the whole request within `requestMs`. */
export interface ServerTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  /** How often Node checks connections against those limits. */
  readonly checkEveryMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 };

/**
 * Serves `app` on `host`:`port` (port 0: any free one), over HTTPS when TLS files
 * are given. Rejects when it cannot listen there (port in use, address not of
 * this machine, not allowed), leaving no server behind.
 */
export const listen = async (
  app: Koa,
  options: { readonly host: string; readonly port: number; readonly tls: TlsFiles | null; readonly timeouts: ServerTimeouts },
): Promise<{ readonly server: Server; readonly port: number }> => {
  const { timeouts, tls } = options;
  // Slow-header and slow-body clients are cut off (408) by these limits.
  const serverOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: timeouts.checkEveryMs,
    keepAliveTimeout: 5_000,
  };
  const handler = app.callback();
  const server: Server = tls ? createHttpsServer({ ...serverOptions, ...tls }, handler) : createHttpServer(serverOptions, handler);
  // What Node's parser refuses (431, 400, 408) is answered with the spec's JSON error body.
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      server.close();
      reject(error);
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
};
