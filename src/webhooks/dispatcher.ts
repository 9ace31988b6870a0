import { setMaxListeners } from 'node:events';
import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import type { Logger } from '../application/ports/Logger.js';
import type {
  AttemptOutcome,
  Delivery,
  DeliveryAttempt,
  DeliveryQueue,
  QueueHealth,
  WebhookOutbox,
} from '../application/ports/WebhookOutbox.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import { assertNever } from '../shared/Decider.js';
import type { SendDelivery } from './deliveryAgent.js';
import { decideAttempt, type AttemptDecision } from './dispatcherRetryPolicy.js';
import { pickFairly } from './fairShare.js';
import type { HealthChange, PausePolicy } from './queueHealthPolicy.js';
import { QueueHealthKeeper, withoutVersion, type DeliveryStatusChange, type Turn } from './queueHealthKeeper.js';
import { webhookSecretKey } from './signing.js';
import { decodeSigningSecrets, secretsAt } from '../shared/webhookSecret.js';
import { describeError, sendTurnsHere, type SendTurn, type SentAttempt } from './turnSender.js';

/** Where the dispatcher gets each subscription's signing secret (`WebhookSecretStore`). */
export interface WebhookSecrets {
  /** What the store keeps for the subscription (`SigningSecrets`: its `whsec_…` secret, and a rotated one), or null when it has none. */
  get(subscriptionId: string): Promise<string | null>;
}

/** Sleeps `ms`, or less when `signal` aborts. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

export interface WebhookDispatcherDeps {
  readonly outbox: WebhookOutbox;
  /**
   * How the HTTP attempts are made: a turn of a queue at a time (`deliveryThread`), or
   * else one attempt at a time on this event loop through `send`
   * (`createDeliveryAgent(…).send`). One of the two is required.
   */
  readonly sendTurn?: SendTurn;
  readonly send?: SendDelivery;
  readonly secrets: WebhookSecrets;
  /**
   * Ends a subscription whose receiver answered 410 Gone: appends
   * `WebhookUnsubscribed {reason: 'gone'}` through the domain. Must resolve when
   * the subscription has already ended (a 410 may be seen again after a restart).
   */
  unsubscribe(subscriptionId: string, companyId: string): Promise<void>;
  /**
   * Records in the log that deliveries to a subscription were paused, disabled or
   * resumed on their own (`WebhookPaused`, `WebhookDisabled`, `WebhookEnabled
   * {reason: 'recovered'}`, by the system). Must resolve when the log already says
   * so, or the subscription has ended. Absent: nothing is recorded.
   */
  announce?(queue: { readonly subscriptionId: string; readonly companyId: string }, change: DeliveryStatusChange): Promise<void>;
  /** Total time of one attempt: connect, request, response headers and body. */
  readonly timeoutMs: number;
  /** One entry per retry. */
  readonly retryDelaysMs: readonly number[];
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly sleep?: Sleep;
  /** Uniform in [0, 1), for the jitter. */
  readonly random?: () => number;
  /** Subscriptions delivered to at the same time; default 16. */
  readonly concurrency?: number;
  /** Subscriptions of one company delivered to at the same time; default `concurrency` (no cap). */
  readonly perCompany?: number;
  /** When a receiver that keeps failing is paused, then disabled; absent: never (a row that used up its retries fails, and the queue moves on). */
  readonly pausing?: PausePolicy;
  /** Upper bound of `Retry-After`; default 10 minutes. */
  readonly maxRetryAfterMs?: number;
  /** How often to look for work written by other processes (redeliveries through another API instance); default 1 s. */
  readonly pollIntervalMs?: number;
  /** Deliveries of one queue before its slot goes to another queue that waits; default 20. */
  readonly turnSize?: number;
  /** Told of every recorded attempt, with the company of its subscription (metrics, usage). */
  readonly onAttempt?: (outcome: AttemptResult, latencyMs: number, companyId: string) => void;
  /** Told when reading the outbox fails and recovers, for `/ready` (loop `webhook-dispatcher`). */
  readonly health?: LoopHealth;
  /**
   * The companies whose deliveries are held (suspended by the platform): none of
   * their queues is read or attempted, their rows stay pending, in order, and count
   * no attempt, until the company is no longer listed. Asked at most every
   * `HELD_REFRESH_MS`. Absent: none is held.
   */
  readonly heldCompanies?: () => Promise<ReadonlySet<string>>;
}

