import { expect } from 'chai';
import { PROJECTIONS } from '../../../src/features/index.js';
import { COMPANY_ERASED } from '../../../src/features/companies/index.js';

/**
 * The read models that keep nothing of a company's own once it is erased, and
 * why: the admin tokens are the platform's; the API key directory keeps, for each
 * key, its hash, ids and its revocation, which the erasure records.
 */
const NOT_A_COMPANYS = ['admin_tokens', 'api_key_directory'];

describe('Every read model of a company\'s records drops them at its CompanyErased', () => {
  it('handles CompanyErased in every registered read model but the platform\'s own', () => {
    const unhandled = PROJECTIONS.filter((projection) => !projection.eventTypes.has(COMPANY_ERASED)).map((projection) => projection.name);
    expect(unhandled.sort()).to.deep.equal([...NOT_A_COMPANYS].sort());
  });

  it('targets every document of the erased company, and no document of another, and deletes what it targets', () => {
    const erased = {
      id: 'e-1',
      stream: 'company-co-1',
      revision: 2,
      position: '100',
      type: COMPANY_ERASED,
      data: {
        companyId: 'co-1',
        erasedAt: '2026-05-01T00:00:00.000Z',
        contacts: 0,
        users: 0,
        apiKeys: 0,
        webhookSubscriptions: 0,
        webhookDeliveries: 0,
        keptResponses: 0,
        consoleSessions: 0,
        usageRows: 0,
      },
      metadata: { source: 'system' as const, correlationId: 'c', companyId: 'co-1' },
      recordedAt: '2026-05-01T00:00:00.000Z',
    };
    for (const projection of PROJECTIONS.filter((candidate) => candidate.eventTypes.has(COMPANY_ERASED))) {
      const targets = projection.targets(erased);
      expect(targets, projection.name).to.have.length(1);
      const [target] = targets;
      if (projection.name === 'companies') expect(target, projection.name).to.deep.equal({ kind: 'id', companyId: 'platform', id: 'co-1' });
      else if (target!.kind === 'where' && target!.companyId === 'co-1') expect(target, projection.name).to.deep.include({ field: 'companyId', value: 'co-1' });
      else expect(target, projection.name).to.deep.include({ kind: 'where', companyId: 'platform', field: 'contactCompanyId', value: 'co-1' });
      expect(projection.evolve({ id: 'x', companyId: 'co-1', position: '1' } as never, erased), projection.name).to.equal(null);
      expect(projection.creates?.(erased) ?? false, projection.name).to.equal(false);
    }
  });
});
