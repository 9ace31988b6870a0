import { loadCompany } from '../application/loadCompany.js';
import type { EventStore } from '../../../application/ports/EventStore.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import { PLATFORM_SCOPE, type CompanyDoc } from '../readModels/companiesProjection.js';
import { companyNotFoundError } from './companyHttpErrors.js';

/** Where an admin route looks a company up: its read model, and the log for one the read model has not applied yet. */
export interface CompanyLookup {
  readonly companies: DocumentCollection<CompanyDoc>;
  readonly eventStore: Pick<EventStore, 'readStream'>;
}

/**
 * The id of the company of an admin route's `:id`, or the 404 `Company not found`.
 * The read model answers almost always (a company made through the admin API was
 * waited for); one made a moment ago by another process (`chronicle companies
 * create`) is found in its stream.
 */
export const knownCompany = async (lookup: CompanyLookup, companyId: string): Promise<string> => {
  if ((await lookup.companies.get(PLATFORM_SCOPE, companyId)) !== null) return companyId;
  if ((await loadCompany(lookup.eventStore, companyId)) !== null) return companyId;
  throw companyNotFoundError();
};
