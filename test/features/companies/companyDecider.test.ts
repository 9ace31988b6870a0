import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { companyDecider } from '../../../src/features/companies/domain/companyDecider.js';
import type { CompanyEvent } from '../../../src/features/companies/domain/companyEvents.js';
import { specFor } from '../../support/givenWhenThen.js';
import { valid } from '../apiKeys/decode.js';

const spec = specFor(companyDecider);
const at = new Date('2026-03-01T10:00:00.000Z');
const created: CompanyEvent = {
  type: 'CompanyCreated',
  data: { companyId: 'co-1', name: 'Acme', createdAt: '2026-03-01T10:00:00.000Z' },
};
const create = { type: 'CreateCompany', companyId: 'co-1', name: valid(CompanyName, 'Acme'), at } as const;
const admin = { kind: 'admin', adminTokenId: 'adm-1' } as const;
const later = new Date('2026-03-02T09:30:00.000Z');
const suspend = { type: 'SuspendCompany', companyId: 'co-1', reason: 'Unpaid invoices', by: admin, at: later } as const;
const resume = { type: 'ResumeCompany', companyId: 'co-1', by: { kind: 'cli' }, at: new Date('2026-03-03T08:00:00.000Z') } as const;
const suspended: CompanyEvent = {
  type: 'CompanySuspended',
  data: { companyId: 'co-1', reason: 'Unpaid invoices', suspendedAt: '2026-03-02T09:30:00.000Z', by: admin },
};
const resumed: CompanyEvent = { type: 'CompanyResumed', data: { companyId: 'co-1', resumedAt: '2026-03-03T08:00:00.000Z', by: { kind: 'cli' } } };

describe('company decider', () => {
  describe('given no company', () => {
    it('creates it', () => spec.given().when(create).then(created));
  });
  describe('given a created company', () => {
    it('refuses to create it again', () =>
      spec.given(created).when(create).thenError({ kind: 'CompanyAlreadyExists', companyId: 'co-1' }));
    it('suspends it, with the reason and who acted', () => spec.given(created).when(suspend).then(suspended));
    it('resuming it records nothing: it is active', () => spec.given(created).when(resume).then());
  });
  describe('given no company', () => {
    it('refuses to suspend it', () => spec.given().when(suspend).thenError({ kind: 'CompanyNotFound', companyId: 'co-1' }));
    it('refuses to resume it', () => spec.given().when(resume).thenError({ kind: 'CompanyNotFound', companyId: 'co-1' }));
  });
  describe('given a suspended company', () => {
    it('resumes it, saying who acted', () => spec.given(created, suspended).when(resume).then(resumed));
    it('suspending it again records nothing: the first suspension stays in force', () =>
      spec.given(created, suspended).when({ ...suspend, reason: 'Another reason' }).then());
    it('keeps the suspension in its state, a reason erased (its key destroyed) as null', () => {
      const state = [created, { ...suspended, data: { ...suspended.data, reason: null } } as CompanyEvent].reduce(
        companyDecider.evolve,
        companyDecider.initialState,
      );
      expect(state).to.deep.include({ suspension: { suspendedAt: '2026-03-02T09:30:00.000Z', reason: null } });
    });
  });
  describe('given a company suspended and resumed', () => {
    it('suspends it again', () =>
      spec
        .given(created, suspended, resumed)
        .when({ ...suspend, reason: 'Again', by: { kind: 'cli' } })
        .then({ type: 'CompanySuspended', data: { companyId: 'co-1', reason: 'Again', suspendedAt: '2026-03-02T09:30:00.000Z', by: { kind: 'cli' } } }));
    it('resuming it again records nothing', () => spec.given(created, suspended, resumed).when(resume).then());
  });
});

describe('CompanyName', () => {
  it('trims', () => expect(valid(CompanyName, '  Acme Ltd ')).to.equal('Acme Ltd'));
  it('refuses an empty, blank, too long or control-character name', () => {
    for (const bad of ['', '   ', 'x'.repeat(201), 'a\nb', 42]) expect(E.isLeft(CompanyName.decode(bad)), String(bad)).to.equal(true);
  });
});
