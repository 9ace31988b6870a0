import { Worker } from 'node:worker_threads';
import type { Logger } from '../application/ports/Logger.js';
import type { SendTurn, SentAttempt, TurnRequest } from './turnSender.js';

/**
 * The dispatcher's HTTP attempts on a thread of their own (`WEBHOOK_DELIVERY_THREAD`,
 * decision 203): the event loop reads a queue's turn of rows and records each attempt;
 * the thread signs and sends the turn's rows, each after the one before it got a 200,
 * without waiting for the records, and gives the attempts back at the end of the turn
 * or 100 ms after the first one it holds. One message per turn goes each way (more for a
 * slow receiver), so the loop pays a fraction of a message per delivery rather than the
 * HTTP client's work (an earlier thread that got one message per attempt, each way, cost
 * the loop what the requests had), and a turn's records share one commit.
 *
 * `threads` of them (`WEBHOOK_DELIVERY_THREADS`, 2 by default, decision 205): each turn
 * goes to the one sending the fewest turns, each started with its first turn. A queue has
 * one turn at a time, so its rows keep their order whichever thread sends them.
 *
 * What that changes for receivers: a process that dies mid-turn, or cannot write the
 * outbox, sends again the rows of the turn that were delivered but not recorded (at
 * least once, the same `webhook-id`), after the later rows of that turn; and when a row
 * stops being pending during a turn (its subscription ended), the rows of the turn the
 * thread had sent by then went out.
 */

/** Messages to the thread. */
export type ToDeliveryThread =
  | ({ readonly type: 'turn'; readonly id: number } & TurnRequest)
  /** `finish`: no more rows (the attempt in flight ends and is reported); `stop`: the attempt in flight aborted too. */
  | { readonly type: 'finish' | 'stop'; readonly id: number };

/** One message from the thread: the attempts and the turns' ends of one turn of its event loop. */
export interface FromDeliveryThread {
  readonly items: ReadonlyArray<
    | { readonly id: number; readonly attempts: readonly SentAttempt[] }
    | { readonly id: number; readonly end: true; readonly error?: string }
  >;
}

export interface DeliveryThreadOptions {
  readonly allowPrivateTargets: boolean;
  /** Idle keep-alive sockets per host (`createDeliveryAgent`). */
  readonly maxFreeSockets: number;
  readonly logger: Logger;
  /** Threads sending turns (each turn on the one with the fewest); default 1. */
  readonly threads?: number;
  /** The thread's script; default `deliveryThreadMain.js` (tests give one that can crash). */
  readonly entry?: URL;
  /** The longest a delivered attempt waits in the thread before it goes back; default 100 ms. */
  readonly reportAfterMs?: number;
}

export interface DeliveryThread {
  readonly sendTurn: SendTurn;
  /** Ends the thread and its connections (after the dispatcher stopped). */
  close(): Promise<void>;
}

/** What the event loop holds of a turn the thread is sending. */
interface TurnInThread {
  readonly attempts: SentAttempt[];
  /** The thread sending it (its index). */
  readonly thread: number;
  ended: boolean;
  error: Error | null;
  wake: (() => void) | null;
}

/** Starts each thread with the first turn it is given, and again with the next one after it exited. */
export const startDeliveryThread = (options: DeliveryThreadOptions): DeliveryThread => {
  const turns = new Map<number, TurnInThread>();
  let nextId = 0;
  const workers: Array<Worker | null> = Array.from({ length: Math.max(1, options.threads ?? 1) }, () => null);
  let closed = false;

  const wake = (turn: TurnInThread): void => {
    const resume = turn.wake;
    turn.wake = null;
    resume?.();
  };
  const onMessage = ({ items }: FromDeliveryThread): void => {
    for (const item of items) {
      const turn = turns.get(item.id);
      if (!turn) continue;
      if ('attempts' in item) turn.attempts.push(...item.attempts);
      else {
        turn.ended = true;
        if (item.error !== undefined) turn.error = new Error(item.error);
      }
      wake(turn);
    }
  };
  /** A thread is gone: every turn it had ends with an error (the dispatcher retries its queue). */
  const onGone = (index: number, started: Worker, error: Error): void => {
    if (workers[index] !== started) return;
    workers[index] = null;
    if (!closed) options.logger.error({ err: error }, 'webhook delivery thread stopped; a new one starts with the next turn');
    for (const turn of turns.values()) {
      if (turn.thread !== index) continue;
      turn.ended = true;
      turn.error ??= error;
      wake(turn);
    }
  };
  const thread = (index: number): Worker => {
    const running = workers[index];
    if (running) return running;
    const started = new Worker(options.entry ?? new URL('./deliveryThreadMain.js', import.meta.url), {
      workerData: {
        allowPrivateTargets: options.allowPrivateTargets,
        maxFreeSockets: options.maxFreeSockets,
        ...(options.reportAfterMs === undefined ? {} : { reportAfterMs: options.reportAfterMs }),
      },
      // Its garbage is short-lived request state: a young generation of 8 MB kept the process
      // about 20 MB smaller after 5,000 deliveries than V8's default, at the same rate.
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    started.on('message', onMessage);
    started.on('error', (error) => onGone(index, started, error));
    started.on('exit', (code) => onGone(index, started, new Error(`The webhook delivery thread exited with code ${code}`)));
    // The process lives as long as its server and its dispatcher, which close the thread.
    started.unref();
    workers[index] = started;
    return started;
  };
  /** The thread with the fewest turns (a few dozen at most are in flight). */
  const leastLoaded = (): number => {
    const load = workers.map(() => 0);
    for (const turn of turns.values()) load[turn.thread]! += 1;
    return load.indexOf(Math.min(...load));
  };

  const sendTurn: SendTurn = async function* (request, { finish, stop }) {
    if (closed) throw new Error('The webhook delivery thread is closed');
    if (stop.aborted) return;
    const id = nextId++;
    const index = leastLoaded();
    // Started (if need be) and given the turn before the turn is kept: a thread that cannot start throws here, holding nothing.
    thread(index).postMessage({ type: 'turn', id, url: request.url, secrets: request.secrets, rows: request.rows, timeoutMs: request.timeoutMs } satisfies ToDeliveryThread);
    const turn: TurnInThread = { attempts: [], thread: index, ended: false, error: null, wake: null };
    turns.set(id, turn);
    const post = (message: ToDeliveryThread): void => workers[index]?.postMessage(message);
    const onFinish = (): void => post({ type: 'finish', id });
    const onStop = (): void => post({ type: 'stop', id });
    finish.addEventListener('abort', onFinish, { once: true });
    stop.addEventListener('abort', onStop, { once: true });
    if (finish.aborted) onFinish();
    try {
      for (;;) {
        if (turn.attempts.length > 0) {
          yield turn.attempts.splice(0);
          continue;
        }
        if (turn.ended) {
          if (turn.error) throw turn.error;
          return;
        }
        await new Promise<void>((resolve) => (turn.wake = resolve));
      }
    } finally {
      finish.removeEventListener('abort', onFinish);
      stop.removeEventListener('abort', onStop);
      // Left early (the caller broke off): nothing more of this turn is sent.
      if (!turn.ended) post({ type: 'stop', id });
      turns.delete(id);
    }
  };

  return {
    sendTurn,
    close: async () => {
      closed = true;
      const started = workers.filter((w): w is Worker => w !== null);
      workers.fill(null);
      await Promise.all(started.map((w) => w.terminate()));
    },
  };
};