/** How long the list of held companies is reused before it is asked again (a part of the second a suspension takes). */
export const HELD_REFRESH_MS = 200;

/**
 * What one recorded attempt came to: `delivered` (200), `retry` (another attempt
 * follows), `failed` (the last retry failed), `gone` (410: the subscription ended).
 */
export type AttemptResult = 'delivered' | 'retry' | 'failed' | 'gone';

export type { DeliveryStatusChange } from './queueHealthKeeper.js';

/** The loop name under which failing outbox reads show in `/ready`. */
export const DISPATCHER_LOOP = 'webhook-dispatcher';

/** Pause of a queue whose work failed (outbox or secret store unavailable). */
const ERROR_PAUSE_MS = 1000;

/** The subscription's secret, or why its attempts cannot be signed (each then fails without a request). */
type TurnSigning = { readonly secrets: readonly string[]; readonly error?: undefined } | { readonly error: string };

/**
 * How a turn ended: `more` (a full turn, rows left behind), `done` (every row it read
 * went), `waiting` (a row waits for a retry, the queue is held or disabled, or a row
 * stopped being pending).
 */
type TurnEnd = 'more' | 'done' | 'waiting';

class ShutdownError extends Error {
  override readonly name = 'ShutdownError';
  constructor() {
    super('The dispatcher is stopping');
  }
}

/**
 * Works off the outbox: each subscription's queue strictly in order (its head is
 * attempted until it is delivered or has used up its retries; only then is the
 * next row attempted), up to `concurrency` subscriptions at once, so a slow or
 * failing receiver holds one slot and delays only its own queue.
 *
 * Slots are shared fairly between companies: no company has more than
 * `perCompany` queues in flight, and when more queues are due than slots are
 * free, the slots go round-robin across the companies with due queues (the company
 * served least recently first; within a company, the queue that waited longest for
 * its turn, a queue giving its slot up after `turnSize` deliveries). So a company
 * whose receivers hang holds at most `perCompany` slots for the length of their
 * timeouts, and the others' deliveries go on. One read of the due queues serves
 * several slots: the candidates beyond the free slots wait in line and take the
 * next slots that free up, until new rows (`wake`) or the poll interval call for a
 * fresh read.
 *
 * An attempt POSTs the stored envelope, signed (Standard Webhooks), within
 * `timeoutMs`. Only a 200 delivers. 410 Gone ends the subscription (`unsubscribe`)
 * and stops its queue. Anything else (another status, a redirect, a timeout, a
 * refused address, a connection error) is retried per `dispatcherRetryPolicy`;
 * a receiver that keeps failing is paused, then disabled, per `pausing`
 * (`queueHealthPolicy`), each change recorded in the log (`announce`).
 *
 * Delivery is at least once: a process that dies after the receiver's 200 but
 * before recording it sends that row again on restart, with the same
 * `webhook-id` (= `metadata.eventId`), which receivers use to drop duplicates. With
 * the delivery thread (`sendTurn` of `deliveryThread`), the rows of a turn it sent
 * ahead of their records are sent again that way, after the later ones (decision 203).
 */
