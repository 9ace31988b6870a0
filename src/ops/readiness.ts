import type { Logger } from '../application/ports/Logger.js';
import type { LoopFailure } from '../application/subscriptions/LoopHealth.js';
import type { UnreadableEvent } from '../application/versioning/UndecodableEventError.js';
import type { ProjectionLag } from '../application/subscriptions/ProjectionRunner.js';
import { isWorking, type SubscriptionStatusSnapshot } from '../application/subscriptions/SubscriptionStatus.js';
import { TimeoutError, withTimeout } from './withTimeout.js';

/** How long one readiness check may take before it counts as failed. */
export const READY_CHECK_TIMEOUT_MS = 2000;

/**
 * `ok`; `failed` (the store answered with an error); `timeout` (no answer in
 * time); `lagging` (the read models are too far behind the log); `stopping` (the
 * process is shutting down and wants no new traffic); `stopped` (a subscription
 * stopped at an event of the log that this release cannot read).
 */
export type CheckStatus = 'ok' | 'failed' | 'timeout' | 'lagging' | 'stopping' | 'waiting' | 'stopped';

export interface CheckResult {
  readonly status: CheckStatus;
  /** Projections only: age of the oldest event not applied yet. */
  readonly lagMs?: number;
  /** Subscriptions only, when `waiting`: what each subscription that is not connected waits for. */
  readonly waitingFor?: Readonly<Record<string, string>>;
  /** `failed` background loops only: each loop whose store calls fail now: since when, how many times. */
  readonly failing?: Readonly<Record<string, LoopFailure>>;
  /** `stopped` only: the event that cannot be read. */
  readonly event?: UnreadableEvent;
}

/** A subscription that stops at an unreadable event (the projection runner, the webhook fan-out): what stopped it, or null. */
export interface StoppedBy {
  readonly event: UnreadableEvent;
}

export interface ReadinessDeps {
  /** Answers when the event store does (`headPosition()`). */
  readonly eventStore: () => Promise<unknown>;
  /** Answers when the read-model store does (loading a checkpoint). */
  readonly readModels: () => Promise<unknown>;
  /** Where this process serves reads: how far its read models are behind the log. */
  readonly projectionLag?: () => Promise<ProjectionLag>;
  /**
   * An API process with a read replica: how far the replica's read models are behind
   * the log. Shown as `readReplica` (`ok` or `lagging` past maxLagMs, `failed` when it
   * does not answer) and never makes the process unready: its reads then go to the primary.
   */
  readonly readReplica?: () => Promise<ProjectionLag>;
  readonly maxLagMs: number;
  readonly checkTimeoutMs?: number;
  /**
   * The subscriptions this process runs (`read-models`, `webhook-fan-out`): the
   * `subscriptions` check is `waiting` while one is neither connected nor a healthy standby.
   */
  readonly subscriptions?: () => Readonly<Record<string, SubscriptionStatusSnapshot>>;
  /** True once a graceful shutdown began. */
  readonly stopping: () => boolean;
  /**
   * True while the start is not complete (the read models catching up): a `start`
   * check, present only then, is `waiting`, as the resource routes answer 503
   * `STARTING`. Absent: the process has no such gate.
   */
  readonly starting?: () => boolean;
  /**
   * Subscriptions of this process by check name (`projections`, `webhookFanOut`):
   * the event each stopped at, or null while it runs. A stopped one fails the
   * check with `stopped` and the event (no retry can read it).
   */
  readonly stoppedAt?: Readonly<Record<string, () => StoppedBy | null>>;
  /**
   * The background loops whose store calls fail right now (they keep retrying): a
   * `backgroundLoops` check, present only while one fails, names them.
   */
  readonly loops?: () => Readonly<Record<string, LoopFailure>>;
  readonly logger: Logger;
}

export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, CheckResult>>;
}

/**
 * Runs every check at once, each bounded by `checkTimeoutMs`, so the answer never
 * takes much longer than one timeout. Why a check failed is logged, never
 * answered: a driver's error text can name hosts and addresses, and `/ready` needs
 * no API key.
 */
export const checkReadiness = async (deps: ReadinessDeps): Promise<Readiness> => {
  const timeoutMs = deps.checkTimeoutMs ?? READY_CHECK_TIMEOUT_MS;
  const run = async (name: string, check: () => Promise<CheckResult>): Promise<readonly [string, CheckResult]> => {
    try {
      return [name, await withTimeout(check(), timeoutMs)];
    } catch (error) {
      const status: CheckStatus = error instanceof TimeoutError ? 'timeout' : 'failed';
      deps.logger.warn({ err: error, check: name, status }, 'readiness check failed');
      return [name, { status }];
    }
  };
  const pending = [
    run('eventStore', async () => (await deps.eventStore(), { status: 'ok' })),
    run('readModels', async () => (await deps.readModels(), { status: 'ok' })),
  ];
  const { projectionLag } = deps;
  if (projectionLag) {
    pending.push(
      run('projections', async () => {
        const { lagMs } = await projectionLag();
        return { status: lagMs <= deps.maxLagMs ? 'ok' : 'lagging', lagMs };
      }),
    );
  }
  const { readReplica } = deps;
  if (readReplica) {
    pending.push(
      run('readReplica', async () => {
        const { lagMs } = await readReplica();
        return { status: lagMs <= deps.maxLagMs ? 'ok' : 'lagging', lagMs };
      }),
    );
  }
  const { subscriptions } = deps;
  if (subscriptions) {
    pending.push(
      run('subscriptions', async () => {
        const waitingFor: Record<string, string> = {};
        for (const [name, status] of Object.entries(subscriptions())) {
          if (status.state !== 'stopped' && !isWorking(status.state)) waitingFor[name] = status.waitingFor ?? status.state;
        }
        return Object.keys(waitingFor).length === 0 ? { status: 'ok' } : { status: 'waiting', waitingFor };
      }),
    );
  }
  const checks: Record<string, CheckResult> = Object.fromEntries(await Promise.all(pending));
  for (const [name, stoppedBy] of Object.entries(deps.stoppedAt ?? {})) {
    const stopped = stoppedBy();
    if (stopped) checks[name] = { status: 'stopped', event: stopped.event };
  }
  const failing = deps.loops?.() ?? {};
  if (Object.keys(failing).length > 0) checks.backgroundLoops = { status: 'failed', failing };
  if (deps.starting?.()) checks.start = { status: 'waiting' };
  if (deps.stopping()) checks.shutdown = { status: 'stopping' };
  // The replica's check informs: a replica behind or away sends reads to the primary, it stops nothing.
  return { ready: Object.entries(checks).every(([name, check]) => name === 'readReplica' || check.status === 'ok'), checks };
};

/** A failing check as `/ready`'s message names it, e.g. `projections lagging`, or for a stopped one the event and why. */
export const describeCheck = (name: string, result: CheckResult): string => {
  const { event } = result;
  if (result.status !== 'stopped' || !event) return `${name} ${result.status}`;
  const version = event.version === null ? '' : `, version ${event.version}`;
  return (
    `${name} stopped at event ${event.eventId} (${event.type}${version}) at position ${event.position} in ${event.stream}, ` +
    'which this release cannot read'
  );
};
