import type { Server } from 'node:http';
import type { Config } from '../config.js';
import type { TlsFiles } from '../ops/tlsFiles.js';
import { supervisedMetrics } from '../ops/workerMetrics.js';
import type { IpcEndpoint } from '../shared/IpcEndpoint.js';
import { buildApp, type AppParts } from './buildApp.js';
import { listen, type ServerTimeouts } from './listen.js';

/** The HTTP side of a process, once it listens (or decided not to). */
export interface HttpSide {
  /** Null in a process told to listen on no port (API_WORKERS' background process without BACKGROUND_PORT). */
  readonly server: Server | null;
  /** The port actually listened on (PORT=0 picks a free one); null when none. */
  readonly port: number | null;
  /** The start completed: resource routes answer from now on (until then 503 `STARTING`). */
  started(): void;
  /** A graceful stop began: /ready fails and responses carry `Connection: close`. */
  beginStopping(): void;
  /** Stops listening and cuts every connection (a failed start's rollback). */
  close(): Promise<void>;
}

/**
 * Listens while the read side catches up, so /health and /ready answer (and say
 * what the start waits for); resource routes answer 503 `STARTING` until
 * `started()`. An API worker of API_WORKERS answers GET /metrics with every
 * worker's figures, added up by its supervisor.
 */
export const startHttp = async (
  config: Config,
  parts: Omit<AppParts, 'starting' | 'stopping' | 'renderMetrics'>,
  options: { readonly tls: TlsFiles | null; readonly timeouts: ServerTimeouts; readonly supervisor?: IpcEndpoint },
): Promise<HttpSide> => {
  let starting = true;
  let stopping = false;
  const workerMetrics = options.supervisor ? supervisedMetrics(() => parts.metrics.snapshot(), options.supervisor) : null;
  const flags = { started: () => void (starting = false), beginStopping: () => void (stopping = true) };
  if (config.port === null) return { server: null, port: null, ...flags, close: async () => workerMetrics?.stop() };
  const app = buildApp({
    ...parts,
    starting: () => starting,
    stopping: () => stopping,
    ...(workerMetrics ? { renderMetrics: workerMetrics.render } : {}),
  });
  try {
    const { server, port } = await listen(app, { host: config.host, port: config.port, tls: options.tls, timeouts: options.timeouts });
    const close = async () => {
      workerMetrics?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return { server, port, ...flags, close };
  } catch (error) {
    workerMetrics?.stop();
    throw error;
  }
};
