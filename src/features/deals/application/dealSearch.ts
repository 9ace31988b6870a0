import type { ReadModelStore } from '../../../application/ports/ReadModelStore.js';
import type { DealStatus } from '../domain/dealEvents.js';

/** A deal a search found, as the console lists it. */
export interface DealMatch {
  readonly id: string;
  readonly title: string;
  readonly status: DealStatus;
  readonly stage: string | null;
  readonly value: number;
  readonly currency: string;
  /** Its contact's name as the deal shows it (null: no contact, or one deleted or erased). */
  readonly contactName: string | null;
  readonly createdAt: string;
}

/** Up to `limit` matches, newest first, and how many there are in all. */
export interface DealMatches {
  readonly items: readonly DealMatch[];
  readonly total: number;
}

/**
 * What the console's search asks of the deals: a company's live deals (deleted
 * ones are not in the read model) whose title, or whose contact's name, e-mail
 * or phone number, holds `text` (case-insensitive, literal, as `GET /contacts`'
 * `search`). The public API has no such parameter (the specification's
 * `GET /deals` has none): only the console asks.
 */
export interface DealSearch {
  readonly dealsMatching: (query: { readonly companyId: string; readonly text: string; readonly limit: number }) => Promise<DealMatches>;
}

/** The search over a store's read models, as the feature's index binds it (`dealSearchOf`). */
export type DealSearchOf = (readModels: Pick<ReadModelStore, 'collection'>) => DealSearch;
