import type { ListQuery, Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import { CompanyEvent } from '../domain/companyEvents.js';
import type { Company, CompanyStatus } from '../domain/companyView.js';
import type { Deletion } from '../domain/companyDecider.js';

export type { Company, CompanyStatus } from '../domain/companyView.js';

/**
 * The partition every company document is kept under. Read models are kept per
 * company; the companies themselves are the platform's, listed across companies,
 * so they share one partition that no company id can be (ids are UUIDs).
 */
export const PLATFORM_SCOPE = 'platform';

/**
 * A company as its document keeps it. Documents written before suspension
 * existed have no status fields: such a company is active.
 */
export interface StoredCompany {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly status?: CompanyStatus;
  readonly suspendedAt?: string | null;
  readonly suspensionReason?: string | null;
}

export interface CompanyDoc extends ReadModelDocument {
  /** The deletion waiting for its `eraseAfter`, or its erasure under way; null (or absent, in documents of earlier releases) when none is. */
  readonly deletion?: Deletion | null;
  readonly company: StoredCompany;
}

const decode = cachedDecoder(CompanyEvent);

/**
 * `companies`: one document per company, under the platform's partition, in
 * creation order; searchable by name; its status (active or suspended, and the
 * suspension's time and reason) listed by `company.status`. A deletion asked for is
 * kept in `deletion` (with `erasingSince` once its erasure began) until it is
 * cancelled or the company erased; an erased company has no document.
 */
export const companiesProjection: Projection<CompanyDoc> = {
  name: 'companies',
  eventTypes: new Set([
    'CompanyCreated',
    'CompanySuspended',
    'CompanyResumed',
    'CompanyDeletionRequested',
    'CompanyDeletionCancelled',
    'CompanyErasureStarted',
    'CompanyErased',
  ]),
  indexes: [['company.createdAt'], ['company.status']],
  search: ['company.name'],
  view: 'company',
  targets(event) {
    return [{ kind: 'id', companyId: PLATFORM_SCOPE, id: decode(event).data.companyId }];
  },
  evolve(doc, event) {
    const decoded = decode(event);
    switch (decoded.type) {
      case 'CompanyCreated': {
        if (doc) return doc;
        const { data } = decoded;
        return {
          id: data.companyId,
          companyId: PLATFORM_SCOPE,
          position: event.position,
          deletion: null,
          company: { id: data.companyId, name: data.name, createdAt: data.createdAt, status: 'active', suspendedAt: null, suspensionReason: null },
        };
      }
      case 'CompanySuspended':
        if (!doc) return null;
        return {
          ...doc,
          position: event.position,
          company: { ...doc.company, status: 'suspended', suspendedAt: decoded.data.suspendedAt, suspensionReason: decoded.data.reason },
        };
      case 'CompanyResumed':
        if (!doc) return null;
        return { ...doc, position: event.position, company: { ...doc.company, status: 'active', suspendedAt: null, suspensionReason: null } };
      case 'CompanyDeletionRequested':
        if (!doc) return null;
        return {
          ...withoutDeletion(doc),
          position: event.position,
          deletion: { requestedAt: decoded.data.requestedAt, eraseAfter: decoded.data.eraseAfter, erasingSince: null },
          company: doc.company,
        };
      case 'CompanyDeletionCancelled':
        return doc ? { ...withoutDeletion(doc), position: event.position, deletion: null, company: doc.company } : null;
      case 'CompanyErasureStarted':
        // Listed as due from then on, whatever its `eraseAfter`: an erasure cut short is finished by the next sweep.
        if (!doc?.deletion) return doc;
        return {
          ...withoutDeletion(doc),
          position: event.position,
          deletion: { ...doc.deletion, erasingSince: decoded.data.startedAt },
          company: doc.company,
        };
      case 'CompanyErased':
        return null;
    }
  },
};

/** The document's fields before `deletion` and the view (kept in that order: the view is the last field). */
const withoutDeletion = ({ deletion: _deletion, company: _company, ...rest }: CompanyDoc): ReadModelDocument => rest;

/** The view of a document: the company as the CLI and the admin API show it. */
export const companyOf = (doc: CompanyDoc): Company => ({
  id: doc.company.id,
  name: doc.company.name,
  createdAt: doc.company.createdAt,
  status: doc.company.status ?? 'active',
  suspendedAt: doc.company.suspendedAt ?? null,
  suspensionReason: doc.company.suspensionReason ?? null,
  eraseAfter: doc.deletion?.eraseAfter ?? null,
});

/** Whether the document says the company is suspended. */
export const isSuspendedDoc = (doc: CompanyDoc): boolean => doc.company.status === 'suspended';

/** The companies whose deletion waits for an `eraseAfter` before `at`, oldest companies first: one page of `limit` (a scan of the platform's companies). */
export const deletionsDueQuery = (at: Date, limit: number): ListQuery => ({
  companyId: PLATFORM_SCOPE,
  filters: [{ op: 'lt', field: 'deletion.eraseAfter', value: at.toISOString() }],
  page: 1,
  limit,
  order: 'asc',
  withTotal: false,
});

/** The companies whose erasure began and did not end (cut short): one page of `limit`. */
export const erasuresUnderWayQuery = (limit: number): ListQuery => ({
  companyId: PLATFORM_SCOPE,
  filters: [{ op: 'gte', field: 'deletion.erasingSince', value: '' }],
  page: 1,
  limit,
  order: 'asc',
  withTotal: false,
});
