import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { CommandDeps } from '../../../src/application/commands/CommandDeps.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import { ProjectionRunner } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { describeDifference, verifyReadModels } from '../../../src/application/verify/verifyReadModels.js';
import { createContact } from '../../../src/features/contacts/application/createContact.js';
import { deleteContact } from '../../../src/features/contacts/application/deleteAndRestoreContact.js';
import { changeDealStatus } from '../../../src/features/deals/application/changeDealStatus.js';
import { createDeal } from '../../../src/features/deals/application/createDeal.js';
import { deleteDeal } from '../../../src/features/deals/application/deleteAndRestoreDeal.js';
import { dealsProjection } from '../../../src/features/deals/readModels/dealsProjection.js';
import { PROJECTIONS, READ_MODEL_CHECKS } from '../../../src/features/index.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left)}`);
  return result.right;
};

/** `chronicle verify`'s comparison of the `deals` read model with the log, for deleted deals and deleted contacts. */
describe('dealsCheck', () => {
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  let deps: CommandDeps;
  const companyId = 'co-1';
  const metadata = { source: 'api' as const, correlationId: 'c', companyId };

  beforeEach(() => {
    dir = tempDir('chronicle-deals-check-');
    eventStore = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
    deps = { eventStore, newId, clock: { now: () => new Date() } };
  });
  afterEach(async () => {
    await eventStore.close();
    dir.dispose();
  });

  /** A contact deleted, then its deal won (with the contact shown as nulls); another deal of it deleted. */
  const writeLog = async () => {
    const contact = right(await createContact(deps, { companyId, fields: { name: 'Ada', phoneNumber: '+49151000' }, metadata })).contact;
    const kept = right(await createDeal(deps, { companyId, fields: { title: 'Kept', value: 1, contactId: contact.id }, metadata })).deal;
    const gone = right(await createDeal(deps, { companyId, fields: { title: 'Gone', value: 2, contactId: contact.id }, metadata })).deal;
    right(await deleteDeal(deps, { companyId, dealId: gone.id, retentionMs: 60_000, metadata }));
    right(await deleteContact(deps, { companyId, contactId: contact.id, retentionMs: 60_000, metadata }));
    right(await changeDealStatus(deps, { companyId, dealId: kept.id, change: { status: 'won' }, metadata }));
    // Last in the log: the deals' documents are all at earlier positions.
    right(await createContact(deps, { companyId, fields: { name: 'Eve', phoneNumber: '+49151001' }, metadata }));
    return { contactId: contact.id, kept, gone };
  };

  const builtReadModels = async (): Promise<MemoryReadModelStore> => {
    const readModels = new MemoryReadModelStore();
    const collections = PROJECTIONS.map((projection) => readModels.collection(projection));
    const runner = new ProjectionRunner({ eventStore, readModels, collections, logger: silentLogger });
    await runner.start();
    await runner.stop();
    return readModels;
  };

  it('expects no document for a deleted deal, and a deleted contact shown as its id and nulls', async () => {
    const { kept, gone } = await writeLog();
    const readModels = new MemoryReadModelStore();
    const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: true });
    expect(report.differences).to.deep.equal([]);
    const deals = readModels.collection(dealsProjection);
    expect(await deals.get(companyId, gone.id)).to.equal(null);
    expect((await deals.get(companyId, kept.id))!.deal.contact).to.include({ name: null, phoneNumber: null });
  });

  it('names a deal that still shows the fields of a deleted contact', async () => {
    const { contactId, kept } = await writeLog();
    const readModels = await builtReadModels();
    const deals = readModels.collection(dealsProjection);
    // A contact restored in the read model only: the log says it is deleted.
    const contact = { id: contactId, name: 'Ada', firstName: null, lastName: null, phoneNumber: '+49151000', email: null, position: null,
      currentCompany: null, industrySector: null, city: null, country: null, tags: [], createdAt: kept.createdAt, updatedAt: kept.createdAt };
    await deals.apply([
      {
        id: newId(),
        stream: 'forged',
        revision: 0,
        position: (await eventStore.headPosition())!,
        type: 'ContactRestored',
        data: { contactId, companyId, restoredAt: kept.createdAt, contact },
        metadata,
        recordedAt: new Date().toISOString(),
      },
    ]);
    const report = await verifyReadModels({ eventStore, checks: READ_MODEL_CHECKS, readModels, rebuild: false });
    expect(report.differences.map(describeDifference)).to.deep.equal([
      `deals ${companyId}/${kept.id}: contact.name: log says null, read model says "Ada"`,
      `deals ${companyId}/${kept.id}: contact.phoneNumber: log says null, read model says "+49151000"`,
    ]);
  });
});
