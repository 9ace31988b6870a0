import {
  rateLimitDecision,
  type RateLimitAdmission,
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

/** `take` counts and, when the windows allow, gives a slot: what a request asks (one question, not two). */
type Question =
  | { readonly id: number; readonly op: 'take'; readonly keyId: string; readonly at: number; readonly limits?: RateLimits }
  | { readonly id: number; readonly op: 'count'; readonly keyId: string; readonly at: number }
  | { readonly id: number; readonly op: 'acquire'; readonly keyId: string; readonly limits?: RateLimits }
  | { readonly id: 0; readonly op: 'release'; readonly slot: number };

/** A question as the worker asks it (the channel gives it its id). */
type AskedQuestion = Exclude<Question, { readonly op: 'release' }> extends infer Q ? (Q extends { readonly id: number } ? Omit<Q, 'id'> : never) : never;

/** Counts for `count`, a slot (or null) for `acquire`, both for `take`. */
type Answer = { readonly id: number; readonly hourly?: number; readonly daily?: number; readonly slot?: number | null };

/** What goes over the channel: every question (or answer) of one turn of the sender's event loop. */
interface Questions {
  readonly type: typeof ASK;
  readonly questions: readonly Question[];
}
interface Answers {
  readonly type: typeof ANSWER;
  readonly answers: readonly Answer[];
}

const isQuestions = (message: unknown): message is Questions =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ASK && Array.isArray((message as Questions).questions);
const isAnswers = (message: unknown): message is Answers =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ANSWER && Array.isArray((message as Answers).answers);

/**
 * Gathers what one turn of the event loop sends, and sends it as one message
 * after the turn's I/O (`setImmediate`): the requests read in one turn cost one
 * write, one read and one parse on each side, not one each. False from `push`:
 * the channel is closed (nothing was queued).
 */
class TurnBatch<T> {
  private items: T[] = [];
  private scheduled = false;

  constructor(
    private readonly endpoint: IpcEndpoint,
    private readonly wrap: (items: T[]) => unknown,
    private readonly onLost: (items: T[]) => void = () => undefined,
  ) {}

  push(item: T): boolean {
    if (this.endpoint.connected === false) return false;
    this.items.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return true;
  }

  private flush(): void {
    this.scheduled = false;
    const items = this.items;
    this.items = [];
    if (items.length > 0 && !sendQuietly(this.endpoint, this.wrap(items))) this.onLost(items);
  }
}

/** How long a worker waits for the supervisor's answer before the request is refused (503, try again). */
const ANSWER_WITHIN_MS = 2_000;

/** One worker's channel to its supervisor: questions sent a turn at a time, answers matched by id, refused past the wait. */
class SupervisorChannel {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  private readonly outbox: TurnBatch<Question>;
  private readonly listener = (message: unknown): void => {
    if (!isAnswers(message)) return;
    for (const answer of message.answers) {
      const waiter = this.waiting.get(answer.id);
      if (!waiter) continue;
      this.waiting.delete(answer.id);
      clearTimeout(waiter.timer);
      waiter.resolve(answer);
    }
  };

  constructor(
    readonly supervisor: IpcEndpoint,
    readonly answerWithinMs: number,
  ) {
    // Questions a closed channel would not take are refused at once (their requests: 503).
    this.outbox = new TurnBatch(supervisor, (questions) => ({ type: ASK, questions }) satisfies Questions, (lost) =>
      lost.forEach((question) => this.refuse(question.id)),
    );
    supervisor.on('message', this.listener);
  }

  ask(question: AskedQuestion): Promise<Answer> {
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => this.refuse(id), this.answerWithinMs);
      this.waiting.set(id, { resolve, reject, timer });
      if (!this.outbox.push({ id, ...question })) this.refuse(id);
    });
  }

  release(slot: number): void {
    this.outbox.push({ id: 0, op: 'release', slot });
  }

  close(): void {
    this.supervisor.off('message', this.listener);
    for (const id of [...this.waiting.keys()]) this.refuse(id);
  }

  /** The question `id` gets no answer: its request is refused (503 store busy). */
  private refuse(id: number): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    this.waiting.delete(id);
    clearTimeout(waiter.timer);
    waiter.reject(new StoreUnavailableError('busy', 1));
  }
}

/**
 * The rate-limit counters of an API worker under `API_WORKERS`: kept by the
 * supervisor (`serveRateLimits`), in its memory, for every worker it runs, and
 * asked over the worker's IPC channel. A request is one question (`admit`: count
 * it and, when allowed, give it a slot) and one answer; the slot's release goes
 * with the next questions. What a turn of the event loop asks goes as one
 * message, and the supervisor answers a message with one (no file, no lock to
 * wait for). The decision is made here from the counts the supervisor answers. A
 * supervisor that does not answer within two seconds (it is gone, the worker is
 * stopping) makes the request a 503 with Retry-After, never a pass.
 */
