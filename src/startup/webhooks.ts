import { isIPv6 } from 'node:net';
import { startPlan } from './startPlan.js';
import { Lease, WEBHOOKS_LEASE, type LeaseLostError } from '../application/subscriptions/Lease.js';
import { measureLag } from '../application/subscriptions/ProjectionRunner.js';
import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import type { UsageRecorder } from '../application/usage/UsageRecorder.js';
import type { Logger } from '../application/ports/Logger.js';
import type { Config } from '../config.js';
import type { ChronicleMetrics } from '../ops/ChronicleMetrics.js';
import { systemClock } from '../shared/Clock.js';
import { newId } from '../shared/ids.js';
import { createDeliveryAgent } from '../webhooks/deliveryAgent.js';
import { startDeliveryThread } from '../webhooks/deliveryThread.js';
import { PERSON_FIELDS, WEBHOOK_EVENTS } from '../features/index.js';
import { erasePersonFromText } from '../application/personalData/erasePerson.js';
import { toEnvelope, type DerivedWebhookEvent } from '../features/webhookEvents/index.js';
import { announceDeliveryStatus, matchesFilters, subscriptionChange, unsubscribeGone } from '../features/webhooks/index.js';
import { suspendedCompaniesReader } from '../features/companies/index.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { WEBHOOK_FAN_OUT_CHECKPOINT, WebhookFanOut, type FanOutEventSource } from '../webhooks/fanOut.js';
import { checkpointWitness } from '../webhooks/checkpointWitness.js';
import type { FanOutNotOnLogError } from '../webhooks/FanOutNotOnLogError.js';
import { OutboxRetention } from '../webhooks/outboxRetention.js';
import { isRefusedAddress, type ResolveHost } from '../webhooks/targetUrlGuard.js';
import { judgeHolder, thisProcess } from './localProcess.js';
import type { Stores } from './Stores.js';

/** A host resolver as the delivery agent's `lookup` wants it. */
const asLookup = (resolve: ResolveHost) => async (host: string) =>
  (await resolve(host)).map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));

export interface ChronicleWebhooks {
  readonly fanOut: WebhookFanOut<DerivedWebhookEvent>;
  readonly dispatcher: WebhookDispatcher;
  /** Resolves once the fan-out follows the log (on EventStoreDB: after the group check, which may wait or refuse). */
  readonly started: Promise<void>;
  /**
   * Stops the fan-out (its last batch and checkpoint stored), then gives delivery
   * attempts in flight `graceMs`; true when none had to be aborted.
   */
  stop(graceMs: number): Promise<boolean>;
}

export interface WebhookSource {
  /** Where the fan-out reads the log (EventStoreDB: a persistent subscription); absent: the event store's own subscription. */
  readonly source?: FanOutEventSource;
  readonly closeSource?: () => Promise<void>;
}

/**
 * The fan-out follows the log from its own checkpoint (apart from the read
 * models, so a rebuild never sends anything) into the outbox; the dispatcher
 * signs and delivers what the outbox holds; the retention prunes the delivery log.
 *
 * They run only under the webhooks' lease (beside the read models' one, in the
 * same store): one dispatcher per DATA_DIR (or MongoDB database), since a second
 * would send more duplicates. The lease is taken in the background (`started`),
 * so that /ready shows a wait for it (see `Lease`); when another live process
 * keeps it, the start fails with `LeaseHeldError`; when another process takes it
 * over later, the webhooks stop and `onLeaseLost` is told.
 */
