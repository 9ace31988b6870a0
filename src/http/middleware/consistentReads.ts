import type { Middleware } from 'koa';
import type { AnsweredWrites } from '../../application/subscriptions/AnsweredWrites.js';
import type { ReadModelProgress } from '../../application/subscriptions/ReadModelProgress.js';
import { comparePositions, isPosition, laterPosition, type Position } from '../../shared/Position.js';
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
 * Where a GET reads when the read models have a replica (`ReplicaReads`): `within`
 * runs the request so that its reads go to the replica, `waitFor` waits until they
 * show a position, moving them to the primary when the replica is too far behind.
 */
export interface ReplicaRouting {
  within<T>(work: () => Promise<T>): Promise<T>;
  waitFor(position: Position, timeoutMs: number): Promise<boolean>;
}

/** What a read that finds first keeps of the company's creates: its wait, done only on a miss (`findAfterCreates`). */
interface DeferredCreates {
  ownCreates?: () => Promise<void>;
}

/** The position a client asks reads to reflect (`X-Min-Log-Position`), or null; a malformed one is a 400. */
const minLogPosition = (ctx: { get(name: string): string }): Position | null => {
  const wanted = ctx.get(MIN_LOG_POSITION_HEADER);
  if (wanted === '') return null;
  if (!isPosition(wanted)) throw new HttpError(400, 'Bad request', `${MIN_LOG_POSITION_HEADER} must be a log position (a non-negative integer).`);
  return wanted;
};

/**
 * Read-your-writes on reads. A read that sends `X-Min-Log-Position` (a write's
 * `X-Log-Position`, answered by any instance) waits (bounded) until this
 * instance's read models have applied it. A read of a company also waits for the
 * creates this instance answered for that company before their read models had
 * applied them (`answered`; see `AnsweredWrites`), so that a client reads its own
 * creates here without sending anything. When the wait runs out, the answer says
 * so (`X-Read-Your-Writes: timeout`) rather than pass a stale read for a fresh one.
 *
 * A route in `findsFirst` (its template) does not wait for the company's creates
 * up front: it reads one document that no create changes once it exists, so it
 * looks first and waits only when the document is not there (`findAfterCreates`),
 * or it reads the log itself, which holds every answered create (decision 88).
 */
export const consistentReads = (
  progress: ReadModelProgress,
  timeoutMs: number,
  answered?: AnsweredWrites,
  findsFirst?: ReadonlySet<string>,
  replica?: ReplicaRouting,
): Middleware => {
  const reached = (position: Position, ms: number): Promise<boolean> => (replica ? replica.waitFor(position, ms) : progress.waitFor(position, ms));
  const consistent: Middleware = async (ctx, next) => {
    if (ctx.method !== 'GET') return next();
    const wanted = minLogPosition(ctx);
    const companyId = answered ? (ctx.state as { auth?: { companyId?: string } }).auth?.companyId : undefined;
    const own = answered && companyId !== undefined ? answered.before(companyId) : undefined;
    /** Waits (bounded) for `position` and the company's creates, the later of the two; says so, and marks the company, when it runs out. */
    const waitFor = async (position: Position | null): Promise<void> => {
      if (own?.kind === 'gave-up' && (position === null || comparePositions(position, own.position) <= 0)) {
        // A wait for this company's writes already ran out: answer now, as that one did.
        ctx.set(READ_YOUR_WRITES_HEADER, 'timeout');
        return;
      }
      const latest = own?.kind === 'wait' && (position === null || comparePositions(own.position, position) > 0) ? own.position : position;
      if (latest !== null && !(await reached(latest, timeoutMs))) {
        ctx.set(READ_YOUR_WRITES_HEADER, 'timeout');
        if (own?.kind === 'wait' && companyId !== undefined) answered?.gaveUp(companyId, own.position);
      }
    };
    if (own !== undefined && own.kind !== 'none' && wanted === null && findsFirst?.has((ctx.state as { route?: string }).route ?? '')) {
      // Waited for only if the document is not found.
      (ctx.state as DeferredCreates).ownCreates = () => waitFor(null);
      return next();
    }
    await waitFor(wanted);
    await next();
  };
  // With a replica, each GET chooses where it reads (the waits above may move it to the primary).
  return replica ? (ctx, next) => (ctx.method === 'GET' ? replica.within(() => consistent(ctx, next) as Promise<unknown>) : next()) : consistent;
};

/**
 * One document by id, on a route in `consistentReads`' `findsFirst`: a document
 * found is answered at once (no create of the company changes a document that
 * exists); one not found may be a create this instance answered a moment ago, so
 * the read waits for the company's creates (bounded) and looks once more.
 */
export const findAfterCreates = async <T>(state: unknown, find: () => Promise<T | null>): Promise<T | null> => {
  const found = await find();
  const wait = (state as DeferredCreates).ownCreates;
  if (found !== null || wait === undefined) return found;
  await wait();
  return find();
};

/**
 * Read-your-writes before a write that decides from the read models (which
 * contacts `POST /contacts/erase` matches): waits, as a read does (see
 * `consistentReads`), for `X-Min-Log-Position` and for the creates this instance
 * answered for the company, the later of the two; says so when the wait runs out.
 */
export const waitForOwnWrites = async (
  ctx: { get(name: string): string; set(name: string, value: string): void },
  deps: { readonly progress: ReadModelProgress; readonly answeredWrites: AnsweredWrites; readonly readYourWritesTimeoutMs: number },
  companyId: string,
): Promise<void> => {
  const own = deps.answeredWrites.before(companyId);
  const latest = laterPosition(minLogPosition(ctx), own.kind === 'none' ? null : own.position);
  if (latest !== null) await waitForReadModels(ctx, deps.progress, latest, deps.readYourWritesTimeoutMs);
};

/**
 * After a create that answers as soon as it is durable: tells the client where its
 * events are (`X-Log-Position`) and has this instance's next reads of the company
 * wait for them (`consistentReads`), instead of waiting here for the read models.
 */
export const afterCreate = (
  ctx: { set(name: string, value: string): void },
  answered: AnsweredWrites,
  companyId: string,
  position: string | null,
): void => {
  if (position === null) return;
  ctx.set(LOG_POSITION_HEADER, position);
  answered.answered(companyId, position);
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
