import type { Projection, ProjectionTarget, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';

/** The event after which nothing of a company is kept in the read models. */
export const COMPANY_ERASED = 'CompanyErased';

/** Where a read model that is not kept per company names a document's company: its partition, and the field. */
export interface CompanyField {
  readonly partition: string;
  readonly field: string;
}

const erasedCompanyOf = (event: RecordedEvent): string => {
  const companyId = (event.data as { companyId?: unknown } | null)?.companyId;
  if (typeof companyId !== 'string') throw new Error(`${COMPANY_ERASED} ${event.id} names no company`);
  return companyId;
};

/**
 * The projection, with every document of a company deleted when it passes the
 * company's `CompanyErased`: all of them, whatever the projection's own event types,
 * through a where-target on the documents' `companyId` (the company's partition),
 * or, for a read model kept under one partition for every company (`company`), on
 * the field that names a document's company. Decided from the log: a rebuild
 * deletes them again at the same event.
 */
export const erasedWithCompany = <D extends ReadModelDocument>(projection: Projection<D>, company?: CompanyField): Projection<D> => {
  const { creates } = projection;
  return {
    ...projection,
    eventTypes: new Set([...projection.eventTypes, COMPANY_ERASED]),
    targets(event): readonly ProjectionTarget[] {
      if (event.type !== COMPANY_ERASED) return projection.targets(event);
      const companyId = erasedCompanyOf(event);
      return [
        company
          ? { kind: 'where', companyId: company.partition, field: company.field, value: companyId }
          : { kind: 'where', companyId, field: 'companyId', value: companyId },
      ];
    },
    evolve(doc, event) {
      return event.type === COMPANY_ERASED ? null : projection.evolve(doc, event);
    },
    ...(creates ? { creates: (event: RecordedEvent) => event.type !== COMPANY_ERASED && creates(event) } : {}),
  };
};