export const startWebhooks = async (
  config: Config,
  stores: Stores,
  metrics: ChronicleMetrics,
  logger: Logger,
  options: WebhookSource & {
    readonly resolveHost?: ResolveHost;
    readonly health?: LoopHealth;
    readonly onLeaseLost?: (error: LeaseLostError) => void;
    /** Told when the fan-out stopped for good: the log no longer holds where the outbox stands (the webhooks have stopped). */
    readonly onFailed?: (error: FanOutNotOnLogError) => void;
    /** Where each attempt is counted for its company (the console's usage). */
    readonly usage?: UsageRecorder;
  },
): Promise<ChronicleWebhooks> => {
  const { eventStore, webhookOutbox: outbox, webhookSecrets: secrets } = stores;
  let stopWork: () => Promise<unknown> = async () => undefined;
  // The lease is taken once the process listens (see `started` below), so that /ready shows a wait for it.
  const stopping = new AbortController();
  let fanOutRef: WebhookFanOut<DerivedWebhookEvent> | null = null;
  const leased = Lease.acquire({
    leases: stores.readModels.leases,
    name: WEBHOOKS_LEASE,
    claimant: thisProcess('dispatcher'),
    judgeHolder,
    clock: systemClock,
    logger: logger.child({ role: 'webhooks-lease' }),
    ...(options.health ? { health: options.health } : {}),
    signal: stopping.signal,
    onWaiting: (what) => fanOutRef?.waitingFor(what),
    onLost: (error) => {
      void stopWork();
      options.onLeaseLost?.(error);
    },
  });
  leased.catch(() => undefined);
  const agentOptions = {
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    // As many idle keep-alive sockets as deliveries in flight: with Node's default
    // of 4, a burst to one receiver reconnected for most deliveries.
    maxFreeSockets: config.webhooks.maxInFlight,
  };
  // A host resolver given in code (tests) cannot cross to a thread: its attempts stay on this loop.
  const attempts = (() => {
    const threads = startPlan(config).webhookDeliveryThreads ?? 0;
    if (threads > 0 && !options.resolveHost) {
      const thread = startDeliveryThread({ ...agentOptions, threads, logger: logger.child({ role: 'webhook-delivery-thread' }) });
      return { deps: { sendTurn: thread.sendTurn }, close: () => thread.close() };
    }
    const agent = createDeliveryAgent({ ...agentOptions, isRefusedAddress, ...(options.resolveHost ? { resolve: asLookup(options.resolveHost) } : {}) });
    return { deps: { send: agent.send }, close: async () => agent.close() };
  })();
  const dispatcher = new WebhookDispatcher({
    outbox,
    ...attempts.deps,
    secrets,
    unsubscribe: unsubscribeGone({ eventStore, newId, clock: systemClock, secrets }),
    announce: announceDeliveryStatus({ eventStore, newId, clock: systemClock }),
    timeoutMs: config.webhooks.timeoutMs,
    retryDelaysMs: config.webhooks.retryDelaysMs,
    concurrency: config.webhooks.maxInFlight,
    perCompany: config.webhooks.maxInFlightPerCompany,
    pausing: { pauseDelaysMs: config.webhooks.pauseDelaysMs, disableAfterMs: config.webhooks.disableAfterMs },
    logger: logger.child({ role: 'webhooks' }),
    onAttempt: (outcome, latencyMs, companyId) => {
      metrics.observeAttempt(outcome, latencyMs);
      options.usage?.delivery(companyId, outcome === 'delivered');
    },
    ...(options.health ? { health: options.health } : {}),
    heldCompanies: suspendedCompaniesReader(stores.readModels),
  });
  const witness = checkpointWitness(stores.readModels.checkpoints);
  const fanOut = new WebhookFanOut<DerivedWebhookEvent>({
    eventStore,
    ...(options.source ? { source: options.source } : {}),
    // Beside a remote log (EventStoreDB), the id of the checkpoint's event is kept too, to check the log at the next start.
    ...(options.source && witness ? { witness } : {}),
    onFailed: (error) => {
      void stopWork();
      options.onFailed?.(error);
    },
    outbox,
    derive: WEBHOOK_EVENTS.derive,
    subscriptionChange,
    companyOf: WEBHOOK_EVENTS.companyOf,
    matches: (filters, derived) => matchesFilters(filters, derived, WEBHOOK_EVENTS),
    toEnvelope,
    erasure: {
      of: WEBHOOK_EVENTS.erasureOf,
      rewrite: (envelope, subject) => erasePersonFromText(envelope, subject, PERSON_FIELDS.get(subject.kind) ?? new Set()),
    },
    logger: logger.child({ role: 'webhook-fan-out' }),
    onEnqueued: () => dispatcher.wake(),
  });
  fanOutRef = fanOut;
  // Delivered and failed rows older than WEBHOOK_LOG_RETENTION_DAYS go, in bounded batches.
  const retention = new OutboxRetention({
    outbox,
    retentionDays: config.webhooks.logRetentionDays,
    logger: logger.child({ role: 'webhook-retention' }),
    onPruned: (rows) => metrics.observePruned(rows),
    ...(options.health ? { health: options.health } : {}),
  });
  const started = leased.then(async () => {
    if (stopping.signal.aborted) return;
    dispatcher.start();
    retention.start();
    await fanOut.start();
  });
  // Awaited by the start after it begins listening; marked handled here so a failure meanwhile is not an unhandled rejection.
  started.catch(() => undefined);
  metrics.trackWebhooks(() => outbox.depthByState());
  metrics.trackSubscription(WEBHOOK_FAN_OUT_CHECKPOINT, () => measureLag(eventStore, fanOut.position));

  let stopped: Promise<boolean> | null = null;
  const stop = (graceMs: number): Promise<boolean> =>
    (stopped ??= (async () => {
      const begun = Date.now();
      stopping.abort(new Error('stopping'));
      const lease = await leased.catch(() => null);
      await retention.stop();
      await fanOut.stop();
      await options.closeSource?.();
      const finished = await dispatcher.stop(Math.max(0, graceMs - (Date.now() - begun)));
      await attempts.close();
      await lease?.release();
      return finished;
    })());
  stopWork = () => stop(0);
  return { fanOut, dispatcher, started, stop };
};
