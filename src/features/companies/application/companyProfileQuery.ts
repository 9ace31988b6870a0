import type { DocumentCollection, ReadModelDocument, ReadModelStore } from '../../../application/ports/ReadModelStore.js';

/** A company as pages show it. */
export interface CompanyProfile {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

/**
 * The `companies` read model as the query reads it: the collection, the partition
 * every company is kept under, and a document's company. The feature's index.ts
 * hands it over (`companyProfileReaderOf`): application/ never imports readModels/,
 * which import it.
 */
export interface CompaniesReadModel<D extends ReadModelDocument> {
  readonly companies: DocumentCollection<D>;
  readonly partition: string;
  readonly profileOf: (doc: D) => CompanyProfile;
}

/** A company by id; null while the read model does not have it (yet). */
export type CompanyProfileReader = (companyId: string) => Promise<CompanyProfile | null>;

/** The reader over the read models, as the feature's index.ts binds it (`companyProfileReaderOf`). */
export type CompanyProfileReaderOf = (readModels: Pick<ReadModelStore, 'collection'>) => CompanyProfileReader;

/** Reads a company's profile from the `companies` read model. */
export const companyProfileReader =
  <D extends ReadModelDocument>({ companies, partition, profileOf }: CompaniesReadModel<D>): CompanyProfileReader =>
  async (companyId) => {
    const doc = await companies.get(partition, companyId);
    return doc ? profileOf(doc) : null;
  };
