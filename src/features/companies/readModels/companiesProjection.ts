import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import { CompanyEvent } from '../domain/companyEvents.js';

/**
 * The partition every company document is kept under. Read models are kept per
 * company; the companies themselves are the platform's, listed across companies,
 * so they share one partition that no company id can be (ids are UUIDs).
 */
export const PLATFORM_SCOPE = 'platform';

export interface Company {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

export interface CompanyDoc extends ReadModelDocument {
  readonly company: Company;
}

const decode = cachedDecoder(CompanyEvent);

/** `companies`: one document per company, under the platform's partition, in creation order; searchable by name. */
export const companiesProjection: Projection<CompanyDoc> = {
  name: 'companies',
  eventTypes: new Set(['CompanyCreated']),
  indexes: [['company.createdAt']],
  search: ['company.name'],
  view: 'company',
  targets(event) {
    return [{ kind: 'id', companyId: PLATFORM_SCOPE, id: decode(event).data.companyId }];
  },
  evolve(doc, event) {
    if (doc) return doc;
    const { data } = decode(event);
    return {
      id: data.companyId,
      companyId: PLATFORM_SCOPE,
      position: event.position,
      company: { id: data.companyId, name: data.name, createdAt: data.createdAt },
    };
  },
};

/** The view of a document: the company as the CLI and the admin API show it. */
export const companyOf = (doc: CompanyDoc): Company => doc.company;
