import type { DocumentCollection, ReadModelDocument } from '../ports/ReadModelStore.js';

const PAGE_SIZE = 200;

/** Every document of a company in a read model, newest first, read a page at a time (a company's keys and subscriptions are few). */
export const allDocuments = async <D extends ReadModelDocument>(collection: DocumentCollection<D>, companyId: string): Promise<D[]> => {
  const found: D[] = [];
  for (let page = 1; ; page++) {
    const result = await collection.list({ companyId, filters: [], page, limit: PAGE_SIZE, order: 'desc' });
    found.push(...result.items);
    if (result.items.length < PAGE_SIZE || found.length >= result.total) return found;
  }
};
