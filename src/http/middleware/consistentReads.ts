import type { Middleware } from 'koa';
import type { ReadModelProgress } from '../../application/subscriptions/ReadModelProgress.js';
import { isPosition } from '../../shared/Position.js';
import { HttpError } from '../HttpError.js';

export const LOG_POSITION_HEADER = 'X-Log-Position';
export const MIN_LOG_POSITION_HEADER = 'X-Min-Log-Position';
/** Set (`timeout`) on an answer whose wait for the read models ran out: it may not show the position waited for. */
export const READ_YOUR_WRITES_HEADER = 'X-Read-Your-Writes';

/** Waits (bounded) for the read models to apply `position`; says so on the answer when the wait ran out. */
export const waitForReadModels = async (
  ctx: { set(name: string, value: string): void },
  progress: ReadModelProgress,
  position: string,
  timeoutMs: number,
): Promise<void> => {
  if (!(await progress.waitFor(position, timeoutMs))) ctx.set(READ_YOUR_WRITES_HEADER, 'timeout');
};

/**
 * Read-your-writes across instances: every write answers with `X-Log-Position`;
 * a read that sends it back as `X-Min-Log-Position` waits (bounded) until this
 * instance's read models have applied it. When the wait runs out, the answer
 * says so (`X-Read-Your-Writes: timeout`) rather than pass a stale read for a fresh one.
 */
export const consistentReads =
  (progress: ReadModelProgress, timeoutMs: number): Middleware =>
  async (ctx, next) => {
    const wanted = ctx.get(MIN_LOG_POSITION_HEADER);
    if (wanted === '' || ctx.method !== 'GET') return next();
    if (!isPosition(wanted)) {
      throw new HttpError(400, 'Bad request', `${MIN_LOG_POSITION_HEADER} must be a log position (a non-negative integer).`);
    }
    await waitForReadModels(ctx, progress, wanted, timeoutMs);
    await next();
  };

/** Waits for a write's own events to reach the read models, and tells the client where they are. */
export const afterWrite = async (
  ctx: { set(name: string, value: string): void },
  progress: ReadModelProgress,
  position: string | null,
  timeoutMs: number,
): Promise<void> => {
  if (position === null) return;
  ctx.set(LOG_POSITION_HEADER, position);
  await waitForReadModels(ctx, progress, position, timeoutMs);
};
