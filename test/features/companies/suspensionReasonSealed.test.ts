import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteSubjectKeyStore } from '../../../src/adapters/sqlite/SqliteSubjectKeyStore.js';
import { PersonalDataEventStore } from '../../../src/application/personalData/PersonalDataEventStore.js';
import { SubjectKeys, subjectOf } from '../../../src/application/personalData/SubjectKeys.js';
import { SecretsKeyring } from '../../../src/application/secrets/SecretsKeyring.js';
import { resumeCompany, suspendCompany } from '../../../src/features/companies/application/companySuspension.js';
import { createCompany } from '../../../src/features/companies/application/createCompany.js';
import { loadCompany } from '../../../src/features/companies/application/loadCompany.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { companyStream } from '../../../src/features/companies/domain/companyEvents.js';
import { FEATURES } from '../../../src/features/index.js';
import type { FieldsDeclaration } from '../../../src/shared/PersonalData.js';
import { systemClock } from '../../../src/shared/Clock.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

const declarations = new Map<string, FieldsDeclaration>(FEATURES.flatMap((feature) => Object.entries(feature.personalData?.events ?? {})));
const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

/**
 * A suspension's reason is the company's personal data: sealed in the log under
 * the company's key (`company:<id>`), so that destroying that key (the company's
 * erasure) makes every reason it was ever given unreadable, in every event.
 */
describe('a suspension\'s reason, sealed under the company\'s key', () => {
  let dir: ReturnType<typeof tempDir>;
  let adapter: SqliteEventStore;
  let keys: SubjectKeys;
  let store: PersonalDataEventStore;
  const metadata = { source: 'cli' as const, correlationId: 'r-1' };

  beforeEach(() => {
    dir = tempDir('chronicle-suspension-');
    adapter = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    keys = new SubjectKeys(new SqliteSubjectKeyStore(adapter.db), new SecretsKeyring(undefined));
    store = new PersonalDataEventStore(adapter, keys, declarations);
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  it('is never stored in the clear, reads back as given, and reads as null in every suspension once the company\'s key is destroyed', async () => {
    const deps = { eventStore: store, newId, clock: systemClock };
    const companyId = right(await createCompany(deps, { name: right(CompanyName.decode('Acme')), metadata })).id;
    const other = right(await createCompany(deps, { name: right(CompanyName.decode('Other')), metadata })).id;
    right(await suspendCompany(deps, { companyId, reason: 'Owner Jane Roe disputes invoice 17', metadata }));
    right(await resumeCompany(deps, { companyId, metadata }));
    right(await suspendCompany(deps, { companyId, reason: 'Chargeback by Jane Roe', metadata }));
    right(await suspendCompany(deps, { companyId: other, reason: 'Kept reason', metadata }));

    const raw = JSON.stringify(await adapter.readAll());
    for (const reason of ['Jane Roe', 'invoice 17', 'Chargeback', 'Kept reason']) expect(raw).not.to.contain(reason);
    adapter.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(join(dir.path, 'chronicle.sqlite')).includes(Buffer.from('Jane Roe'))).to.equal(false);
    const reasons = async (id: string) =>
      (await store.readStream(companyStream(id))).filter((event) => event.type === 'CompanySuspended').map((event) => (event.data as { reason: string | null }).reason);
    expect(await reasons(companyId)).to.deep.equal(['Owner Jane Roe disputes invoice 17', 'Chargeback by Jane Roe']);

    await keys.erase(subjectOf('company', companyId), new Date());
    const events = await store.readStream(companyStream(companyId));
    expect(await reasons(companyId)).to.deep.equal([null, null]);
    for (const event of events.filter((e) => e.type === 'CompanySuspended')) expect(event.erasedFields).to.deep.equal(['reason']);
    expect(JSON.stringify(events)).not.to.contain('Jane Roe');
    // The rest of the suspension stays: the company is still suspended, since when, by whom.
    expect((await loadCompany(store, companyId))?.suspension).to.deep.include({ reason: null });
    expect(await reasons(other), 'another company\'s reasons are its own').to.deep.equal(['Kept reason']);
  });
});
