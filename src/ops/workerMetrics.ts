import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { StoreUnavailableError } from '../application/ports/StoreUnavailableError.js';
import { sendQuietly, type IpcEndpoint } from '../shared/IpcEndpoint.js';

/** What one process's registries hold, as prom-client exports them for aggregation. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

const ASK = 'chronicle:metrics';
const ANSWER = 'chronicle:metrics:answer';
const SNAPSHOT = 'chronicle:metrics:snapshot';
const SNAPSHOT_ANSWER = 'chronicle:metrics:snapshot:answer';

type Message =
  /** A worker asks the supervisor for every worker's figures, for its /metrics. */
  | { readonly type: typeof ASK; readonly id: number }
  /** `text` null: the figures could not be added up. */
  | { readonly type: typeof ANSWER; readonly id: number; readonly text: string | null }
  /** The supervisor asks a worker for its own figures. */
  | { readonly type: typeof SNAPSHOT; readonly id: number }
  | { readonly type: typeof SNAPSHOT_ANSWER; readonly id: number; readonly metrics: MetricsSnapshot | null };

const is =
  <T extends Message['type']>(type: T) =>
  (message: unknown): message is Extract<Message, { type: T }> =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** How long the supervisor waits for each worker's figures; a worker that does not answer is left out of that scrape. */
export const SNAPSHOT_WITHIN_MS = 2_000;

/**
 * An API worker of `API_WORKERS`: answers the supervisor's requests for its own
 * figures (`snapshot`), and renders `/metrics` by asking the supervisor for every
 * worker's, added up (`render`). A scrape reaches one worker (they share PORT),
 * and still counts the requests of all of them. Returns what stops answering.
 */
export const supervisedMetrics = (
  snapshot: () => Promise<MetricsSnapshot>,
  supervisor: IpcEndpoint,
  answerWithinMs = SNAPSHOT_WITHIN_MS * 2,
): { readonly render: () => Promise<string>; readonly stop: () => void } => {
  let nextId = 1;
  const waiting = new Map<number, (text: string | null) => void>();
  const isSnapshot = is(SNAPSHOT);
  const isAnswer = is(ANSWER);
  const listener = (message: unknown): void => {
    if (isSnapshot(message)) {
      void snapshot().then(
        (metrics) => supervisor.send({ type: SNAPSHOT_ANSWER, id: message.id, metrics } satisfies Message),
        () => supervisor.send({ type: SNAPSHOT_ANSWER, id: message.id, metrics: null } satisfies Message),
      );
    } else if (isAnswer(message)) {
      waiting.get(message.id)?.(message.text);
    }
  };
  supervisor.on('message', listener);
  const render = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        // A 503 with Retry-After: the scrape is tried again, never answered with one worker's counts.
        reject(new StoreUnavailableError('busy', 1, { cause: new Error(`the supervisor did not answer with the workers' metrics within ${answerWithinMs} ms`) }));
      }, answerWithinMs);
      waiting.set(id, (text) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (text === null) reject(new StoreUnavailableError('busy', 1, { cause: new Error("the supervisor could not add up the workers' metrics") }));
        else resolve(text);
      });
      supervisor.send({ type: ASK, id } satisfies Message);
    });
  return { render, stop: () => supervisor.off('message', listener) };
};

/**
 * The supervisor's side: `serve(worker)` for each API worker it starts. When one
 * asks, every worker served is asked for its figures, which are added up by
 * prom-client's cluster aggregation (each metric by its `aggregator`: counts and
 * histograms summed, the log's head and the subscriptions' positions the
 * highest, ...) and sent back as the Prometheus text. `serve` returns what to
 * call once the worker is gone.
 */
export const workerMetricsHub = (snapshotWithinMs = SNAPSHOT_WITHIN_MS): { readonly serve: (worker: IpcEndpoint) => () => void } => {
  const workers = new Set<IpcEndpoint>();
  let nextId = 1;
  const isAsk = is(ASK);
  const isSnapshotAnswer = is(SNAPSHOT_ANSWER);

  const snapshotOf = (worker: IpcEndpoint): Promise<MetricsSnapshot | null> =>
    new Promise((resolve) => {
      const id = nextId++;
      const done = (metrics: MetricsSnapshot | null) => {
        clearTimeout(timer);
        worker.off('message', listener);
        resolve(metrics);
      };
      const listener = (message: unknown) => {
        if (isSnapshotAnswer(message) && message.id === id) done(message.metrics);
      };
      const timer = setTimeout(() => done(null), snapshotWithinMs);
      worker.on('message', listener);
      if (!sendQuietly(worker, { type: SNAPSHOT, id } satisfies Message)) done(null);
    });

  const aggregated = async (): Promise<string> => {
    const snapshots = (await Promise.all([...workers].map(snapshotOf))).filter((s): s is MetricsSnapshot => s !== null);
    return AggregatorRegistry.aggregate(snapshots).metrics();
  };

  return {
    serve: (worker) => {
      workers.add(worker);
      const listener = (message: unknown) => {
        if (!isAsk(message)) return;
        const answer = (text: string | null) => {
          // A worker that is gone gets no answer.
          sendQuietly(worker, { type: ANSWER, id: message.id, text } satisfies Message);
        };
        aggregated().then(answer, () => answer(null));
      };
      worker.on('message', listener);
      return () => {
        workers.delete(worker);
        worker.off('message', listener);
      };
    },
  };
};
