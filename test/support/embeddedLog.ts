import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteSubjectKeyStore } from '../../src/adapters/sqlite/SqliteSubjectKeyStore.js';
import type { EventStore } from '../../src/application/ports/EventStore.js';
import { PersonalDataEventStore } from '../../src/application/personalData/PersonalDataEventStore.js';
import { SubjectKeys } from '../../src/application/personalData/SubjectKeys.js';
import { SecretsKeyring } from '../../src/application/secrets/SecretsKeyring.js';
import { PERSONAL_EVENT_FIELDS } from '../../src/features/index.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';

/**
 * The embedded log of a DATA_DIR as Chronicle reads it (without SECRETS_KEY): its
 * events with their personal fields opened, but not upcast (versions as stored).
 */
export const openEmbeddedLog = (dataDir: string, keyring = new SecretsKeyring(undefined)): EventStore => {
  const log = SqliteEventStore.open(embeddedDatabaseFile(dataDir));
  return new PersonalDataEventStore(log, new SubjectKeys(new SqliteSubjectKeyStore(log.db), keyring), PERSONAL_EVENT_FIELDS);
};
