import cliProgress from 'cli-progress';
import {
  etaMs,
  eventsPerSecond,
  progressFraction,
  replayReadModels,
  type ReplayProgress,
  type ReplaySummary,
} from '../../application/replay/replayReadModels.js';
import { PROJECTIONS } from '../../features/index.js';
import type { ReadModelStore } from '../../application/ports/ReadModelStore.js';
import { Lease, READ_MODELS_LEASE } from '../../application/subscriptions/Lease.js';
import { silentLogger } from '../../application/ports/Logger.js';
import { judgeHolder, thisProcess } from '../../startup/localProcess.js';
import { systemClock } from '../../shared/Clock.js';
import { print, type CliContext, type RegisterCommands } from '../CliContext.js';
import { withStores } from '../withStores.js';

/** How often a plain progress line is printed when stderr is not a terminal. */
const LINE_EVERY_MS = 2000;

/** `850 ms`, `4.2 s`, `3 min 5 s`, `1 h 2 min`. */
export const formatDuration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
};

/** What the bar and the plain line show of a replay's progress. */
export const describeProgress = (progress: ReplayProgress) => {
  const fraction = progressFraction(progress.position, progress.head);
  const eta = etaMs(fraction, progress.elapsedMs);
  return {
    percent: Math.floor(fraction * 100),
    permille: Math.floor(fraction * 1000),
    events: progress.events,
    position: progress.position,
    head: progress.head,
    rate: eventsPerSecond(progress.events, progress.elapsedMs),
    eta: eta === null ? '?' : formatDuration(eta),
  };
};

/** The line printed every few seconds when stderr is not a terminal (logs, CI, pipes). */
export const formatProgressLine = (progress: ReplayProgress): string => {
  const shown = describeProgress(progress);
  return (
    `replay: ${shown.percent}% (position ${shown.position} of ${shown.head}), ${shown.events} events, ` +
    `${shown.rate} events/s, ETA ${shown.eta}`
  );
};

interface ProgressDisplay {
  update(progress: ReplayProgress): void;
  stop(): void;
}

/** A bar redrawn in place on the terminal (cli-progress throttles redraws to 10 per second). */
const barDisplay = (stream: NodeJS.WriteStream): ProgressDisplay => {
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: 'replay {bar} {percentage}% | position {position}/{head} | {events} events | {rate} events/s | ETA {etaText}',
      barsize: 30,
      // The cursor stays visible: a replay stopped with Ctrl-C must not leave the terminal without one.
      hideCursor: false,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(progress) {
      const { permille, events, position, head, rate, eta } = describeProgress(progress);
      const payload = { events, position, head, rate, etaText: eta };
      if (started) bar.update(permille, payload);
      else {
        bar.start(1000, permille, payload);
        started = true;
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
};

/** A plain line every LINE_EVERY_MS (a short replay prints none, only its summary). */
export const lineDisplay = (context: CliContext): ProgressDisplay => {
  let lastAt = 0;
  return {
    update(progress) {
      const due = Math.floor(progress.elapsedMs / LINE_EVERY_MS);
      if (due > lastAt) {
        lastAt = due;
        context.err(formatProgressLine(progress));
      }
    },
    stop() {},
  };
};

const summaryLine = (summary: ReplaySummary, kind: ReadModelStore['kind']): string => {
  const what =
    `Replayed ${summary.events} event${summary.events === 1 ? '' : 's'} into ${summary.collections} read models in ${formatDuration(summary.ms)} ` +
    `(${summary.eventsPerSecond} events/s)`;
  const checkpoint = `checkpoint at position ${summary.position ?? 'start (empty log)'}`;
  switch (kind) {
    case 'sqlite':
      return `${what}; swapped into the live SQLite read models in one transaction, ${checkpoint}`;
    case 'mongodb':
      return `${what}; swapped into the live MongoDB collections, ${checkpoint}`;
    case 'postgres':
      return `${what}; swapped into the live PostgreSQL read models in one transaction, ${checkpoint}`;
    case 'memory':
      return `${what}, in this process (in-memory read models)`;
    default: {
      const unknown: never = kind;
      return unknown;
    }
  }
};

export const registerReplay: RegisterCommands = (program, context) => {
  program
    .command('replay')
    .description(
      'rebuild every read model from the log into fresh tables or collections, then swap them in (stop the projector first: a running one makes it stop)',
    )
    .option('--json', 'print one JSON document: {events, ms, eventsPerSecond, collections, position}')
    .action(async (options: { json?: boolean }) => {
      const { summary, kind } = await withStores(context, async ({ eventStore, readModels }) => {
        // The replay writes the read models: it holds their lease, as a projector does. A running projector
        // makes it stop here, before anything is built; a projector started meanwhile stops at its start.
        const lease = await Lease.acquire({
          leases: readModels.leases,
          name: READ_MODELS_LEASE,
          claimant: thisProcess('replay'),
          judgeHolder,
          clock: systemClock,
          logger: silentLogger,
          // A holder on another host or in another container: say what the replay waits for.
          onWaiting: (what) => context.err(`waiting for ${what}`),
        });
        // The bar goes to the terminal itself; anything else gets plain lines, stdout stays the result.
        const display = process.stderr.isTTY ? barDisplay(process.stderr) : lineDisplay(context);
        try {
          const replayed = await replayReadModels({
            eventStore,
            readModels,
            projections: PROJECTIONS,
            onProgress: (progress) => display.update(progress),
          });
          return { summary: replayed, kind: readModels.kind };
        } finally {
          display.stop();
          await lease.release();
        }
      });
      print(context, options.json === true, summary, summaryLine(summary, kind));
    });
};
