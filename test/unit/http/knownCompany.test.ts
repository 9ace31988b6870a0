import { expect } from 'chai';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { createCompany } from '../../../src/features/companies/application/createCompany.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { HttpError } from '../../../src/http/HttpError.js';
import { knownCompany } from '../../../src/features/companies/admin/knownCompany.js';
import { systemClock } from '../../../src/shared/Clock.js';
import { newId } from '../../../src/shared/ids.js';
import { companiesProjection } from '../../../src/features/companies/readModels/companiesProjection.js';
import { tempDir } from '../../support/tempStore.js';

describe('knownCompany (the company of an admin route)', () => {
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  beforeEach(() => {
    dir = tempDir('chronicle-known-company-');
    eventStore = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
  });
  afterEach(async () => {
    await eventStore.close();
    dir.dispose();
  });

  it('finds a company its read model has not applied yet in the log (made a moment ago by another process)', async () => {
    const name = CompanyName.decode('Acme');
    if (name._tag === 'Left') throw new Error('bad name');
    const created = await createCompany({ eventStore, newId, clock: systemClock }, { name: name.right, metadata: { source: 'cli', correlationId: 'c' } });
    if (created._tag === 'Left') throw new Error('not created');
    const companies = new MemoryReadModelStore().collection(companiesProjection);
    expect(await knownCompany({ companies, eventStore }, created.right.id)).to.equal(created.right.id);
  });

  it('answers 404 Company not found for a company neither knows', async () => {
    const companies = new MemoryReadModelStore().collection(companiesProjection);
    const refused = await knownCompany({ companies, eventStore }, 'nope').then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(HttpError);
    expect(refused).to.include({ status: 404, error: 'Company not found' });
  });
});
