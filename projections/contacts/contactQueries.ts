import type { Filter, ListQuery } from '../../src/application/ports/ReadModelStore.js';

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

/**
 * The stored form of an instant (ISO 8601 UTC with milliseconds), so that string
 * comparison is time order: `2024-05-01` and `2024-05-01T02:00:00+02:00` both
 * become `2024-05-01T00:00:00.000Z`.
 */
const canonicalInstant = (name: string, value: string): string => {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw new RangeError(`${name} is not an ISO 8601 date or date-time: ${value}`);
  return new Date(time).toISOString();
};

/** GET /contacts as a typed read-model query: filters combine; oldest first (creation order). */
export const contactListQuery = (params: ContactListParams): ListQuery => {
  const filters: Filter[] = [];
  const search = params.search?.trim();
  if (search) filters.push({ op: 'contains', fields: CONTACT_SEARCH_FIELDS, text: search });
  if (params.createdSince !== undefined) {
    filters.push({ op: 'gt', field: 'contact.createdAt', value: canonicalInstant('createdSince', params.createdSince) });
  }
  if (params.updatedSince !== undefined) {
    filters.push({ op: 'gt', field: 'contact.updatedAt', value: canonicalInstant('updatedSince', params.updatedSince) });
  }
  return { companyId: params.companyId, filters, page: params.page, limit: params.limit, order: 'asc' };
};
