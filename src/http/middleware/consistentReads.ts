import type { Middleware } from 'koa';
import type { ReadModelProgress } from '../../application/ReadModelProgress.js';
import { isPosition } from '../../shared/Position.js';
import { HttpError } from '../HttpError.js';

export const LOG_POSITION_HEADER = 'X-Log-Position';
export const MIN_LOG_POSITION_HEADER = 'X-Min-Log-Position';

/**
 * Read-your-writes across instances: every write answers with `X-Log-Position`;
 * a read that sends it back as `X-Min-Log-Position` waits (bounded) until this
 * instance's read models have applied it.
 */
export const consistentReads =
  (progress: ReadModelProgress, timeoutMs: number): Middleware =>
  async (ctx, next) => {
    const wanted = ctx.get(MIN_LOG_POSITION_HEADER);
    if (wanted === '' || ctx.method !== 'GET') return next();
    if (!isPosition(wanted)) {
      throw new HttpError(400, 'Bad request', `${MIN_LOG_POSITION_HEADER} must be a log position (a non-negative integer).`);
    }
    await progress.waitFor(wanted, timeoutMs);
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
  await progress.waitFor(position, timeoutMs);
};
