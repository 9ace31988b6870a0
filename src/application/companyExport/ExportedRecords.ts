import type { Projection, ReadModelDocument } from '../ports/ReadModelStore.js';

/**
 * One read model a customer calls their data, as one part of a company's export
 * (`records/<part>.ndjson`): each of the company's documents as the customer knows
 * it (`record`: no key hash, no secret, no internal field). Declared by the
 * feature that keeps the read model (`Feature.exports`).
 */
export interface ExportedRecords {
  readonly part: string;
  readonly projection: Projection<ReadModelDocument>;
  record(doc: ReadModelDocument): unknown;
}

/** A feature's read model as one part of the export. */
export const exportedRecords = <D extends ReadModelDocument>(part: string, projection: Projection<D>, record: (doc: D) => unknown): ExportedRecords => ({
  part,
  projection: projection as unknown as Projection<ReadModelDocument>,
  record: record as (doc: ReadModelDocument) => unknown,
});

/** A document's own fields, without where the read model keeps it (its company, its position in the log). */
export const documentFields = ({ companyId: _company, position: _position, ...fields }: ReadModelDocument): Record<string, unknown> => fields;

/**
 * The fields of stored events that hold a secret (a key's or a token's hash), by
 * event type: an export writes them as null (`removedFields` lists them), and an
 * import stores a stand-in no key or token hashes to (`removedSecret`).
 */
export type SecretEventFields = Readonly<Record<string, readonly string[]>>;
