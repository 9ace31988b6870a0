import {
  rateLimitDecision,
  type RateLimitCounters,
  type RateLimitDecision,
  type RateLimits,
  type ReleaseSlot,
} from '../../application/ports/RateLimitCounters.js';
import { StoreUnavailableError } from '../../application/ports/StoreUnavailableError.js';
import type { MemoryRateLimitCounters } from '../memory/MemoryRateLimitCounters.js';
import { sendQuietly, type IpcEndpoint } from '../../shared/IpcEndpoint.js';

const ASK = 'chronicle:rate-limits';
const ANSWER = 'chronicle:rate-limits:answer';

type Question =
  | { readonly type: typeof ASK; readonly id: number; readonly op: 'count'; readonly keyId: string; readonly at: number }
  | { readonly type: typeof ASK; readonly id: number; readonly op: 'acquire'; readonly keyId: string }
  | { readonly type: typeof ASK; readonly id: number; readonly op: 'release'; readonly slot: number };

type Answer =
  | { readonly type: typeof ANSWER; readonly id: number; readonly hourly: number; readonly daily: number }
  | { readonly type: typeof ANSWER; readonly id: number; readonly slot: number | null };

const isQuestion = (message: unknown): message is Question =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ASK;
const isAnswer = (message: unknown): message is Answer =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ANSWER;

/** How long a worker waits for the supervisor's answer before the request is refused (503, try again). */
const ANSWER_WITHIN_MS = 2_000;

/**
 * The rate-limit counters of an API worker under `API_WORKERS`: kept by the
 * supervisor (`serveRateLimits`), in its memory, for every worker it runs, and
 * asked over the worker's IPC channel. One count is a message each way (no file,
 * no lock to wait for); the decision is made here from the counts the supervisor
 * answers. A supervisor that does not answer within two seconds (it is gone, the
 * worker is stopping) makes the request a 503 with Retry-After, never a pass.
 */
export class SupervisedRateLimitCounters implements RateLimitCounters {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  private readonly listener = (message: unknown): void => {
    if (!isAnswer(message)) return;
    const waiter = this.waiting.get(message.id);
    if (!waiter) return;
    this.waiting.delete(message.id);
    clearTimeout(waiter.timer);
    waiter.resolve(message);
  };

  constructor(
    readonly limits: RateLimits,
    private readonly supervisor: IpcEndpoint,
    private readonly answerWithinMs = ANSWER_WITHIN_MS,
  ) {
    supervisor.on('message', this.listener);
  }

  async consume(keyId: string, now: Date): Promise<RateLimitDecision> {
    const answer = await this.ask({ op: 'count', keyId, at: now.getTime() });
    if (!('hourly' in answer)) throw new Error('the supervisor answered a count with a slot');
    return rateLimitDecision(this.limits, now, answer.hourly, answer.daily);
  }

  async acquire(keyId: string): Promise<ReleaseSlot | null> {
    const answer = await this.ask({ op: 'acquire', keyId });
    if (!('slot' in answer)) throw new Error('the supervisor answered a slot with counts');
    const { slot } = answer;
    if (slot === null) return null;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      // Nothing to wait for: a worker that is gone has its slots given back by the supervisor.
      this.tell({ type: ASK, id: 0, op: 'release', slot });
    };
  }

  async close(): Promise<void> {
    this.supervisor.off('message', this.listener);
    for (const [id, waiter] of this.waiting) {
      clearTimeout(waiter.timer);
      waiter.reject(new StoreUnavailableError('busy', 1));
      this.waiting.delete(id);
    }
  }

  private ask(question: { op: 'count'; keyId: string; at: number } | { op: 'acquire'; keyId: string }): Promise<Answer> {
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new StoreUnavailableError('busy', 1));
      }, this.answerWithinMs);
      this.waiting.set(id, { resolve, reject, timer });
      if (!this.tell({ type: ASK, id, ...question })) {
        this.waiting.delete(id);
        clearTimeout(timer);
        reject(new StoreUnavailableError('busy', 1));
      }
    });
  }

  private tell(question: Question): boolean {
    try {
      return this.supervisor.send(question);
    } catch {
      // The channel is closed (the supervisor is gone).
      return false;
    }
  }
}

/**
 * The supervisor's side: answers one worker's questions from `counters` (shared
 * by every worker it serves). Returns what to call when the worker is gone: its
 * slots still held are given back.
 */
export const serveRateLimits = (counters: MemoryRateLimitCounters, worker: IpcEndpoint): (() => Promise<void>) => {
  const held = new Map<number, ReleaseSlot>();
  let nextSlot = 1;
  // A worker that is gone gets no answer: its slots are given back when its exit is seen.
  const answer = (message: Answer): void => void sendQuietly(worker, message);
  const listener = (message: unknown): void => {
    if (!isQuestion(message)) return;
    switch (message.op) {
      case 'count': {
        const { hourly, daily } = counters.count(message.keyId, new Date(message.at));
        answer({ type: ANSWER, id: message.id, hourly, daily });
        return;
      }
      case 'acquire':
        void counters.acquire(message.keyId).then((release) => {
          if (release === null) return answer({ type: ANSWER, id: message.id, slot: null });
          const slot = nextSlot++;
          held.set(slot, release);
          answer({ type: ANSWER, id: message.id, slot });
        });
        return;
      case 'release': {
        const release = held.get(message.slot);
        held.delete(message.slot);
        void release?.();
        return;
      }
    }
  };
  worker.on('message', listener);
  return async () => {
    worker.off('message', listener);
    const releases = [...held.values()];
    held.clear();
    await Promise.all(releases.map((release) => release()));
  };
};
