import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import type { DocumentCollection, ListQuery, Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { ContactEvent } from '../domain/contactEvents.js';
import { PLATFORM_SCOPE, erasedWithCompany } from '../../companies/index.js';

/**
 * A deleted contact awaiting the end of its restore period. Kept under the
 * platform's partition (as companies are), since the retention sweep looks
 * across companies; `contactCompanyId` is the contact's company. No personal value.
 */
export interface DeletedContactDoc extends ReadModelDocument {
  readonly contactCompanyId: string;
  readonly deletedAt: string;
  readonly restorableUntil: string;
}

const decode = cachedDecoder(ContactEvent);

/**
 * `deleted_contacts`: one document per deleted contact, from its `ContactDeleted`
 * until it is restored or erased (or its company is); the retention sweep erases
 * those whose `restorableUntil` has passed.
 */
export const deletedContactsProjection: Projection<DeletedContactDoc> = erasedWithCompany({
  name: 'deleted_contacts',
  eventTypes: new Set(['ContactDeleted', 'ContactRestored', 'ContactErased']),
  indexes: [['restorableUntil']],
  targets(event) {
    const { data } = decode(event);
    return [{ kind: 'id', companyId: PLATFORM_SCOPE, id: data.contactId }];
  },
  evolve(_doc, event) {
    const decoded = decode(event);
    if (decoded.type !== 'ContactDeleted') return null;
    const { contactId, companyId, deletedAt, restorableUntil } = decoded.data;
    return { id: contactId, companyId: PLATFORM_SCOPE, position: event.position, contactCompanyId: companyId, deletedAt, restorableUntil };
  },
}, { partition: PLATFORM_SCOPE, field: 'contactCompanyId' });

/** The deleted contacts whose restore period ended before `at`, earliest first: one page of `limit`. */
export const expiredDeletionsQuery = (at: Date, limit: number): ListQuery => ({
  companyId: PLATFORM_SCOPE,
  filters: [{ op: 'lt', field: 'restorableUntil', value: at.toISOString() }],
  page: 1,
  limit,
  order: 'asc',
  withTotal: false,
});

/** The deleted contacts of any company whose restore period ended before `at`, up to `limit` (`ContactRetentionSweep`'s `expired`). */
export const expiredDeletions =
  (deletions: Pick<DocumentCollection<DeletedContactDoc>, 'list'>) =>
  async (at: Date, limit: number): Promise<{ id: string; companyId: string }[]> =>
    (await deletions.list(expiredDeletionsQuery(at, limit))).items.map((doc) => ({ id: doc.id, companyId: doc.contactCompanyId }));
