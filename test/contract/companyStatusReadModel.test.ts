import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { withUpcasting } from '../../src/application/versioning/UpcastingEventStore.js';
import { resumeCompany, suspendCompany } from '../../src/features/companies/application/companySuspension.js';
import { createCompany } from '../../src/features/companies/application/createCompany.js';
import { CompanyName } from '../../src/features/companies/domain/CompanyName.js';
import { PLATFORM_SCOPE, companiesProjection, companyOf } from '../../src/features/companies/readModels/companiesProjection.js';
import { companySuspendedReader, suspendedCompaniesReader } from '../../src/features/companies/readModels/companyQueries.js';
import { STORED_EVENT_TYPES } from '../../src/features/index.js';
import { systemClock } from '../../src/shared/Clock.js';
import { newId } from '../../src/shared/ids.js';
import { onEveryReadModelEngine, type ReadModelEngineFixture } from '../support/readModelEngines.js';
import { tempDir } from '../support/tempStore.js';

const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

/**
 * The company's status in the `companies` read model, on every read-model engine:
 * what the API keys' check (`companySuspendedReader`) and the webhook dispatcher's
 * hold (`suspendedCompaniesReader`, a list by `company.status`) read.
 */
const companyStatusContract = (name: string, open: () => Promise<ReadModelEngineFixture>): void => {
  describe(`the companies' status in the read model: ${name}`, () => {
    it('is active when created, suspended with its time and reason, active again when resumed; the suspended ones are listed', async () => {
      const dir = tempDir('chronicle-company-status-');
      const raw = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
      const log = withUpcasting(raw, STORED_EVENT_TYPES);
      const { store, dispose } = await open();
      const metadata = { source: 'cli' as const, correlationId: newId() };
      const deps = { eventStore: log, newId, clock: systemClock };
      const project = async () => {
        const checkpoint = `status-${name}`;
        const after = await store.checkpoints.load(checkpoint);
        await store.applyBatch([store.collection(companiesProjection)], await log.readAll({ after }), checkpoint);
      };
      try {
        const ids: string[] = [];
        for (const companyName of ['Alpha', 'Beta', 'Gamma']) {
          ids.push(right(await createCompany(deps, { name: right(CompanyName.decode(companyName)), metadata })).id);
        }
        const [alpha, beta, gamma] = ids as [string, string, string];
        const suspended = right(await suspendCompany(deps, { companyId: alpha, reason: 'Unpaid', metadata }));
        right(await suspendCompany(deps, { companyId: beta, reason: 'Abuse', metadata }));
        right(await resumeCompany(deps, { companyId: beta, metadata }));
        right(await suspendCompany(deps, { companyId: gamma, reason: 'Audit', metadata }));
        await project();

        const companies = store.collection(companiesProjection);
        expect(companyOf((await companies.get(PLATFORM_SCOPE, alpha))!)).to.deep.include({
          status: 'suspended',
          suspendedAt: suspended.company.suspendedAt,
          suspensionReason: 'Unpaid',
        });
        expect(companyOf((await companies.get(PLATFORM_SCOPE, beta))!)).to.deep.include({ status: 'active', suspendedAt: null, suspensionReason: null });
        expect([...(await suspendedCompaniesReader(store)())].sort()).to.deep.equal([alpha, gamma].sort());
        const isSuspended = companySuspendedReader(store);
        expect([await isSuspended(alpha), await isSuspended(beta), await isSuspended(randomUUID())]).to.deep.equal([true, false, false]);

        right(await resumeCompany(deps, { companyId: alpha, metadata }));
        await project();
        expect([...(await suspendedCompaniesReader(store)())]).to.deep.equal([gamma]);
        expect(await isSuspended(alpha)).to.equal(false);
      } finally {
        await dispose();
        await raw.close();
        dir.dispose();
      }
    });
  });
};

onEveryReadModelEngine('Companies\' status in the read model', companyStatusContract);
