// The webhook delivery thread (see `deliveryThread.ts`): sends the turns the dispatcher
// hands it through the same client and signing as the event loop's attempts.
import { parentPort, workerData } from 'node:worker_threads';
import { createDeliveryAgent } from './deliveryAgent.js';
import type { FromDeliveryThread, ToDeliveryThread } from './deliveryThread.js';
import { isRefusedAddress } from './targetUrlGuard.js';
import { describeError, sendTurnsHere, type SentAttempt, type TurnRequest } from './turnSender.js';

/** The longest a delivered attempt waits in the thread before it goes back to be recorded (unless the thread is started with another). */
const REPORT_AFTER_MS = 100;

const port = parentPort;
if (!port) throw new Error('deliveryThreadMain runs as a worker thread');
const { allowPrivateTargets, maxFreeSockets, reportAfterMs = REPORT_AFTER_MS } = workerData as {
  allowPrivateTargets: boolean;
  maxFreeSockets: number;
  reportAfterMs?: number;
};
const agent = createDeliveryAgent({ allowPrivateTargets, isRefusedAddress, maxFreeSockets });
const sendTurn = sendTurnsHere(agent.send);

/** The turns being sent: their early ends. */
const running = new Map<number, { readonly finish: AbortController; readonly stop: AbortController }>();

/** What goes back at the end of this turn of the event loop: one message for every attempt and end. */
let pending: FromDeliveryThread['items'][number][] = [];
const report = (item: FromDeliveryThread['items'][number]): void => {
  if (pending.length === 0) setImmediate(flush);
  pending.push(item);
};
const flush = (): void => {
  const items = pending;
  pending = [];
  port.postMessage({ items } satisfies FromDeliveryThread);
};

const run = async (id: number, request: TurnRequest): Promise<void> => {
  const signals = { finish: new AbortController(), stop: new AbortController() };
  running.set(id, signals);
  // A turn's attempts go back together (their records then share one commit, and most of
  // the index pages they change: the rows of one queue lie side by side), at its end or
  // REPORT_AFTER_MS after the first one not reported yet, whichever comes first.
  let attempts: SentAttempt[] = [];
  let timer: NodeJS.Timeout | null = null;
  const reportAttempts = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (attempts.length > 0) report({ id, attempts });
    attempts = [];
  };
  try {
    for await (const batch of sendTurn(request, { finish: signals.finish.signal, stop: signals.stop.signal })) {
      attempts.push(...batch);
      timer ??= setTimeout(reportAttempts, reportAfterMs);
    }
    reportAttempts();
    report({ id, end: true });
  } catch (error) {
    reportAttempts();
    report({ id, end: true, error: describeError(error) });
  } finally {
    running.delete(id);
  }
};

port.on('message', (message: ToDeliveryThread) => {
  switch (message.type) {
    case 'turn':
      void run(message.id, message);
      break;
    case 'finish':
      running.get(message.id)?.finish.abort();
      break;
    case 'stop':
      running.get(message.id)?.stop.abort(new Error('The turn was stopped'));
      break;
  }
});
