import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import { CompanyEvent } from '../domain/companyEvents.js';
import type { Company, CompanyStatus } from '../domain/companyView.js';

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
  readonly company: StoredCompany;
}

const decode = cachedDecoder(CompanyEvent);

/**
 * `companies`: one document per company, under the platform's partition, in
 * creation order; searchable by name; its status (active or suspended, and the
 * suspension's time and reason) listed by `company.status`.
 */
export const companiesProjection: Projection<CompanyDoc> = {
  name: 'companies',
  eventTypes: new Set(['CompanyCreated', 'CompanySuspended', 'CompanyResumed']),
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
    }
  },
};

/** The view of a document: the company as the CLI and the admin API show it. */
export const companyOf = (doc: CompanyDoc): Company => ({
  id: doc.company.id,
  name: doc.company.name,
  createdAt: doc.company.createdAt,
  status: doc.company.status ?? 'active',
  suspendedAt: doc.company.suspendedAt ?? null,
  suspensionReason: doc.company.suspensionReason ?? null,
});

/** Whether the document says the company is suspended. */
export const isSuspendedDoc = (doc: CompanyDoc): boolean => doc.company.status === 'suspended';
