import type { Server } from 'node:http';
import type { Logger } from '../application/ports/Logger.js';
import type { UsageRecorder } from '../application/usage/UsageRecorder.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import { realSleep, type Sleep } from '../webhooks/dispatcher.js';
import type { ReadSide } from './readSide.js';
import type { ChronicleWebhooks } from './webhooks.js';
import { closeStores, type Stores } from './Stores.js';

/** How a graceful stop went. */
export interface CloseReport {
  /**
   * False when the bound ran out: requests still in flight were cut off, delivery
   * attempts aborted, or a stop of store work (the fan-out's last batch, the read
   * side, closing the stores) did not finish in time.
   */
  readonly complete: boolean;
  readonly ms: number;
  /** The steps cut off at the bound (`requests`, `webhooks`, `read side`, `stores`); empty when complete. */
  readonly cutOff: readonly string[];
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
  /** The time the bound is kept by; default the system's (tests give one that moves when told). */
  readonly clock?: Clock;
  readonly sleep?: Sleep;
}

/** How the stop tells the time and waits for its bounds. */
interface Timing {
  readonly now: () => number;
  readonly sleep: Sleep;
}

/**
 * Graceful stop within `timeoutMs`: stops accepting connections and closes idle
 * ones, lets requests in flight finish, stops the webhook fan-out (its last batch
 * and checkpoint stored) and gives delivery attempts in flight the rest of the
 * bound, then stops the read side and closes every store, each of these steps
 * bounded within the same budget (store work may wait long for a server). What is
 * still running when the bound is near is cut off and named in the report.
 * Idempotent: every call gets the first call's outcome.
 */
export const gracefulClose = (running: Running): ((options?: { readonly timeoutMs?: number }) => Promise<CloseReport>) => {
  let closing: Promise<CloseReport> | null = null;
  return (options = {}) =>
    (closing ??= (async () => {
      const { logger } = running;
      const clock = running.clock ?? systemClock;
      const timing: Timing = { now: () => clock.now().getTime(), sleep: running.sleep ?? realSleep };
      const started = timing.now();
      const budgetMs = options.timeoutMs ?? running.defaultTimeoutMs;
      // Kept back from the draining to stop the read side and close the stores; each of those
      // waits for a store (a MongoDB operation may wait 30 s to select a server), so each is
      // bounded too, the stores' close ending a little before the whole bound.
      const reserveMs = Math.min(1000, Math.floor(budgetMs / 4));
      const end = started + budgetMs - Math.min(200, Math.floor(reserveMs / 4));
      const drainUntil = started + budgetMs - reserveMs;
      const readSideUntil = drainUntil + Math.floor((end - drainUntil) / 2);
      running.beginStopping();
      logger.info({ budgetMs }, 'stopping: finishing the requests and deliveries in flight');
      // HTTP and webhooks drain side by side; the projections run until the requests are
      // done, since a write in flight waits for its read models.
      const [requestsDone, deliveriesDone] = await Promise.all([
        drainHttp(running.server, drainUntil, logger, timing),
        stopWebhooks(running.webhooks, drainUntil, logger, timing),
      ]);
      const [readSideDone] = await Promise.all([
        bounded('read side', running.readSide.stop(), readSideUntil, logger, timing),
        // The usage counted since its last write: lost when cut off, which leaves the stop complete.
        running.usage ? bounded('usage counters', running.usage.stop(), readSideUntil, logger, timing) : true,
      ]);
      const storesDone = await bounded('stores', closeStores(running.stores), end, logger, timing);
      const done = { requests: requestsDone, webhooks: deliveriesDone, 'read side': readSideDone, stores: storesDone };
      const cutOff = Object.entries(done).flatMap(([step, finished]) => (finished ? [] : [step]));
      const report: CloseReport = { complete: cutOff.length === 0, ms: timing.now() - started, cutOff };
      logger.info(report, 'stopped');
      return report;
    })());
};

/**
 * Waits for one step of the stop until `until`: true when it finished then, false
 * when the bound came first (it is left to run; the process exits regardless). A
 * step that fails has finished: its failure is logged.
 */
const bounded = async (step: string, work: Promise<unknown>, until: number, logger: Logger, timing: Timing): Promise<boolean> => {
  const failed = work.catch((error: unknown) => logger.error({ err: error, step }, `shutdown: stopping the ${step} failed`));
  if (await settlesBefore(failed, until, timing)) return true;
  logger.warn({ step }, `shutdown: stopping the ${step} did not finish within the bound; cut off`);
  return false;
};

/** Stops accepting connections; true when every request in flight was answered before `until`. */
const drainHttp = async (server: Server | null, until: number, logger: Logger, timing: Timing): Promise<boolean> => {
  if (!server) return true;
  // Also closes idle keep-alive connections at once (Node 19+); busy ones close once their response is sent.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  logger.info({ connections: await connectionCount(server) }, 'stopped accepting connections');
  if (await settlesBefore(closed, until, timing)) return true;
  logger.warn({ connections: await connectionCount(server) }, 'shutdown: requests still in flight at the bound were cut off');
  server.closeAllConnections();
  await closed;
  return false;
};

/**
 * Stops the fan-out, then the dispatcher; true when no delivery attempt had to be
 * aborted and the fan-out's store work (its last batch and checkpoint) finished before `until`.
 */
const stopWebhooks = async (webhooks: ChronicleWebhooks | null, until: number, logger: Logger, timing: Timing): Promise<boolean> => {
  if (!webhooks) return true;
  // The fan-out's stop and the lease's release follow the attempts' grace: a little is kept for them.
  const leftMs = Math.max(0, until - timing.now());
  const graceMs = leftMs - Math.min(100, Math.floor(leftMs / 10));
  let finished = false;
  const stopped = webhooks.stop(graceMs).then((drained) => (finished = drained));
  if (!(await bounded('webhooks', stopped, until, logger, timing))) return false;
  if (!finished) logger.warn({ graceMs }, 'shutdown: webhook deliveries still in flight at the bound were aborted (sent again after a restart)');
  return finished;
};

const connectionCount = (server: Server): Promise<number> =>
  new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));

/** True when `work` settles before the time `until` (ms since the epoch), false when that time comes first. */
const settlesBefore = async (work: Promise<unknown>, until: number, timing: Timing): Promise<boolean> => {
  const settled = new AbortController();
  const late = timing.sleep(Math.max(0, until - timing.now()), settled.signal).then(() => false as const);
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    settled.abort();
  }
};