export class WebhookDispatcher {
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly concurrency: number;
  private readonly perCompany: number;
  private readonly pollIntervalMs: number;
  private readonly turnSize: number;
  /** Queues being worked on, by subscription id. */
  private readonly active = new Map<string, Promise<void>>();
  /** Queues being worked on, per company. */
  private readonly companyInFlight = new Map<string, number>();
  /** When each queue's last turn ended (a counter), for fairness between a company's due queues. */
  private readonly served = new Map<string, number>();
  private turns = 0;
  /** When each company last got a slot (a counter), for the round-robin between companies. */
  private readonly companyServed = new Map<string, number>();
  private slotsHanded = 0;
  /** Due queues read but not launched yet (see `run`). */
  private ready: DeliveryQueue[] = [];
  /** The outbox may hold due queues that `ready` lacks: new rows, a queue left waiting, or the poll interval has passed. */
  private stale = true;
  /** The last read listed as many queues as it asked for: more may be due. */
  private lastReadFull = false;
  /** The companies the last read left out (at their cap then): their due queues are not in `ready`. */
  private lastSkipped: ReadonlySet<string> = new Set();
  /** Calls of `wake` so far: a turn during which it was called may have new rows. */
  private wakes = 0;
  /** The earliest due time after the last read, to read again then. */
  private nextDueAt: Date | null = null;
  /** Aborted at stop, before the grace period: turns send no more rows. */
  private readonly finishing = new AbortController();
  /** Aborted at stop, after the grace period: the pauses, and the attempts in flight. */
  private readonly stopping = new AbortController();
  private readonly sendTurn: SendTurn;
  private idle: AbortController | null = null;
  private wakePending = false;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private readonly healthKeeper: QueueHealthKeeper;
  /** The held companies as last asked, and when (ms). */
  private held: { readonly companies: ReadonlySet<string>; readonly at: number } | null = null;

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.clock = deps.clock ?? systemClock;
    if (deps.sendTurn) this.sendTurn = deps.sendTurn;
    else if (deps.send) this.sendTurn = sendTurnsHere(deps.send, this.clock);
    else throw new Error('WebhookDispatcher needs sendTurn or send');
    this.healthKeeper = new QueueHealthKeeper({ ...deps, clock: this.clock });
    this.sleep = deps.sleep ?? realSleep;
    this.random = deps.random ?? Math.random;
    this.concurrency = Math.max(1, deps.concurrency ?? 16);
    // Each queue in flight listens to the stop signals (its turn, a pause after a store error): as many listeners as slots.
    setMaxListeners(2 * this.concurrency + 10, this.stopping.signal, this.finishing.signal);
    this.perCompany = Math.max(1, Math.min(this.concurrency, deps.perCompany ?? this.concurrency));
    this.pollIntervalMs = deps.pollIntervalMs ?? 1000;
    this.turnSize = Math.max(1, deps.turnSize ?? 20);
  }

  start(): void {
    if (this.loop) return;
    this.loop = this.run();
  }

  /** New rows were enqueued (the fan-out calls this): look for due queues now. */
  wake(): void {
    this.wakes += 1;
    this.stale = true;
    this.nudge();
  }

  /** Runs the loop again now (a slot is free, or the outbox should be read). */
  private nudge(): void {
    if (this.idle) this.idle.abort();
    else this.wakePending = true;
  }

  /**
   * Stops taking work. Attempts in flight get up to `graceMs` to finish (and are
   * recorded); the rest are aborted, not recorded, and sent again after a restart.
   * True when nothing had to be aborted.
   */
  async stop(graceMs = 0): Promise<boolean> {
    this.stopped = true;
    this.finishing.abort(new ShutdownError());
    this.wake();
    await this.loop;
    const settled = Promise.all(this.active.values());
    let drained = this.active.size === 0;
    if (!drained && graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      drained = await Promise.race([
        settled.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
      ]);
      clearTimeout(timer);
    }
    this.stopping.abort(new ShutdownError());
    await settled;
    return drained;
  }

  /** Subscriptions being delivered to right now. */
  get busy(): number {
    return this.active.size;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let waitMs = this.pollIntervalMs;
      try {
        // Queues read earlier take the free slots first, as long as nothing new came in.
        if (!this.stale) this.launchFairly();
        if (this.active.size < this.concurrency && (this.stale || this.mayHaveMore())) {
          this.stale = false;
          const now = this.clock.now();
          const skipped = this.cappedCompanies();
          // Held companies are left out as capped ones are, but not counted among `lastSkipped`: no slot frees them.
          const left = new Set([...skipped, ...(await this.heldCompanies())]);
          // More candidates than slots, so that the slots can be shared out; the rest wait in
          // `ready` for the next slots, sparing a read of the outbox for each.
          const limit = this.concurrency * 4;
          const { due, nextDueAt } = await this.deps.outbox.dueQueues(now, limit, { queues: new Set(this.active.keys()), companies: left });
          this.ready = due.filter((queue) => !this.active.has(queue.subscriptionId));
          this.lastReadFull = due.length >= limit;
          this.lastSkipped = skipped;
          this.nextDueAt = nextDueAt;
          this.launchFairly();
        }
        if (this.nextDueAt) waitMs = Math.min(waitMs, Math.max(0, this.nextDueAt.getTime() - this.clock.now().getTime()));
        failures = 0;
        this.deps.health?.succeeded(DISPATCHER_LOOP);
      } catch (error) {
        this.stale = true;
        failures += 1;
        this.deps.health?.failed(DISPATCHER_LOOP);
        waitMs = Math.min(30_000, 100 * 2 ** Math.min(failures, 9));
        this.deps.logger.error({ err: error, failures }, 'webhook dispatcher: cannot read the outbox; retrying');
      }
      // Waited the whole interval without a nudge: time to read the outbox again (retries
      // come due, rows written by other processes).
      if (!(await this.idleFor(waitMs))) this.stale = true;
    }
  }

  /**
   * Whether due queues may exist that `ready` lacks although nothing new came in: the
   * last read was cut at its limit, or left out a company that is below its cap now
   * and has nothing in `ready`.
   */
  private mayHaveMore(): boolean {
    if (this.lastReadFull) return true;
    for (const company of this.lastSkipped) {
      if ((this.companyInFlight.get(company) ?? 0) < this.perCompany && !this.ready.some((queue) => queue.companyId === company)) return true;
    }
    return false;
  }

  /** The companies whose deliveries are held now (`heldCompanies`), asked again once the last answer is `HELD_REFRESH_MS` old. */
  private async heldCompanies(): Promise<ReadonlySet<string>> {
    if (!this.deps.heldCompanies) return new Set();
    const now = this.clock.now().getTime();
    if (this.held === null || now - this.held.at >= HELD_REFRESH_MS || now < this.held.at) {
      this.held = { companies: await this.deps.heldCompanies(), at: now };
    }
    return this.held.companies;
  }

  /** Companies with `perCompany` queues in flight: none of their queues is read. */
  private cappedCompanies(): Set<string> {
    const capped = new Set<string>();
    for (const [company, count] of this.companyInFlight) if (count >= this.perCompany) capped.add(company);
    return capped;
  }

  /** Launches the queues of `ready` that the free slots go to (`pickFairly`); the others stay in line. */
  private launchFairly(): void {
    const free = this.concurrency - this.active.size;
    if (free <= 0 || this.ready.length === 0) return;
    const lastServed = (queue: DeliveryQueue): number => this.served.get(queue.subscriptionId) ?? 0;
    const candidates = this.ready.filter((queue) => !this.active.has(queue.subscriptionId)).sort((a, b) => lastServed(a) - lastServed(b));
    const picked = new Set(pickFairly(candidates, free, this.perCompany, { inFlight: this.companyInFlight, lastServed: this.companyServed }));
    for (const queue of picked) this.launch(queue);
    this.ready = candidates.filter((queue) => !picked.has(queue));
  }

  /** Waits `ms` or until nudged; true when nudged. */
  private async idleFor(ms: number): Promise<boolean> {
    if (this.wakePending || this.stopped) {
      this.wakePending = false;
      return true;
    }
    const idle = (this.idle = new AbortController());
    try {
      await this.sleep(ms, idle.signal);
      return idle.signal.aborted;
    } finally {
      this.idle = null;
    }
  }

  private launch(queue: DeliveryQueue): void {
    const { subscriptionId, companyId } = queue;
    const wakesAtLaunch = this.wakes;
    this.companyInFlight.set(companyId, (this.companyInFlight.get(companyId) ?? 0) + 1);
    this.companyServed.set(companyId, ++this.slotsHanded);
    const work = this.work(queue)
      .then(({ end, after }) => {
        // A full turn leaves more rows behind: the queue waits in line for its next turn, without
        // a read. A queue left waiting is due later (a retry, a hold), and one that got rows while
        // it was worked on (the read of their wake left it out) is due again: the next read learns.
        if (end === 'more') this.ready.push(after);
        else if (end === 'waiting' || this.wakes !== wakesAtLaunch) this.stale = true;
      })
      .catch(async (error: unknown) => {
        this.deps.logger.error({ err: error, subscriptionId }, 'webhook queue failed; will retry');
        // Keep the slot a moment, so that a failing store is not hammered by the same queue.
        await this.sleep(ERROR_PAUSE_MS, this.stopping.signal);
      })
      .finally(() => {
        this.active.delete(subscriptionId);
        const left = (this.companyInFlight.get(companyId) ?? 1) - 1;
        if (left > 0) this.companyInFlight.set(companyId, left);
        else this.companyInFlight.delete(companyId);
        this.served.set(subscriptionId, ++this.turns);
        this.nudge();
      });
    this.active.set(subscriptionId, work);
  }

  /**
   * One turn of a queue, then its due time set from where the queue stands
   * (`settleQueue`): its next row, a retry, a hold, or nothing left.
   */
  private async work(queue: DeliveryQueue): Promise<{ readonly end: TurnEnd; readonly after: DeliveryQueue }> {
    const turn: Turn = { queue, health: queue.health };
    const end = await this.deliverTurn(turn);
    await this.deps.outbox.settleQueue(queue.subscriptionId);
    return { end, after: { ...queue, health: turn.health } };
  }

  /**
   * Delivers the queue's due rows in order, up to one turn. The turn's rows are read
   * at once, and its secret once; `sendTurn` sends each row after the one before it
   * got a 200, and each attempt is recorded in order. The turn ends at the first row
   * that waits (a retry), that is not pending any more when its attempt is recorded
   * (the subscription ended, or another process changed it), when the queue is paused,
   * or at stop. Rows the queue gains meanwhile (the fan-out's, later in the log; a
   * redelivered one, put back at its place) are read by its next turn. A paused
   * queue whose hold has ended gets one attempt at its head: a 200 resumes it.
   */
  private async deliverTurn(turn: Turn): Promise<TurnEnd> {
    // A status the log lacks (its event could not be appended before) is recorded first.
    if (turn.health.status !== turn.health.loggedStatus) await this.healthKeeper.store(turn, withoutVersion(turn.health));
    if (!this.mayAttempt(turn.health)) return 'waiting';
    // Held since the queue was read (its company suspended): nothing is attempted, the next read leaves it out.
    if ((await this.heldCompanies()).has(turn.queue.companyId)) return 'waiting';
    const { subscriptionId, targetUrl } = turn.queue;
    const rows = await this.deps.outbox.pendingRows(subscriptionId, this.turnSize);
    if (rows.length === 0) return 'done';
    const signing = await this.signing(subscriptionId);
    const now = this.clock.now().getTime();
    const dueCount = rows.findIndex((row) => row.nextAttemptAt !== null && Date.parse(row.nextAttemptAt) > now);
    let due = dueCount === -1 ? rows : rows.slice(0, dueCount);
    while (due.length > 0) {
      if (this.stopped) return 'done';
      if (signing.error !== undefined) {
        const at = this.clock.now().toISOString();
        const unsigned: SentAttempt = { at, statusCode: null, error: signing.error, latencyMs: 0, retryAfter: null, errorKind: 'no_secret', request: null, response: null };
        if (!(await this.attempt(turn, due[0]!, unsigned))) return 'waiting';
        due = due.slice(1);
        continue;
      }
      let attempted = 0;
      const request = { url: targetUrl, secrets: signing.secrets, rows: due, timeoutMs: this.deps.timeoutMs };
      for await (const batch of this.sendTurn(request, { finish: this.finishing.signal, stop: this.stopping.signal })) {
        const heads = due.slice(attempted, (attempted += batch.length));
        // Leaving the loop ends the turn's sending (`SendTurn`).
        if (!(await this.attempts(turn, heads, batch))) return 'waiting';
        // Held meanwhile (the company suspended): the rest of the turn waits with the queue.
        if (attempted < due.length && (await this.heldCompanies()).has(turn.queue.companyId)) return 'waiting';
      }
      // None: cut short by stop() (not an attempt of the receiver's; it is made again after a restart).
      if (attempted === 0) return 'done';
      // Ended before the last row after a final failure the queue goes on from (retries used up): the rest, again.
      due = due.slice(attempted);
    }
    if (dueCount !== -1) return 'waiting';
    return rows.length === this.turnSize ? 'more' : 'done';
  }

  /** Whether the queue may be attempted now: not disabled, and not held. */
  private mayAttempt(health: QueueHealth): boolean {
    if (health.status === 'disabled') return false;
    return health.holdUntil === null || Date.parse(health.holdUntil) <= this.clock.now().getTime();
  }

  /**
   * The subscription's secrets for one turn, read once and checked (decoded) once: its
   * secret, and a rotated one until its overlap ends (as the turn starts).
   */
  private async signing(subscriptionId: string): Promise<TurnSigning> {
    const stored = await this.deps.secrets.get(subscriptionId);
    if (stored === null) return { error: 'The subscription has no signing secret' };
    try {
      const secrets = secretsAt(decodeSigningSecrets(stored), this.clock.now());
      for (const secret of secrets) webhookSecretKey(secret);
      return { secrets };
    } catch (cause) {
      return { error: describeError(cause) };
    }
  }

  /**
   * Attempts at the head of a queue, one after another, recorded in order: every one
   * but the last was a 200 (`SendTurn`), so the records of the 200s go into one group
   * commit. True when the queue may go on with its next row.
   */
  private async attempts(turn: Turn, heads: readonly Delivery[], sent: readonly SentAttempt[]): Promise<boolean> {
    const delivered = sent[sent.length - 1]?.statusCode === 200 ? sent.length : sent.length - 1;
    if (delivered > 0 && !(await this.recordDelivered(turn, heads.slice(0, delivered), sent.slice(0, delivered).map(attemptOf)))) return false;
    return delivered === sent.length || this.attempt(turn, heads[delivered]!, sent[delivered]!);
  }

  /**
   * Records the 200s of rows at the head of a queue, in order, in one group commit, and
   * tells the metrics and the queue's health of each. False when a row stopped being
   * pending meanwhile (the next turn reads the queue again).
   */
  private async recordDelivered(turn: Turn, heads: readonly Delivery[], attempts: readonly DeliveryAttempt[]): Promise<boolean> {
    const now = this.clock.now();
    const { subscriptionId, companyId } = turn.queue;
    const recorded = await Promise.all(
      heads.map((head, i) => this.deps.outbox.recordAttempt(subscriptionId, head.eventId, attempts[i]!, { state: 'delivered' }, head.envelope)),
    );
    for (const [i, attempt] of attempts.entries()) {
      this.deps.onAttempt?.('delivered', attempt.latencyMs, companyId);
      if (this.deps.logger.isLevelEnabled('debug')) {
        const { eventId, eventType } = heads[i]!;
        this.deps.logger.debug({ subscriptionId, eventId, eventType, latencyMs: attempt.latencyMs }, 'webhook delivered');
      }
      await this.healthKeeper.afterAttempt(turn, 'delivered', attempt, now);
      if (!recorded[i]) return false;
    }
    return true;
  }

  /** What an attempt at the head of a queue decided, recorded. True when the queue may go on with its next row. */
  private async attempt(turn: Turn, head: Delivery, sent: SentAttempt): Promise<boolean> {
    const now = this.clock.now();
    const decision = decideAttempt({
      attempt: head.roundAttempts + 1,
      retryDelaysMs: this.deps.retryDelaysMs,
      statusCode: sent.statusCode,
      retryAfter: sent.retryAfter,
      now,
      random: this.random,
      ...(this.deps.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: this.deps.maxRetryAfterMs } : {}),
    });
    return this.record(turn, head, attemptOf(sent), decision, now);
  }

  /** Stores the attempt and what it decided, tells the metrics, logs; true when the queue may go on. */
  private async record(turn: Turn, head: Delivery, attempt: DeliveryAttempt, decision: AttemptDecision, now: Date): Promise<boolean> {
    const { outbox, logger } = this.deps;
    const { queue } = turn;
    const { subscriptionId } = queue;
    const log = { subscriptionId, eventId: head.eventId, eventType: head.eventType };
    switch (decision.kind) {
      case 'delivered':
        return this.recordDelivered(turn, [head], [attempt]);
      case 'gone':
        if ((await this.endSubscription(queue, log)) || decision.retryInMs === null) {
          await outbox.recordAttempt(subscriptionId, head.eventId, attempt, { state: 'failed', reason: 'gone' }, head.envelope);
          await outbox.stopSubscription(subscriptionId, now);
          this.deps.onAttempt?.('gone', attempt.latencyMs, queue.companyId);
          logger.warn(log, 'webhook receiver answered 410 Gone: subscription ended, its queue stopped');
          return false;
        }
        // Not ended yet: the 410 is retried like any failure, and ends it next time.
        return this.record(turn, head, attempt, { kind: 'retry', retryInMs: decision.retryInMs }, now);
      case 'retry':
      case 'failed': {
        const retryInMs = decision.kind === 'retry' ? decision.retryInMs : null;
        const change = this.healthKeeper.after(turn, retryInMs === null ? 'exhausted' : 'retry', attempt, now);
        const outcome: AttemptOutcome =
          retryInMs === null
            ? { state: 'failed', reason: 'retries_exhausted' }
            : { state: 'pending', nextAttemptAt: retryAt(now, retryInMs, change) };
        const recorded = await outbox.recordAttempt(subscriptionId, head.eventId, attempt, outcome, head.envelope);
        this.deps.onAttempt?.(decision.kind, attempt.latencyMs, queue.companyId);
        logger.warn(
          { ...log, attempt: head.roundAttempts + 1, statusCode: attempt.statusCode, error: attempt.error, ...(retryInMs === null ? {} : { retryInMs }) },
          retryInMs === null ? 'webhook delivery failed after its last retry' : 'webhook attempt failed; will retry',
        );
        if (change) await this.healthKeeper.store(turn, change);
        // After the last retry the queue goes on with its next row, unless it is paused now;
        // before it, the head waits.
        return retryInMs === null && recorded && turn.health.status === 'active';
      }
      default:
        return assertNever(decision);
    }
  }

  /** Ends a subscription whose receiver answered 410; false (logged) when that failed for now. */
  private async endSubscription(queue: DeliveryQueue, log: object): Promise<boolean> {
    try {
      await this.deps.unsubscribe(queue.subscriptionId, queue.companyId);
      return true;
    } catch (cause) {
      this.deps.logger.error({ ...log, err: cause }, 'webhook receiver is gone (410) but the unsubscription failed; will try again');
      return false;
    }
  }

}

/** An attempt as the outbox records it: what was sent and what came back, when there was something. */
const attemptOf = ({ at, statusCode, error, latencyMs, errorKind, request, response }: SentAttempt): DeliveryAttempt => ({
  at,
  statusCode,
  error,
  latencyMs,
  ...(errorKind !== null && errorKind !== undefined ? { errorKind } : {}),
  ...(request ? { request } : {}),
  ...(response ? { response } : {}),
});

/** When a row is tried again: after its retry delay, or at the end of its queue's hold when that is later. */
const retryAt = (now: Date, retryInMs: number, change: HealthChange | null): Date => {
  const after = now.getTime() + retryInMs;
  const hold = change?.holdUntil ? Date.parse(change.holdUntil) : 0;
  return new Date(Math.max(after, hold));
};
