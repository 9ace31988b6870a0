import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../application/commands/CommandDeps.js';
import type { CompanyDataEraser } from '../application/personalData/CompanyDataEraser.js';
import type { PersonErasure } from '../application/personalData/PersonErasure.js';
import type { DocumentCollection, ReadModelDocument } from '../application/ports/ReadModelStore.js';
import type { Logger } from '../application/ports/Logger.js';
import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import type { Config } from '../config.js';
import { errorBody } from '../http/HttpError.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import { newId } from '../shared/ids.js';
import { apiKeysProjection, revokeApiKey } from '../features/apiKeys/index.js';
import { CompanyDeletionSweep, deletionsDue } from '../features/companies/index.js';
import { contactValuesProjection } from '../features/contacts/index.js';
import { userNotFound, usersProjection } from '../features/users/index.js';
import { webhooksProjection } from '../features/webhooks/index.js';
import { personErasureOf } from './erasures.js';
import type { LeasedWork } from './readSide.js';
import type { Stores } from './Stores.js';

const PAGE = 500;

/** Every document of the company in `collection`, a page at a time. */
async function* documentsOf<D extends ReadModelDocument>(collection: DocumentCollection<D>, companyId: string): AsyncIterable<D> {
  for (let page = 1; ; page++) {
    const { items } = await collection.list({ companyId, filters: [], page, limit: PAGE, order: 'asc', withTotal: false });
    yield* items;
    if (items.length < PAGE) return;
  }
}

/**
 * What a company's erasure forgets on these stores, besides its log and read
 * models (`CompanyDataEraser`), found through the read models (which the erasure
 * waits for): its API keys revoked (`ApiKeyRevoked`, source `system`), its webhook
 * subscriptions' secrets, its outbox rows, its kept responses, console sessions
 * and usage counters; then the keys: every contact's (written down in the erasure
 * journal), every user's (`PersonErasure.forget`: the admin API's kept responses
 * that name them rewritten too), and the company's own, last, so that SQLite's
 * write-ahead log is emptied after everything else.
 */
export const companyDataEraserOf = (stores: Stores, erasure: PersonErasure, commands: CommandDeps): CompanyDataEraser => ({
  async forget(companyId, at) {
    const { readModels } = stores;
    const system = { source: 'system' as const, correlationId: commands.newId() };
    let apiKeys = 0;
    for await (const key of documentsOf(readModels.collection(apiKeysProjection), companyId)) {
      if (key.revokedAt !== null) continue;
      const revoked = await revokeApiKey({ ...commands, clock: { now: () => at } }, { keyId: key.id, companyId, metadata: system });
      if (E.isRight(revoked)) apiKeys++;
    }
    let webhookSubscriptions = 0;
    for await (const subscription of documentsOf(readModels.collection(webhooksProjection), companyId)) {
      await stores.webhookSecrets.delete(subscription.id);
      webhookSubscriptions++;
    }
    const webhookDeliveries = await stores.webhookOutbox.forgetCompany(companyId);
    const keptResponses = await stores.idempotency.forgetCompany(companyId);
    const consoleSessions = await stores.consoleSessions.endAll({ companyId });
    const usageRows = await stores.usage.forgetCompany(companyId);
    let contacts = 0;
    for await (const contact of documentsOf(readModels.collection(contactValuesProjection), companyId)) {
      await erasure.forgetKey(companyId, { kind: 'contact', id: contact.id }, at);
      contacts++;
    }
    const gone = userNotFound();
    let users = 0;
    for await (const user of documentsOf(readModels.collection(usersProjection), companyId)) {
      if (user.name === null && user.email === null) continue;
      await erasure.forget(companyId, { kind: 'user', id: user.id }, at, { status: gone.status, body: errorBody(gone, at), headers: {} });
      users++;
    }
    await erasure.forgetCompanyKey(companyId, at);
    return { contacts, users, apiKeys, webhookSubscriptions, webhookDeliveries, keptResponses, consoleSessions, usageRows };
  },
});

/**
 * The end of deleted companies' waiting periods, in the process that holds the
 * read models' lease: every DELETED_RECORDS_SWEEP_SECONDS, the companies whose
 * `eraseAfter` has passed are erased (`CompanyDeletionSweep`), on `clock`.
 */
export const companyDeletion =
  (config: Config, stores: Stores, logger: Logger, health: LoopHealth, clock: Clock = systemClock): LeasedWork =>
  (progress) => {
    const erasure = personErasureOf(stores, logger.child({ role: 'erasure' }));
    const commands = { eventStore: stores.eventStore, newId, clock };
    const sweep = new CompanyDeletionSweep({
      commands,
      data: companyDataEraserOf(stores, erasure, commands),
      due: deletionsDue(stores.readModels),
      waitForReadModels: (position) => progress.waitFor(position, config.readYourWritesTimeoutMs),
      compact: () => erasure.compactNow(),
      clock,
      logger: logger.child({ role: 'company-deletion' }),
      intervalMs: config.deletedRecordsSweepSeconds * 1000,
      health,
    });
    sweep.start();
    return { stop: () => sweep.stop() };
  };
