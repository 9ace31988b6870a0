import type { CompactionStep } from '../../application/ports/ErasureCompaction.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { withStores } from '../withStores.js';

const describeStep = (step: CompactionStep): string =>
  `${step.done ? 'done' : 'not done'}  ${step.what}  (${step.ms} ms)${step.note ? `: ${step.note}` : ''}`;

/**
 * `chronicle erasures compact`: whatever the engine needs so that no byte of its
 * files keeps a value erased so far (see `ErasureCompaction`); safe beside a
 * running server, and to run again. Exit code 1 when a step could not finish.
 */
export const registerErasures: RegisterCommands = (program, context) => {
  const erasures = program.command('erasures').description('what erasing people leaves to the storage engine');
  erasures
    .command('compact')
    .description("rewrite the storage so that no byte keeps an erased person's values (SQLite: VACUUM; PostgreSQL: VACUUM FULL, CHECKPOINT)")
    .option('--json', 'print one JSON document: the steps, each with its time')
    .action(async (options: { json?: boolean }) => {
      const steps = await withStores(context, async (stores) => (stores.compaction ? stores.compaction.compact() : null));
      if (steps === null) {
        print(
          context,
          options.json === true,
          { engine: 'mongodb', steps: [] },
          'Nothing to compact here: MongoDB keeps its own files (see docs/operators/erasure.md for what stays, and for how long).',
        );
        return;
      }
      print(context, options.json === true, { steps }, steps.map(describeStep).join('\n'));
      if (steps.some((step) => !step.done)) process.exitCode = 1;
    });
};
