import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../../../shared/Clock.js';
import { laterPosition, type Position } from '../../../shared/Position.js';
import type { Logger } from '../../../application/ports/Logger.js';
import type { LoopHealth } from '../../../application/subscriptions/LoopHealth.js';
import { PeriodicRun } from '../../../application/subscriptions/PeriodicRun.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { contactDecider } from '../domain/contactDecider.js';
import { ContactEvent, contactStream } from '../domain/contactEvents.js';
import { eraseAndForgetContact, type ContactErasureDeps } from './eraseAndForgetContact.js';

/** The loop name under which failing sweeps show in `/ready`. */
export const CONTACT_RETENTION_LOOP = 'contact-retention';

/** A deleted contact whose restore period has ended, as the `deleted_contacts` read model lists it. */
export interface ExpiredDeletion {
  readonly id: string;
  readonly companyId: string;
}

export interface ContactRetentionSweepDeps extends ContactErasureDeps {
  /** Up to `limit` deleted contacts whose `restorableUntil` is before `at`, of any company (`deleted_contacts`). */
  readonly expired: (at: Date, limit: number) => Promise<readonly ExpiredDeletion[]>;
  /** Waits (bounded) for the read models to apply a position; false when the wait ran out. */
  readonly waitForReadModels: (position: Position) => Promise<boolean>;
  /** What the engine needs at once after erasures (`PersonErasure.compactNow`), run once per sweep that erased. */
  readonly compact: () => Promise<unknown>;
  /** Whose time decides when a period has ended (the one the API deleted with). */
  readonly clock: Clock;
  readonly logger: Logger;
  /** Time between sweeps; the first runs `min(intervalMs, 30 s)` after `start()`. */
  readonly intervalMs: number;
  /** Contacts read and erased at a time; default 100. */
  readonly batchSize?: number;
  /** Batches in one sweep; default 100 (a larger backlog is worked off over several sweeps). */
  readonly maxBatchesPerSweep?: number;
  readonly health?: LoopHealth;
}

/**
 * The end of deleted contacts' restore periods: every `intervalMs`, erases each
 * deleted contact whose `restorableUntil` has passed, as `POST /contacts/:id/erase`
 * erases one, with reason `retention_ended` and source `system` in its metadata.
 * Run by the process that holds the read models' lease (the projector), which
 * applies the erasures before it compacts, once per sweep.
 *
 * A contact is erased only when its stream, read then, still has it deleted with
 * its period over (the read model may lag behind a restore made just before the
 * period ended); a restore after the period is refused, so none can come between.
 */
export class ContactRetentionSweep {
  private readonly batchSize: number;
  private readonly maxBatches: number;
  private readonly periodic: PeriodicRun<number>;

  constructor(private readonly deps: ContactRetentionSweepDeps) {
    if (!(deps.intervalMs > 0)) throw new RangeError('intervalMs must be positive');
    this.batchSize = Math.max(1, Math.floor(deps.batchSize ?? 100));
    this.maxBatches = Math.max(1, Math.floor(deps.maxBatchesPerSweep ?? 100));
    this.periodic = new PeriodicRun({
      run: () => this.sweep(),
      firstAfterMs: Math.min(deps.intervalMs, 30_000),
      everyMs: deps.intervalMs,
      loop: CONTACT_RETENTION_LOOP,
      logger: deps.logger,
      failedMessage: 'deleted contacts: the retention sweep failed; retried at the next sweep',
      ...(deps.health ? { health: deps.health } : {}),
    });
  }

  /** One sweep; answers how many contacts it erased. A sweep asked for while one runs is that one. */
  runOnce(): Promise<number> {
    return this.periodic.runOnce();
  }

  /** Sweeps periodically until stop(); timers do not keep the process alive. */
  start(): void {
    this.periodic.start();
  }

  /** Stops the timer; a sweep in flight finishes the batch it is erasing. */
  stop(): Promise<void> {
    return this.periodic.stop();
  }

  private async sweep(): Promise<number> {
    const now = this.deps.clock.now();
    let erased = 0;
    const skipped = new Set<string>();
    for (let batch = 0; batch < this.maxBatches && !this.periodic.stopped; batch++) {
      const page = await this.deps.expired(now, this.batchSize + skipped.size);
      const due = page.filter((doc) => !skipped.has(doc.id));
      if (due.length === 0) break;
      let last: Position | null = null;
      for (const doc of due) {
        const position = await this.eraseIfDue(doc, now);
        if (position === undefined) {
          skipped.add(doc.id);
          continue;
        }
        erased++;
        last = laterPosition(last, position);
      }
      // The next page is read once the read models have taken these out.
      if (last !== null && !(await this.deps.waitForReadModels(last))) break;
    }
    if (erased > 0) {
      await this.deps.compact();
      this.deps.logger.info({ erased, before: now.toISOString() }, 'deleted contacts erased at the end of their restore period');
    }
    return erased;
  }

  /** The position of the erasure (null: erased already); undefined when the stream no longer has the contact deleted with its period over. */
  private async eraseIfDue(doc: ExpiredDeletion, now: Date): Promise<Position | null | undefined> {
    const { commands } = this.deps;
    const { state } = await loadAggregate(commands.eventStore, contactStream(doc.id), { eventCodec: ContactEvent, decider: contactDecider });
    if (state.status !== 'deleted' || Date.parse(state.restorableUntil) > now.getTime()) return undefined;
    const result = await eraseAndForgetContact(this.deps, {
      companyId: doc.companyId,
      contactId: doc.id,
      reason: 'retention_ended',
      metadata: { source: 'system', correlationId: commands.newId(), companyId: doc.companyId },
    });
    return E.isLeft(result) ? undefined : result.right.position;
  }
}
