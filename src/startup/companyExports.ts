import type { Logger } from '../application/ports/Logger.js';
import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import { PeriodicRun } from '../application/subscriptions/PeriodicRun.js';
import { CompanyExports } from '../application/companyExport/CompanyExports.js';
import { EXPORTED_RECORDS, SECRET_EVENT_FIELDS } from '../features/index.js';
import { newId } from '../shared/ids.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import type { LeasedWork } from './readSide.js';
import type { Stores } from './Stores.js';

/**
 * This process's companies' exports (the admin API's), on its stores: its stop
 * marks the exports it is writing `failed` and waits for them, before the stores close.
 */
export const companyExportsOf = (stores: Stores, logger: Logger, clock: Clock = systemClock): CompanyExports =>
  new CompanyExports({
    store: stores.companyExports,
    eventStore: stores.eventStore,
    readModels: stores.readModels,
    records: EXPORTED_RECORDS,
    secretFields: SECRET_EVENT_FIELDS,
    newId,
    clock,
    logger: logger.child({ role: 'company-export' }),
  });

/** How often the process that holds the read models' lease deletes the exports past their 24 hours. */
export const EXPORT_SWEEP_EVERY_MS = 10 * 60 * 1000;

/**
 * The end of companies' exports, in the process that holds the read models' lease:
 * every 10 minutes, the exports asked for more than 24 hours ago are deleted with
 * their archives (reads stop finding them at their `expiresAt` already).
 */
export const companyExportSweep =
  (stores: Stores, logger: Logger, health: LoopHealth, clock: Clock = systemClock): LeasedWork =>
  () => {
    const sweepLogger = logger.child({ role: 'export-sweep' });
    const sweep = new PeriodicRun({
      run: async () => {
        const deleted = await stores.companyExports.deleteExpired(clock.now());
        if (deleted > 0) sweepLogger.info({ deleted }, 'expired company exports deleted');
        return deleted;
      },
      firstAfterMs: 60_000,
      everyMs: EXPORT_SWEEP_EVERY_MS,
      loop: 'company-export-sweep',
      health,
      logger: sweepLogger,
      failedMessage: 'deleting expired company exports failed; the next run tries again',
    });
    sweep.start();
    return { stop: () => sweep.stop() };
  };
