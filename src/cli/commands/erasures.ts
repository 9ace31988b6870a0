import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CompactionStep } from '../../application/ports/ErasureCompaction.js';
import { silentLogger } from '../../application/ports/Logger.js';
import { erasureLine, parseErasureLines } from '../../shared/ErasureRecord.js';
import { exportErasures } from '../../application/personalData/reapplyErasures.js';
import { CheckpointProgress } from '../../application/subscriptions/ReadModelProgress.js';
import { READ_MODELS_CHECKPOINT } from '../../application/subscriptions/ProjectionRunner.js';
import type { Position } from '../../shared/Position.js';
import type { Config } from '../../config.js';
import { personErasureOf, reapplyOn, subjectErasersOf } from '../../startup/erasures.js';
import type { Stores } from '../../startup/Stores.js';
import { catchUpReadModels } from '../catchUpReadModels.js';
import { print, type CliContext, type RegisterCommands } from '../CliContext.js';
import { withStores } from '../withStores.js';

/** Writes `text` to a new or emptied file readable by its owner only, flushed to disk. */
const writeFileDurably = async (path: string, text: string): Promise<void> => {
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * The read models brought up to `position`, as an erase waits for them: embedded ones
 * here (whether or not a server runs); others by the server's projector, waited for
 * (bounded). In-memory ones live in a server's process: nothing to wait for here.
 * Answers whether they reached it (false for in-memory ones).
 */
export const readModelsAt = async (context: CliContext, stores: Stores, config: Config, position: Position): Promise<boolean> => {
  const { eventStore, readModels } = stores;
  if (readModels.kind === 'sqlite') {
    const { stoppedBy } = await catchUpReadModels({ eventStore, readModels });
    if (stoppedBy) throw stoppedBy;
    return true;
  }
  if (!readModels.durable) return false;
  const progress = new CheckpointProgress(() => readModels.checkpoints.load(READ_MODELS_CHECKPOINT), 50);
  const reached = await progress.waitFor(position, config.readYourWritesTimeoutMs);
  if (!reached) {
    context.err('warning: the read models have not applied the erasures yet (is a server with RUN_PROJECTIONS running?); they will when it does');
  }
  progress.stop();
  return reached;
};

const describeStep = (step: CompactionStep): string =>
  `${step.done ? 'done' : 'not done'}  ${step.what}  (${step.ms} ms)${step.note ? `: ${step.note}` : ''}`;

/**
 * `chronicle erasures compact`: whatever the engine needs so that no byte of its
 * files keeps a value erased so far (see `ErasureCompaction`); safe beside a
 * running server, and to run again. Exit code 1 when a step could not finish.
 * `chronicle erasures export` and `reapply`: the erasures this store holds as
 * erasure lines, and those of a file made again here (after restoring a backup).
 */
export const registerErasures: RegisterCommands = (program, context) => {
  const erasures = program.command('erasures').description('what erasing people leaves to the storage engine, and erasures made again after a restore');
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

  erasures
    .command('export')
    .description('write one line per erasure this store holds ({kind, id, companyId, erasedAt}): to build or refresh the erasure journal')
    .option('--out <file>', 'write the lines to this file (made or emptied, readable by its owner only) instead of stdout')
    .action(async (options: { out?: string }) => {
      const { records, leftOut } = await withStores(context, async (stores) =>
        exportErasures(await stores.subjectKeys.erased(), { erasers: subjectErasersOf(stores, personErasureOf(stores, silentLogger)) }),
      );
      const lines = records.map(erasureLine).join('');
      if (options.out === undefined) {
        if (lines !== '') context.out(lines.trimEnd());
      } else {
        await writeFileDurably(options.out, lines);
        context.out(`Wrote ${records.length} erasure${records.length === 1 ? '' : 's'} to ${options.out}.`);
      }
      if (leftOut > 0) context.err(`${leftOut} erased subject${leftOut === 1 ? '' : 's'} this log does not know left out (no company to name).`);
    });

  erasures
    .command('reapply')
    .description('make again each erasure of FILE (erasure journal or export) that this store has not made: after restoring a backup')
    .argument('<file>', 'the erasure lines: ERASURE_JOURNAL, or what `chronicle erasures export` wrote')
    .option('--json', 'print one JSON document: {applied, skipped, unknown}')
    .action(async (file: string, options: { json?: boolean }) => {
      const records = parseErasureLines(await readFile(file, 'utf8'), file);
      const outcome = await withStores(context, async (stores, config) => {
        // Erasures re-applied from the journal itself are in it already; those of another file are written down in it.
        const fromJournal = config.erasureJournal !== undefined && resolve(config.erasureJournal) === resolve(file);
        const erasure = personErasureOf(stores, silentLogger, { journal: !fromJournal });
        const reapplied = await reapplyOn(stores, erasure, records);
        if (reapplied.position !== null) await readModelsAt(context, stores, config, reapplied.position);
        if (reapplied.applied + reapplied.unknown > 0) await erasure.compactNow();
        return reapplied;
      });
      const { applied, skipped, unknown } = outcome;
      print(
        context,
        options.json === true,
        { applied, skipped, unknown },
        `Applied ${applied}, skipped ${skipped + unknown}: ${skipped} erased here already, ${unknown} of subjects this log does not know (made after the backup; their keys destroyed).`,
      );
    });
};
