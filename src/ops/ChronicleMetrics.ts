import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { CREDENTIAL_KINDS, type CredentialKind } from '../application/credentials/FailedCredentials.js';
import type { Logger } from '../application/ports/Logger.js';
import type { ProjectionLag } from '../application/subscriptions/ProjectionRunner.js';
import type { DeliveryState } from '../application/ports/WebhookOutbox.js';
import type { AttemptResult } from '../webhooks/dispatcher.js';
import type { Position } from '../shared/Position.js';
import { processMetricsRegistry } from './processMetrics.js';
import { withTimeout } from './withTimeout.js';
import type { MetricsSnapshot } from './workerMetrics.js';

/** How long the figures read from the stores at a scrape may take; a late one is left out of that scrape. */
export const METRICS_COLLECT_TIMEOUT_MS = 2000;

/** Request latency buckets (seconds): most requests take a few milliseconds, slow ones are cut off at 30 s. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Delivery-attempt latency buckets (seconds), up to the default attempt timeout of 30 s. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const ATTEMPT_OUTCOMES: readonly AttemptResult[] = ['delivered', 'retry', 'failed', 'gone'];
const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];

type RequestLabels = 'method' | 'route' | 'status';

interface WebhookMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly outboxRows: Gauge<'state'>;
  readonly pruned: Counter;
  readonly depth: () => Promise<Record<DeliveryState, number>>;
}

export interface ChronicleMetricsDeps {
  readonly logger: Logger;
  /** The newest position of the log (`EventStore.headPosition`). */
  readonly headPosition: () => Promise<Position | null>;
  readonly collectTimeoutMs?: number;
}

/**
 * The metrics of one Chronicle instance, on a registry of its own (never the
 * global default one: tests start several instances in one process). Labels are
 * bounded: a route template (never a raw path or id), a method, a status, a
 * subscription name, an outcome, a state; never a company, a key or a secret.
 *
 * Counters and histograms are updated as things happen; what lives in a store
 * (positions, lag, outbox depth) is read at each scrape, bounded in time.
 */
export class ChronicleMetrics {
  private readonly registry = new Registry();
  private readonly requestDuration: Histogram<RequestLabels>;
  private readonly subscriptions = new Map<string, () => Promise<ProjectionLag>>();
  private readonly position: Gauge<'subscription'>;
  private readonly lagSeconds: Gauge<'subscription'>;
  private readonly caughtUp: Gauge<'subscription'>;
  private readonly head: Gauge;
  private webhooks: WebhookMetrics | null = null;
  private readonly collectTimeoutMs: number;
  private readonly signals: Counter<'signal' | 'direction'>;
  private readonly failedCredentials: Counter<'kind' | 'throttled'>;

