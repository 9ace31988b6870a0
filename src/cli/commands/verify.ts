import { READ_MODELS_CHECKPOINT } from '../../application/subscriptions/ProjectionRunner.js';
import { CheckpointProgress } from '../../application/subscriptions/ReadModelProgress.js';
import type { ReadModelStore } from '../../application/ports/ReadModelStore.js';
import { describeDifference, verifyReadModels, type VerifyReport } from '../../application/verify/verifyReadModels.js';
import type { Position } from '../../shared/Position.js';
import type { CliContext, RegisterCommands } from '../CliContext.js';
import { withStores } from '../withStores.js';
import { READ_MODEL_CHECKS } from '../../features/index.js';
import { catchUpReadModels } from '../catchUpReadModels.js';

/** How long `verify` waits for MongoDB read models to reach the head of the log. */
const CATCH_UP_WAIT_MS = 10_000;

/**
 * How far read models kept by the projector have applied the log, after waiting
 * (bounded) for them to reach `head`; says so on stderr when they did not.
 */
const reachedWithin = async (context: CliContext, readModels: ReadModelStore, head: Position): Promise<Position | null> => {
  const progress = new CheckpointProgress(() => readModels.checkpoints.load(READ_MODELS_CHECKPOINT), 50);
  try {
    if (await progress.waitFor(head, CATCH_UP_WAIT_MS)) return head;
    const reached = await progress.refresh();
    context.err(
      `warning: the read models have applied the log up to position ${reached ?? '(nothing yet)'} of ${head} ` +
        '(is a projector with RUN_PROJECTIONS running?); comparing up to there',
    );
    return reached;
  } finally {
    progress.stop();
  }
};

const summaryLine = (report: VerifyReport): string => {
  const found = report.differences.length;
  const skipped = report.skipped > 0 ? ` (${report.skipped} changed during the check, left out)` : '';
  return (
    `Verified ${report.readModels.length} read models (${report.readModels.join(', ')}) against ${report.events} events ` +
    `in ${report.streams} streams up to position ${report.position ?? '(empty log)'}: ${report.documents} documents${skipped}, ` +
    (found === 0 ? 'no differences' : `${found} difference${found === 1 ? '' : 's'}`)
  );
};

export const registerVerify: RegisterCommands = (program, context) => {
  program
    .command('verify')
    .description('fold every stream again and compare with the read models; exit code 1 when any differs')
    .option('--json', 'print one JSON document: the summary with every difference')
    .action(async (options: { json?: boolean }) => {
      const report = await withStores(context, async ({ eventStore, readModels }) =>
        // SQLite (embedded): the read models' file, brought up to the log here first. MongoDB: the
        // live collections the servers read. Memory: built here from the same events as the folds.
        verifyReadModels({
          eventStore,
          readModels,
          checks: READ_MODEL_CHECKS,
          rebuild: !readModels.durable,
          ...(readModels.kind === 'sqlite'
            ? {
                // Stopped at an event no code reads: compare the whole log, where verify names that event.
                readModelsReached: async (head: Position) => {
                  const { reached, stoppedBy } = await catchUpReadModels({ eventStore, readModels });
                  return stoppedBy ? head : reached;
                },
              }
            : readModels.durable
              ? { readModelsReached: (head: Position) => reachedWithin(context, readModels, head) }
              : {}),
        }),
      );
      if (options.json === true) {
        context.out(JSON.stringify({ ...report, equal: report.differences.length === 0 }));
      } else {
        for (const difference of report.differences) context.out(describeDifference(difference));
        context.out(summaryLine(report));
      }
      const found = report.differences.length;
      if (found > 0) throw new Error(`the read models and the log differ (${found} difference${found === 1 ? '' : 's'})`);
    });
};
