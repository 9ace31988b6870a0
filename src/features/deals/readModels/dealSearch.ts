import type { DocumentCollection, ListQuery } from '../../../application/ports/ReadModelStore.js';
import type { DealSearch } from '../application/dealSearch.js';
import { DEAL_SEARCH_FIELDS } from './dealQueries.js';
import { dealOf, type DealDoc } from './dealsProjection.js';

/** The console's search as a typed read-model query: `text` within a deal's title or its contact's name, e-mail or phone number; newest first. */
export const dealSearchQuery = (params: { readonly companyId: string; readonly text: string; readonly limit: number }): ListQuery => ({
  companyId: params.companyId,
  filters: [{ op: 'contains', fields: DEAL_SEARCH_FIELDS, text: params.text }],
  page: 1,
  limit: params.limit,
  order: 'desc',
});

/** The deals' search over the `deals` read model, on any engine (each answers `contains` from its own text index). */
export const dealSearch = (deals: DocumentCollection<DealDoc>): DealSearch => ({
  dealsMatching: async (query) => {
    // A blank text would match every deal: the search asks for something.
    if (query.text.trim() === '') return { items: [], total: 0 };
    const page = await deals.list(dealSearchQuery(query));
    return {
      total: page.total,
      items: page.items.map((doc) => {
        const deal = dealOf(doc);
        return {
          id: deal.id,
          title: deal.title,
          status: deal.status,
          stage: deal.stage,
          value: deal.value,
          currency: deal.currency,
          contactName: deal.contact?.name ?? null,
          createdAt: deal.createdAt,
        };
      }),
    };
  },
});
