import { specFor } from '../../support/givenWhenThen.js';
import { valid } from '../apiKeys/decode.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { DELETION_SUSPENSION_REASON, companyDecider } from '../../../src/features/companies/domain/companyDecider.js';
import type { CompanyEvent } from '../../../src/features/companies/domain/companyEvents.js';

const spec = specFor(companyDecider);
const created: CompanyEvent = { type: 'CompanyCreated', data: { companyId: 'co-1', name: 'Acme', createdAt: '2026-03-01T10:00:00.000Z' } };
const requestedAt = new Date('2026-03-02T10:00:00.000Z');
const eraseAfter = new Date('2026-04-01T10:00:00.000Z');
const by = { kind: 'admin', adminTokenId: 't-1' } as const;
const request = { type: 'RequestCompanyDeletion', companyId: 'co-1', at: requestedAt, eraseAfter, by } as const;
const requested: CompanyEvent = {
  type: 'CompanyDeletionRequested',
  data: { companyId: 'co-1', requestedAt: '2026-03-02T10:00:00.000Z', eraseAfter: '2026-04-01T10:00:00.000Z', by },
};
/** The suspension a deletion records first, when the company is not suspended already. */
const suspendedForDeletion: CompanyEvent = {
  type: 'CompanySuspended',
  data: { companyId: 'co-1', reason: DELETION_SUSPENSION_REASON, suspendedAt: '2026-03-02T10:00:00.000Z', by },
};
const resume = { type: 'ResumeCompany', companyId: 'co-1', by, at: new Date('2026-03-03T10:00:00.000Z') } as const;
const resumed: CompanyEvent = { type: 'CompanyResumed', data: { companyId: 'co-1', resumedAt: '2026-03-03T10:00:00.000Z', by } };
const cancel = { type: 'CancelCompanyDeletion', companyId: 'co-1', at: new Date('2026-03-03T10:00:00.000Z') } as const;
const cancelled: CompanyEvent = { type: 'CompanyDeletionCancelled', data: { companyId: 'co-1', cancelledAt: '2026-03-03T10:00:00.000Z' } };
const start = { type: 'StartCompanyErasure', companyId: 'co-1', at: new Date('2026-04-01T10:05:00.000Z') } as const;
const started: CompanyEvent = { type: 'CompanyErasureStarted', data: { companyId: 'co-1', startedAt: '2026-04-01T10:05:00.000Z' } };
const counts = { contacts: 3, users: 1, apiKeys: 2, webhookSubscriptions: 1, webhookDeliveries: 4, keptResponses: 5, consoleSessions: 0, usageRows: 2 };
const erase = { type: 'EraseCompany', companyId: 'co-1', at: new Date('2026-04-01T10:10:00.000Z'), counts } as const;
const erased: CompanyEvent = { type: 'CompanyErased', data: { companyId: 'co-1', erasedAt: '2026-04-01T10:10:00.000Z', ...counts } };
const notFound = { kind: 'CompanyNotFound', companyId: 'co-1' } as const;

describe('company decider: deletion', () => {
  describe('given no company', () => {
    it('refuses a deletion as not found', () => spec.given().when(request).thenError(notFound));
    it('refuses a cancellation as not found', () => spec.given().when(cancel).thenError(notFound));
    it('refuses an erasure as not found', () => spec.given().when(erase).thenError(notFound));
    it('refuses to start an erasure as not found', () => spec.given().when(start).thenError(notFound));
  });

  describe('given a created company', () => {
    it('suspends the company at once and records the deletion asked for, with when it is erased and who asked', () =>
      spec.given(created).when(request).then(suspendedForDeletion, requested));
    it('records only the deletion when the company is suspended already', () =>
      spec
        .given(created, { type: 'CompanySuspended', data: { companyId: 'co-1', reason: 'Unpaid', suspendedAt: '2026-03-01T12:00:00.000Z', by } })
        .when(request)
        .then(requested));
    it('records no cancellation when no deletion waits', () => spec.given(created).when(cancel).then());
    it('refuses to start an erasure nobody asked for', () =>
      spec.given(created).when(start).thenError({ kind: 'CompanyDeletionNotRequested', companyId: 'co-1' }));
    it('refuses to end an erasure that did not start', () =>
      spec.given(created).when(erase).thenError({ kind: 'CompanyErasureNotStarted', companyId: 'co-1' }));
  });

  describe('given a deletion waiting', () => {
    it('records nothing when it is asked for again', () =>
      spec.given(created, requested).when({ ...request, at: new Date('2026-03-05T10:00:00.000Z'), eraseAfter: new Date('2026-04-04T10:00:00.000Z') }).then());
    it('cancels it', () => spec.given(created, requested).when(cancel).then(cancelled));
    it('is cancelled by a resume, which resumes the company too', () =>
      spec.given(created, suspendedForDeletion, requested).when(resume).then(resumed, cancelled));
    it('starts its erasure', () => spec.given(created, requested).when(start).then(started));
    it('refuses to end an erasure that did not start', () =>
      spec.given(created, requested).when(erase).thenError({ kind: 'CompanyErasureNotStarted', companyId: 'co-1' }));
  });

  describe('given an erasure under way', () => {
    const history = [created, requested, started];
    it('erases the company, with what the erasure reached', () => spec.given(...history).when(erase).then(erased));
    it('refuses a cancellation: what it forgot cannot come back', () =>
      spec.given(...history).when(cancel).thenError({ kind: 'CompanyErasureUnderWay', companyId: 'co-1' }));
    it('records nothing when it is started again (an erasure cut short goes on)', () => spec.given(...history).when(start).then());
    it('records nothing when the deletion is asked for again', () => spec.given(...history).when(request).then());
    it('refuses a resume: the company stays suspended until it is erased', () =>
      spec.given(created, suspendedForDeletion, requested, started).when(resume).thenError({ kind: 'CompanyErasureUnderWay', companyId: 'co-1' }));
  });

  describe('given a deletion cancelled', () => {
    it('refuses to start the erasure', () =>
      spec.given(created, requested, cancelled).when(start).thenError({ kind: 'CompanyDeletionNotRequested', companyId: 'co-1' }));
    it('records a new deletion asked for, suspending the company again', () =>
      spec.given(created, requested, cancelled).when(request).then(suspendedForDeletion, requested));
  });

  describe('given an erased company (final)', () => {
    const history = [created, requested, started, erased];
    it('records nothing when it is erased again', () => spec.given(...history).when(erase).then());
    it('refuses to start an erasure again as not found', () => spec.given(...history).when(start).thenError(notFound));
    it('refuses a new deletion as not found', () => spec.given(...history).when(request).thenError(notFound));
    it('refuses a cancellation as not found', () => spec.given(...history).when(cancel).thenError(notFound));
    it('refuses a resume as not found', () => spec.given(...history).when(resume).thenError(notFound));
    it('refuses a suspension as not found', () =>
      spec.given(...history).when({ type: 'SuspendCompany', companyId: 'co-1', reason: 'late', by, at: requestedAt }).thenError(notFound));
    it('refuses to create it again', () =>
      spec.given(...history).when({ type: 'CreateCompany', companyId: 'co-1', name: valid(CompanyName, 'Acme'), at: requestedAt }).thenError({ kind: 'CompanyAlreadyExists', companyId: 'co-1' }));
  });
});
