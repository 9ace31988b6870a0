import type { Filter, ListQuery } from '../../../application/ports/ReadModelStore.js';
import { requireInstant } from '../../../shared/instant.js';

export interface ContactListParams {
  readonly companyId: string;
  /** Case-insensitive literal text within name, email or phone number (stored normalised). */
  readonly search?: string;
  /** ISO 8601; contacts created strictly after it. */
  readonly createdSince?: string;
  /** ISO 8601; contacts updated strictly after it. */
  readonly updatedSince?: string;
  /** 1-based. */
  readonly page: number;
  readonly limit: number;
}

/** Document paths of the searched fields (the view is nested under `contact`). */
export const CONTACT_SEARCH_FIELDS = ['contact.name', 'contact.email', 'contact.phoneNumber'] as const;

/** GET /contacts as a typed read-model query: filters combine; oldest first (creation order). */
export const contactListQuery = (params: ContactListParams): ListQuery => {
  const filters: Filter[] = [];
  const search = params.search?.trim();
  if (search) filters.push({ op: 'contains', fields: CONTACT_SEARCH_FIELDS, text: search });
  if (params.createdSince !== undefined) {
    filters.push({ op: 'gt', field: 'contact.createdAt', value: requireInstant('createdSince', params.createdSince) });
  }
  if (params.updatedSince !== undefined) {
    filters.push({ op: 'gt', field: 'contact.updatedAt', value: requireInstant('updatedSince', params.updatedSince) });
  }
  return { companyId: params.companyId, filters, page: params.page, limit: params.limit, order: 'asc' };
};