  constructor(private readonly deps: ChronicleMetricsDeps) {
    this.collectTimeoutMs = deps.collectTimeoutMs ?? METRICS_COLLECT_TIMEOUT_MS;
    const registers = [this.registry];
    const requestDuration = new Histogram<RequestLabels>({
      name: 'chronicle_http_request_duration_seconds',
      help: 'Time from a request reaching the application to its response being ready, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.requestDuration = requestDuration;
    // The requests counted are the histogram's own counts, copied at each scrape: a request
    // costs one observation, not two (each hashes its labels).
    new Counter<RequestLabels>({
      name: 'chronicle_http_requests_total',
      help: 'HTTP requests answered, by method, route template (`unmatched` when no route matched) and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
      async collect() {
        const { values } = await requestDuration.get();
        this.reset();
        for (const value of values) {
          if (value.metricName === 'chronicle_http_request_duration_seconds_count') this.inc(value.labels as Partial<Record<RequestLabels, string>>, value.value);
        }
      },
    });
    this.head = new Gauge({
      name: 'chronicle_log_head_position',
      help: 'Position of the newest event in the log (exact on SQLite; a float approximation of commit × 2^64 + prepare on EventStoreDB).',
      registers,
      // API_WORKERS: every worker reads the same log (see workerMetrics.ts).
      aggregator: 'max',
    });
    this.position = new Gauge({
      name: 'chronicle_projection_position',
      help: 'Last log position a subscription (`read-models`, `webhook-fan-out`) has applied (same precision as chronicle_log_head_position).',
      labelNames: ['subscription'],
      registers,
      aggregator: 'min',
    });
    this.lagSeconds = new Gauge({
      name: 'chronicle_projection_lag_seconds',
      help: 'Age of the oldest event a subscription has not applied yet (0 when caught up).',
      labelNames: ['subscription'],
      registers,
      aggregator: 'max',
    });
    this.caughtUp = new Gauge({
      name: 'chronicle_projection_caught_up',
      help: '1 when a subscription has applied the whole log, else 0.',
      labelNames: ['subscription'],
      registers,
      aggregator: 'min',
    });
    this.signals = new Counter({
      name: 'chronicle_progress_signals_total',
      help: "API_WORKERS' progress signals (`log-appended`, `read-models-applied`) this process sent to its supervisor or received from it.",
      labelNames: ['signal', 'direction'],
      registers,
    });
    this.failedCredentials = new Counter({
      name: 'chronicle_failed_credentials_total',
      help:
        'Credentials refused by this process (`kind`: api_key, admin_token, console_link, console_session), ' +
        '`throttled="true"` for those answered 429 because their client address was past FAILED_CREDENTIALS_LIMIT.',
      labelNames: ['kind', 'throttled'],
      registers,
    });
    // Every series at 0 from the start, so a rate over them is defined before the first failure.
    for (const kind of CREDENTIAL_KINDS) for (const throttled of ['false', 'true']) this.failedCredentials.inc({ kind, throttled }, 0);
  }

  /**
   * `chronicle_read_views_total`: GETs of one record (contacts, deals) answered from this
   * process's memory (`answered="memory"`) or read from the store (`"store"`), by a process
   * that keeps warm views (PostgreSQL, serving the API and writing the read models).
   */
  countReadViews(counts: { readonly hits: number; readonly misses: number }): void {
    new Counter({
      name: 'chronicle_read_views_total',
      help: 'GETs of one record answered from memory (answered="memory") or read from the store (answered="store"), where warm views are kept.',
      labelNames: ['answered'],
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ answered: 'memory' }, counts.hits);
        this.inc({ answered: 'store' }, counts.misses);
      },
    });
  }

  /**
   * `chronicle_replica_reads_total`: GETs of an API process with a read replica
   * (POSTGRES_READ_URL), by where they read: `replica`, or the primary because the
   * replica had not applied what they waited for within POSTGRES_READ_FALLBACK_MS
   * (`primary_lag`) or had just failed (`primary_unavailable`).
   */
  countReplicaReads(reads: { readonly replicaRequests: number; readonly fallbacks: { readonly lag: number; readonly unavailable: number } }): void {
    new Counter({
      name: 'chronicle_replica_reads_total',
      help: 'GETs of an API process with a read replica, by where they read: replica, primary_lag (the replica was behind), primary_unavailable (it had failed).',
      labelNames: ['read_from'],
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ read_from: 'replica' }, reads.replicaRequests);
        this.inc({ read_from: 'primary_lag' }, reads.fallbacks.lag);
        this.inc({ read_from: 'primary_unavailable' }, reads.fallbacks.unavailable);
      },
    });
  }

  /** One refused credential (see FailedCredentials). */
  countFailedCredential(kind: CredentialKind, throttled: boolean): void {
    this.failedCredentials.inc({ kind, throttled: String(throttled) });
  }

  /** One progress signal sent or received (API_WORKERS; see src/startup/progressSignals.ts). */
  countSignal(signal: 'log-appended' | 'read-models-applied', direction: 'sent' | 'received'): void {
    this.signals.inc({ signal, direction });
  }

  /** Reports a subscription that follows the log (`read-models`, `webhook-fan-out`) at every scrape. */
  trackSubscription(name: string, lag: () => Promise<ProjectionLag>): void {
    this.subscriptions.set(name, lag);
  }

  /**
   * Adds the webhook metrics (only where the dispatcher runs): attempts by
   * outcome, their latency, rows pruned, and the outbox rows by state, read at
   * every scrape from the outbox's counters.
   */
  trackWebhooks(depth: () => Promise<Record<DeliveryState, number>>): void {
    if (this.webhooks) return;
    const registers = [this.registry];
    const attempts = new Counter({
      name: 'chronicle_webhook_attempts_total',
      help: 'Webhook delivery attempts recorded, by outcome: delivered (200), retry (another attempt follows), failed (the last retry failed), gone (410).',
      labelNames: ['outcome'],
      registers,
    });
    const attemptDuration = new Histogram({
      name: 'chronicle_webhook_attempt_duration_seconds',
      help: 'Duration of one webhook delivery attempt, by outcome.',
      labelNames: ['outcome'],
      buckets: ATTEMPT_BUCKETS,
      registers,
    });
    const outboxRows = new Gauge({
      name: 'chronicle_webhook_outbox_rows',
      help: 'Rows of the webhook outbox by state, over every subscription.',
      labelNames: ['state'],
      registers,
    });
    const pruned = new Counter({
      name: 'chronicle_webhook_outbox_pruned_total',
      help: 'Delivered and failed rows pruned from the webhook outbox by the retention (WEBHOOK_LOG_RETENTION_DAYS).',
      registers,
    });
    // Every outcome from zero, so that rate() and increase() see the first one.
    for (const outcome of ATTEMPT_OUTCOMES) {
      attempts.inc({ outcome }, 0);
      attemptDuration.zero({ outcome });
    }
    this.webhooks = { attempts, attemptDuration, outboxRows, pruned, depth };
  }

  /** One answered request. `route` is a template or `unmatched`. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requestDuration.observe({ method, route, status: String(status) }, seconds);
  }

  /** One recorded delivery attempt (the dispatcher's `onAttempt`). */
  observeAttempt(outcome: AttemptResult, latencyMs: number): void {
    if (!this.webhooks) return;
    this.webhooks.attempts.inc({ outcome });
    this.webhooks.attemptDuration.observe({ outcome }, latencyMs / 1000);
  }

  /** Rows the delivery log's retention pruned (its `onPruned`). */
  observePruned(rows: number): void {
    if (rows > 0) this.webhooks?.pruned.inc(rows);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition: Node's process metrics, then this instance's. */
  async render(): Promise<string> {
    await this.collect();
    const [processText, ownText] = await Promise.all([processMetricsRegistry().metrics(), this.registry.metrics()]);
    return `${processText.trimEnd()}\n${ownText}`;
  }

  /**
   * This process's figures as prom-client exports them for adding up across
   * processes (`workerMetrics.ts`): Node's process metrics, then this instance's.
   */
  async snapshot(): Promise<MetricsSnapshot> {
    await this.collect();
    const [processMetrics, own] = await Promise.all([processMetricsRegistry().getMetricsAsJSON(), this.registry.getMetricsAsJSON()]);
    return [...processMetrics, ...own];
  }

  /**
   * Reads the store-backed figures. One that fails or is late is left out of this
   * scrape (its series disappear, which `absent()` alerts can see) and logged.
   * A position of null (nothing applied yet, an empty log) is reported as 0.
   */
  private async collect(): Promise<void> {
    const bounded = <T>(what: string, read: () => Promise<T>): Promise<{ readonly value: T } | null> =>
      withTimeout(read(), this.collectTimeoutMs).then(
        (value) => ({ value }),
        (error: unknown) => {
          this.deps.logger.warn({ err: error, metric: what }, 'metrics: a figure could not be read');
          return null;
        },
      );
    const head = bounded('log head', this.deps.headPosition).then((read) => {
      if (read === null) this.head.reset();
      else this.head.set(Number(read.value ?? 0));
    });
    const subscriptions = [...this.subscriptions.entries()].map(async ([name, lag]) => {
      const labels = { subscription: name };
      const measured = (await bounded(name, lag))?.value;
      if (!measured) {
        for (const gauge of [this.position, this.lagSeconds, this.caughtUp]) gauge.remove(labels);
        return;
      }
      this.position.set(labels, Number(measured.position ?? 0));
      this.lagSeconds.set(labels, measured.lagMs / 1000);
      this.caughtUp.set(labels, measured.caughtUp ? 1 : 0);
    });
    const webhooks = this.webhooks;
    const outbox = webhooks
      ? bounded('webhook outbox', webhooks.depth).then((read) => {
          webhooks.outboxRows.reset();
          const depth = read?.value;
          if (depth) for (const state of DELIVERY_STATES) webhooks.outboxRows.set({ state }, depth[state] ?? 0);
        })
      : undefined;
    await Promise.all([head, ...subscriptions, outbox]);
  }
}
