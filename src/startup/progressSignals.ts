import type { EventStore } from '../application/ports/EventStore.js';
import type { ChronicleMetrics } from '../ops/ChronicleMetrics.js';
import type { ReadSide } from './readSide.js';
import { sendQuietly, type IpcEndpoint } from '../shared/IpcEndpoint.js';

/**
 * Signals between API_WORKERS' processes that shorten a write's wait for the
 * projector in another process. Without them, that wait is two polls: the
 * projector's subscription looks at the log every 5 ms, an API worker at the
 * projector's checkpoint every 2 ms. With them:
 *
 * - an API worker, after each group commit of its appends, says so
 *   (`LOG_APPENDED`); the supervisor relays it to the background process, whose
 *   subscriptions look at the log at once;
 * - the background process, after each batch its projections commit, says so
 *   (`READ_MODELS_APPLIED`); the supervisor relays it to every API worker, whose
 *   waiting writes read the checkpoint at once.
 *
 * A signal carries no position: whoever receives it reads the file, as a poll
 * would. A lost signal (a process restarting) costs only the poll's delay, so the
 * polls stay as they are; processes started one by one (no supervisor) rely on
 * them alone.
 */
export const LOG_APPENDED = 'chronicle:log-appended';
export const READ_MODELS_APPLIED = 'chronicle:read-models-applied';

export type ProgressSignal = { readonly type: typeof LOG_APPENDED } | { readonly type: typeof READ_MODELS_APPLIED };

const signalOf = (message: unknown): ProgressSignal['type'] | null => {
  if (typeof message !== 'object' || message === null) return null;
  const { type } = message as { type?: unknown };
  return type === LOG_APPENDED || type === READ_MODELS_APPLIED ? type : null;
};

/** A signal's name in metrics: its type without the prefix. */
export type SignalName = 'log-appended' | 'read-models-applied';
const nameOf = (type: ProgressSignal['type']): SignalName => (type === LOG_APPENDED ? 'log-appended' : 'read-models-applied');

/** What a supervised process offers to the signals: each hook is there when its role runs here. */
export interface ProgressHooks {
  /** Counts each signal sent (taken by an open channel) and received (metrics). */
  readonly count?: (signal: SignalName, direction: 'sent' | 'received') => void;
  /** The log's commits made here (API workers: `EventStore.onAppended`). */
  readonly onAppended?: (listener: () => void) => () => void;
  /** Look at the log now (the projector's and the fan-out's subscriptions: `EventStore.lookNow`). */
  readonly lookAtLog?: () => void;
  /** The batches the projections here commit (the background process: `ProjectionRunner.onApplied`). */
  readonly onApplied?: (listener: () => void) => () => void;
  /** Read the projector's checkpoint now (API workers: `ReadSide.checkpointMoved`). */
  readonly lookAtCheckpoint?: () => void;
}

/**
 * In a process API_WORKERS' supervisor started: sends its supervisor a signal
 * after each commit of its appends and each batch its projections apply, and acts
 * on the signals relayed to it. Returns what stops both.
 */
export const exchangeProgressSignals = (supervisor: IpcEndpoint, hooks: ProgressHooks): (() => void) => {
  // A signal a closed channel drops only leaves the wait to the polls.
  const send = (type: ProgressSignal['type']) => () => {
    if (sendQuietly(supervisor, { type } satisfies ProgressSignal)) hooks.count?.(nameOf(type), 'sent');
  };
  const stops = [hooks.onAppended?.(send(LOG_APPENDED)), hooks.onApplied?.(send(READ_MODELS_APPLIED))];
  const listener = (message: unknown): void => {
    const signal = signalOf(message);
    if (signal === null) return;
    hooks.count?.(nameOf(signal), 'received');
    if (signal === LOG_APPENDED) hooks.lookAtLog?.();
    else hooks.lookAtCheckpoint?.();
  };
  supervisor.on('message', listener);
  return () => {
    stops.forEach((stop) => stop?.());
    supervisor.off('message', listener);
  };
};

/** A process as the supervisor sees it, for the relay. */
export interface RelayTarget {
  readonly role: 'api' | 'background';
  readonly endpoint: IpcEndpoint;
}

/**
 * The supervisor's side: a signal from one of its processes goes to those that
 * act on it. An API worker's `LOG_APPENDED` to the background process (not to the
 * other workers: they run no subscription), the background process's
 * `READ_MODELS_APPLIED` to every API worker. Anything else is not a signal and is
 * left alone (false).
 */
export const relayProgressSignal = (message: unknown, from: RelayTarget['role'], processes: Iterable<RelayTarget>): boolean => {
  const signal = signalOf(message);
  const to = signal === LOG_APPENDED && from === 'api' ? 'background' : signal === READ_MODELS_APPLIED && from === 'background' ? 'api' : null;
  if (to === null) return false;
  for (const target of processes) if (target.role === to) sendQuietly(target.endpoint, { type: signal! } satisfies ProgressSignal);
  return true;
};

/**
 * API_WORKERS: a worker's commits reach the projector, and the projector's
 * batches the workers, at once, over `endpoint` (the channel to the supervisor).
 * Returns what stops the exchange.
 */
export const startProgressSignals = (
  endpoint: IpcEndpoint,
  parts: { readonly api: boolean; readonly eventStore: EventStore; readonly readSide: ReadSide; readonly metrics: ChronicleMetrics },
): (() => void) => {
  const { eventStore, readSide, metrics } = parts;
  return exchangeProgressSignals(endpoint, {
    ...(parts.api && eventStore.onAppended ? { onAppended: (listener) => eventStore.onAppended!(listener) } : {}),
    ...(eventStore.lookNow ? { lookAtLog: () => eventStore.lookNow!() } : {}),
    onApplied: (listener) => readSide.onApplied(listener),
    lookAtCheckpoint: () => readSide.checkpointMoved(),
    count: (signal, direction) => metrics.countSignal(signal, direction),
  });
};
