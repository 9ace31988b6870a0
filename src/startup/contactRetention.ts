import type { Logger } from '../application/ports/Logger.js';
import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import { PersonErasure } from '../application/personalData/PersonErasure.js';
import type { Config } from '../config.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import { newId } from '../shared/ids.js';
import { PERSON_FIELDS } from '../features/index.js';
import { ContactRetentionSweep, deletedContactsProjection, expiredDeletions, goneContactResponse } from '../features/contacts/index.js';
import type { LeasedWork } from './readSide.js';
import type { Stores } from './Stores.js';

/**
 * The end of deleted contacts' restore periods, in the process that holds the
 * read models' lease: every DELETED_RECORDS_SWEEP_SECONDS, the contacts whose
 * period has ended are erased (`ContactRetentionSweep`), on `clock` (the API's).
 */
export const contactRetention =
  (config: Config, stores: Stores, logger: Logger, health: LoopHealth, clock: Clock = systemClock): LeasedWork =>
  (progress) => {
    const erasureLogger = logger.child({ role: 'erasure' });
    const erasure = new PersonErasure({
      ...(stores.sealingKeys ? { keys: stores.sealingKeys } : {}),
      idempotency: stores.idempotency,
      readModels: stores.readModels,
      personFields: PERSON_FIELDS,
      logger: erasureLogger,
      exports: stores.companyExports,
    });
    const sweep = new ContactRetentionSweep({
      commands: { eventStore: stores.eventStore, newId, clock },
      erasure,
      gone: goneContactResponse,
      expired: expiredDeletions(stores.readModels.collection(deletedContactsProjection)),
      waitForReadModels: (position) => progress.waitFor(position, config.readYourWritesTimeoutMs),
      compact: () => erasure.compactNow(),
      clock,
      logger: logger.child({ role: 'contact-retention' }),
      intervalMs: config.deletedRecordsSweepSeconds * 1000,
      health,
    });
    sweep.start();
    return { stop: () => sweep.stop() };
  };