export class SupervisedRateLimitCounters implements RateLimitCounters {
  private readonly channel: SupervisorChannel;
  /** Limits the supervisor judges `take` and `acquire` with when they are not its own (`withLimits`); undefined: its own. */
  private readonly judgedWith: RateLimits | undefined;

  constructor(
    readonly limits: RateLimits,
    supervisor: IpcEndpoint,
    answerWithinMs = ANSWER_WITHIN_MS,
    /** The counters whose channel these share, judging with other limits (`withLimits`). */
    sharing?: SupervisedRateLimitCounters,
  ) {
    this.channel = sharing?.channel ?? new SupervisorChannel(supervisor, answerWithinMs);
    this.judgedWith = sharing ? limits : undefined;
  }

  withLimits(limits: RateLimits): SupervisedRateLimitCounters {
    return new SupervisedRateLimitCounters(limits, this.channel.supervisor, this.channel.answerWithinMs, this);
  }

  async consume(keyId: string, now: Date): Promise<RateLimitDecision> {
    const answer = await this.channel.ask({ op: 'count', keyId, at: now.getTime() });
    return this.decision(answer, now);
  }

  async acquire(keyId: string): Promise<ReleaseSlot | null> {
    return this.releaseOf(await this.channel.ask({ op: 'acquire', keyId, ...this.limitsToSend() }));
  }

  async admit(keyId: string, now: Date): Promise<RateLimitAdmission> {
    const answer = await this.channel.ask({ op: 'take', keyId, at: now.getTime(), ...this.limitsToSend() });
    return { decision: this.decision(answer, now), release: this.releaseOf(answer) };
  }

  /** Closes the channel; counters sharing another's leave it to their owner. */
  async close(): Promise<void> {
    if (this.judgedWith === undefined) this.channel.close();
  }

  /** The limits a question carries: none when they are the supervisor's own (the common case costs nothing more). */
  private limitsToSend(): { limits?: RateLimits } {
    return this.judgedWith ? { limits: this.judgedWith } : {};
  }

  private decision(answer: Answer, now: Date): RateLimitDecision {
    if (answer.hourly === undefined || answer.daily === undefined) throw new Error('the supervisor answered without counts');
    return rateLimitDecision(this.limits, now, answer.hourly, answer.daily);
  }

  private releaseOf(answer: Answer): ReleaseSlot | null {
    if (answer.slot === undefined) throw new Error('the supervisor answered without a slot');
    const { slot } = answer;
    if (slot === null) return null;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      // Nothing to wait for: a worker that is gone has its slots given back by the supervisor.
      this.channel.release(slot);
    };
  }

}

/**
 * The supervisor's side: answers one worker's questions from `counters` (shared
 * by every worker it serves), the questions of one message with one message.
 * Returns what to call when the worker is gone: its slots still held are given
 * back.
 */
export const serveRateLimits = (counters: MemoryRateLimitCounters, worker: IpcEndpoint): (() => Promise<void>) => {
  const held = new Map<number, () => void>();
  let nextSlot = 1;
  const hold = (release: (() => void) | null): number | null => {
    if (release === null) return null;
    const slot = nextSlot++;
    held.set(slot, release);
    return slot;
  };
  // A worker that is gone gets no answer: its slots are given back when its exit is seen.
  const outbox = new TurnBatch<Answer>(worker, (answers) => ({ type: ANSWER, answers }) satisfies Answers);
  // The same counts judged with the limits a question names (a worker's `withLimits`), one view per set of limits.
  const views = new Map<string, MemoryRateLimitCounters>();
  const judging = (limits: RateLimits | undefined): MemoryRateLimitCounters => {
    if (limits === undefined) return counters;
    const name = `${limits.hourly}/${limits.daily}/${limits.concurrent}`;
    let view = views.get(name);
    if (!view) views.set(name, (view = counters.withLimits(limits)));
    return view;
  };
  const answerOne = (question: Question): Answer | null => {
    switch (question.op) {
      case 'take': {
        const at = new Date(question.at);
        const judge = judging(question.limits);
        const counts = judge.count(question.keyId, at);
        const { allowed } = rateLimitDecision(judge.limits, at, counts.hourly, counts.daily);
        return { id: question.id, ...counts, slot: hold(allowed ? judge.slot(question.keyId) : null) };
      }
      case 'count':
        return { id: question.id, ...counters.count(question.keyId, new Date(question.at)) };
      case 'acquire':
        return { id: question.id, slot: hold(judging(question.limits).slot(question.keyId)) };
      case 'release':
        held.get(question.slot)?.();
        held.delete(question.slot);
        return null;
    }
  };
  const listener = (message: unknown): void => {
    if (!isQuestions(message)) return;
    for (const question of message.questions) {
      const answer = answerOne(question);
      if (answer) outbox.push(answer);
    }
  };
  worker.on('message', listener);
  return async () => {
    worker.off('message', listener);
    const releases = [...held.values()];
    held.clear();
    releases.forEach((release) => release());
  };
};
