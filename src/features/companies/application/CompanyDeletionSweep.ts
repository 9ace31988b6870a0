import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../../../shared/Clock.js';
import type { Logger } from '../../../application/ports/Logger.js';
import type { LoopHealth } from '../../../application/subscriptions/LoopHealth.js';
import { PeriodicRun } from '../../../application/subscriptions/PeriodicRun.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { companyDecider } from '../domain/companyDecider.js';
import { CompanyEvent, companyStream } from '../domain/companyEvents.js';
import { eraseCompany, type CompanyErasureDeps } from './companyDeletion.js';

/** The loop name under which failing sweeps show in `/ready`. */
export const COMPANY_DELETION_LOOP = 'company-deletion';

export interface CompanyDeletionSweepDeps extends CompanyErasureDeps {
  /** Up to `limit` ids of companies whose waiting deletion has an `eraseAfter` before `at` (the `companies` read model). */
  readonly due: (at: Date, limit: number) => Promise<readonly string[]>;
  /** Whose time decides when a waiting period has ended. */
  readonly clock: Clock;
  readonly logger: Logger;
  /** Time between sweeps; the first runs `min(intervalMs, 30 s)` after `start()`. */
  readonly intervalMs: number;
  readonly health?: LoopHealth;
}

/**
 * The end of companies' waiting periods: every `intervalMs`, erases each company
 * whose deletion was asked for and whose `eraseAfter` has passed, as
 * `DELETE /admin/companies/:id?now=true` does, with source `system` in the
 * metadata. Run by the process that holds the read models' lease (the projector).
 * What is due is decided from the log: the read model lists candidates, and a
 * company is erased only when its stream, read then, still has its deletion
 * waiting with its period over (a cancellation the read model has not applied yet
 * wins), or its erasure begun and not ended (cut short by a crash). A restart
 * loses nothing: the waiting deletions are in the log.
 */
export class CompanyDeletionSweep {
  private readonly periodic: PeriodicRun<number>;

  constructor(private readonly deps: CompanyDeletionSweepDeps) {
    if (!(deps.intervalMs > 0)) throw new RangeError('intervalMs must be positive');
    this.periodic = new PeriodicRun({
      run: () => this.sweep(),
      firstAfterMs: Math.min(deps.intervalMs, 30_000),
      everyMs: deps.intervalMs,
      loop: COMPANY_DELETION_LOOP,
      logger: deps.logger,
      failedMessage: 'deleted companies: the erasure sweep failed; retried at the next sweep',
      ...(deps.health ? { health: deps.health } : {}),
    });
  }

  /** One sweep; answers how many companies it erased. A sweep asked for while one runs is that one. */
  runOnce(): Promise<number> {
    return this.periodic.runOnce();
  }

  /** Sweeps periodically until stop(); timers do not keep the process alive. */
  start(): void {
    this.periodic.start();
  }

  /** Stops the timer; a sweep in flight finishes the company it is erasing. */
  stop(): Promise<void> {
    return this.periodic.stop();
  }

  private async sweep(): Promise<number> {
    const now = this.deps.clock.now();
    let erased = 0;
    // Companies are few, and each erasure is long: one page a sweep, the rest at the next.
    for (const companyId of await this.deps.due(now, 100)) {
      if (this.periodic.stopped) break;
      if (await this.eraseIfDue(companyId, now)) erased++;
    }
    if (erased > 0) this.deps.logger.info({ erased, before: now.toISOString() }, 'deleted companies erased at the end of their waiting period');
    return erased;
  }

  private async eraseIfDue(companyId: string, now: Date): Promise<boolean> {
    const { commands } = this.deps;
    const { state } = await loadAggregate(commands.eventStore, companyStream(companyId), { eventCodec: CompanyEvent, decider: companyDecider });
    if (state.status !== 'created' || !state.deletion) return false;
    // An erasure cut short is finished whatever its `eraseAfter` (a `now=true` one's is still ahead).
    if (state.deletion.erasingSince === null && Date.parse(state.deletion.eraseAfter) > now.getTime()) return false;
    const result = await eraseCompany(this.deps, { companyId, metadata: { source: 'system', correlationId: commands.newId() } });
    if (E.isLeft(result)) return false;
    this.deps.logger.info({ companyId, ...(result.right.counts ?? {}) }, 'company erased');
    return true;
  }
}
