import type { Server } from 'node:http';
import type { Logger } from '../application/ports/Logger.js';
import type { UsageRecorder } from '../application/usage/UsageRecorder.js';
import { withTimeout } from '../ops/withTimeout.js';
import type { ReadSide } from './readSide.js';
import type { ChronicleWebhooks } from './webhooks.js';
import { closeStores, type Stores } from './Stores.js';

/** How a graceful stop went. */
export interface CloseReport {
  /** False when the bound ran out: requests still in flight were cut off, or delivery attempts aborted. */
  readonly complete: boolean;
  readonly ms: number;
}

export interface Running {
  /** Null in a process that listens on no port. */
  readonly server: Server | null;
  readonly readSide: ReadSide;
  readonly webhooks: ChronicleWebhooks | null;
  readonly stores: Stores;
  /** Usage counted since its last write: written before the stores close. */
  readonly usage?: UsageRecorder;
  readonly logger: Logger;
  /** Marks the stop as begun: /ready fails and responses carry `Connection: close`. */
  readonly beginStopping: () => void;
  /** The whole stop's bound unless a call gives another. */
  readonly defaultTimeoutMs: number;
}

/**
 * Graceful stop within `timeoutMs`: stops accepting connections and closes idle
 * ones, lets requests in flight finish, stops the webhook fan-out (its last batch
 * and checkpoint stored) and gives delivery attempts in flight the rest of the
 * bound, then stops the read side and closes every store. What is still running
 * when the bound is near is cut off. Idempotent: every call gets the first call's outcome.
 */
export const gracefulClose = (running: Running): ((options?: { readonly timeoutMs?: number }) => Promise<CloseReport>) => {
  let closing: Promise<CloseReport> | null = null;
  return (options = {}) =>
    (closing ??= (async () => {
      const { logger } = running;
      const started = Date.now();
      const budgetMs = options.timeoutMs ?? running.defaultTimeoutMs;
      // Kept back from the draining to stop the read side and close the stores.
      const reserveMs = Math.min(1000, Math.floor(budgetMs / 4));
      const drainUntil = started + budgetMs - reserveMs;
      running.beginStopping();
      logger.info({ budgetMs }, 'stopping: finishing the requests and deliveries in flight');
      // HTTP and webhooks drain side by side; the projections run until the requests are
      // done, since a write in flight waits for its read models.
      const [requestsDone, deliveriesDone] = await Promise.all([
        drainHttp(running.server, drainUntil, logger),
        stopWebhooks(running.webhooks, drainUntil, logger),
      ]);
      await running.readSide.stop();
      await flushUsage(running, Math.max(100, reserveMs / 2));
      await closeStores(running.stores);
      const report: CloseReport = { complete: requestsDone && deliveriesDone, ms: Date.now() - started };
      logger.info(report, 'stopped');
      return report;
    })());
};

/** Writes the usage counted since the last write, within `ms` (a store that does not answer loses them, never the stop). */
const flushUsage = async (running: Running, ms: number): Promise<void> => {
  if (!running.usage) return;
  try {
    await withTimeout(running.usage.stop(), ms);
  } catch (error) {
    running.logger.warn({ err: error }, 'shutdown: the last usage counts could not be written');
  }
};

/** Stops accepting connections; true when every request in flight was answered before `until`. */
const drainHttp = async (server: Server | null, until: number, logger: Logger): Promise<boolean> => {
  if (!server) return true;
  // Also closes idle keep-alive connections at once (Node 19+); busy ones close once their response is sent.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  logger.info({ connections: await connectionCount(server) }, 'stopped accepting connections');
  if (await settlesBefore(closed, until)) return true;
  logger.warn({ connections: await connectionCount(server) }, 'shutdown: requests still in flight at the bound were cut off');
  server.closeAllConnections();
  await closed;
  return false;
};

/** Stops the fan-out, then the dispatcher; true when no delivery attempt had to be aborted before `until`. */
const stopWebhooks = async (webhooks: ChronicleWebhooks | null, until: number, logger: Logger): Promise<boolean> => {
  if (!webhooks) return true;
  const graceMs = Math.max(0, until - Date.now());
  const finished = await webhooks.stop(graceMs);
  if (!finished) logger.warn({ graceMs }, 'shutdown: webhook deliveries still in flight at the bound were aborted (sent again after a restart)');
  return finished;
};

const connectionCount = (server: Server): Promise<number> =>
  new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));

/** True when `work` settles before the time `until` (ms since the epoch), false when that time comes first. */
const settlesBefore = async (work: Promise<unknown>, until: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, until - Date.now()))));
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
};
