import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import type { DocumentCollection, ReadModelDocument } from '../../src/application/ports/ReadModelStore.js';
import { contactValuesProjection, type ContactValuesDoc } from '../../src/features/contacts/readModels/contactValuesProjection.js';
import { deletedContactsProjection, expiredDeletionsQuery, type DeletedContactDoc } from '../../src/features/contacts/readModels/deletedContactsProjection.js';
import { contactsMatching } from '../../src/features/contacts/readModels/contactValueQueries.js';
import type { ReadModelStoreFixture } from './readModelStore.contract.js';

const AT = '2026-03-01T10:00:00.000Z';

const snapshot = (id: string, fields: { email: string | null; phoneNumber: string | null }) => ({
  id,
  name: 'Someone',
  firstName: null,
  lastName: null,
  phoneNumber: fields.phoneNumber,
  email: fields.email,
  position: null,
  currentCompany: null,
  industrySector: null,
  city: null,
  country: null,
  tags: [],
  createdAt: AT,
  updatedAt: AT,
});

/** Contact events with increasing positions, as the log would hand them to the projector. */
const contactLog = () => {
  let position = 5000;
  const event = (type: string, data: Record<string, unknown>): RecordedEvent => {
    position += 1;
    return {
      id: randomUUID(),
      stream: `contact-${String(data.contactId)}`,
      revision: position,
      position: String(position),
      type,
      data,
      metadata: { source: 'api', correlationId: 'c' },
      recordedAt: AT,
    };
  };
  return {
    created: (companyId: string, contactId: string, email: string | null, phoneNumber: string) =>
      event('ContactCreated', { contactId, companyId, name: 'Someone', phoneNumber, tags: [], createdAt: AT, ...(email === null ? {} : { email }) }),
    updated: (companyId: string, contactId: string, fields: { email: string | null; phoneNumber: string }) =>
      event('ContactUpdated', { contactId, companyId, changes: { email: fields.email }, updatedAt: AT, contact: snapshot(contactId, fields) }),
    deleted: (companyId: string, contactId: string, restorableUntil: string) =>
      event('ContactDeleted', { contactId, companyId, deletedAt: AT, restorableUntil }),
    restored: (companyId: string, contactId: string, fields: { email: string | null; phoneNumber: string }) =>
      event('ContactRestored', { contactId, companyId, restoredAt: AT, contact: snapshot(contactId, fields) }),
    erased: (companyId: string, contactId: string) => event('ContactErased', { contactId, companyId, erasedAt: AT, reason: 'requested' }),
  };
};

/**
 * The read models behind erasure by value and at the end of a restore period
 * (`contact_values`, `deleted_contacts`), on a read-model store: what they hold
 * after each contact event, and the queries that read them.
 */
export const contactErasureReadModelsContract = (name: string, makeFixture: () => Promise<ReadModelStoreFixture>): void => {
  describe(`Contact erasure read models: ${name}`, function () {
    this.timeout(30_000);
    let fixture: ReadModelStoreFixture;
    let values: DocumentCollection<ContactValuesDoc>;
    let deletions: DocumentCollection<DeletedContactDoc>;
    const company = randomUUID();
    const otherCompany = randomUUID();
    const log = contactLog();
    const apply = (...events: RecordedEvent[]) =>
      fixture.store.applyBatch([values, deletions] as unknown as DocumentCollection<ReadModelDocument>[], events, 'test-contact-erasure');

    beforeEach(async () => {
      fixture = await makeFixture();
      values = fixture.store.collection(contactValuesProjection);
      deletions = fixture.store.collection(deletedContactsProjection);
      await fixture.store.init();
    });
    afterEach(() => fixture.dispose());

    it('finds a company\'s live and deleted contacts by e-mail (lower-cased) and by phone number, and no other company\'s', async () => {
      const [live, deleted, theirs] = [randomUUID(), randomUUID(), randomUUID()];
      await apply(
        log.created(company, live, 'Ada.Lovelace@Example.com', '+441111'),
        log.created(company, deleted, 'ada.lovelace@example.com', '+442222'),
        log.created(otherCompany, theirs, 'ada.lovelace@example.com', '+441111'),
        log.deleted(company, deleted, '2026-03-31T10:00:00.000Z'),
      );
      expect(await contactsMatching(values, company, { email: 'ADA.lovelace@example.com' })).to.deep.equal([live, deleted]);
      expect(await contactsMatching(values, company, { phoneNumber: '+441111' })).to.deep.equal([live]);
      expect(await contactsMatching(values, otherCompany, { phoneNumber: '+441111' })).to.deep.equal([theirs]);
      expect(await contactsMatching(values, company, { phoneNumber: '+443333' })).to.deep.equal([]);
      const doc = await values.get(company, deleted);
      expect(doc).to.include({ email: 'ada.lovelace@example.com', phoneNumber: '+442222', deletedAt: AT, restorableUntil: '2026-03-31T10:00:00.000Z' });
    });

    it('matches a contact by the values it has now: an update replaces them, a restore clears the deletion', async () => {
      const id = randomUUID();
      await apply(
        log.created(company, id, 'old@example.com', '+445555'),
        log.updated(company, id, { email: 'new@example.com', phoneNumber: '+445555' }),
        log.deleted(company, id, '2026-03-31T10:00:00.000Z'),
        log.restored(company, id, { email: 'new@example.com', phoneNumber: '+445555' }),
      );
      expect(await contactsMatching(values, company, { email: 'old@example.com' })).to.deep.equal([]);
      expect(await contactsMatching(values, company, { email: 'new@example.com' })).to.deep.equal([id]);
      expect(await values.get(company, id)).to.include({ deletedAt: null, restorableUntil: null });
      expect((await deletions.list(expiredDeletionsQuery(new Date('2027-01-01T00:00:00.000Z'), 100))).items).to.deep.equal([]);
    });

    it('keeps a deleted contact in deleted_contacts, across companies, until its restore or its erasure; lists those whose period has ended', async () => {
      const [early, late, restored, erased] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      await apply(
        log.created(company, early, null, '+446661'),
        log.created(otherCompany, late, null, '+446662'),
        log.created(company, restored, null, '+446663'),
        log.created(company, erased, null, '+446664'),
        log.deleted(company, early, '2026-03-10T00:00:00.000Z'),
        log.deleted(otherCompany, late, '2026-03-20T00:00:00.000Z'),
        log.deleted(company, restored, '2026-03-05T00:00:00.000Z'),
        log.deleted(company, erased, '2026-03-05T00:00:00.000Z'),
        log.restored(company, restored, { email: null, phoneNumber: '+446663' }),
        log.erased(company, erased),
      );
      const expired = async (at: string) =>
        (await deletions.list(expiredDeletionsQuery(new Date(at), 100))).items.map((doc) => ({ id: doc.id, company: doc.contactCompanyId }));
      expect(await expired('2026-03-10T00:00:00.000Z')).to.deep.equal([]);
      expect(await expired('2026-03-10T00:00:00.001Z')).to.deep.equal([{ id: early, company }]);
      expect(await expired('2026-04-01T00:00:00.000Z')).to.deep.equal([
        { id: early, company },
        { id: late, company: otherCompany },
      ]);
      expect(await values.get(company, erased)).to.equal(null);
      expect(await contactsMatching(values, company, { phoneNumber: '+446664' })).to.deep.equal([]);
    });

    it('forgets an erased contact\'s values, deleted or not', async () => {
      const [live, deleted] = [randomUUID(), randomUUID()];
      await apply(
        log.created(company, live, 'gone@example.com', '+447771'),
        log.created(company, deleted, 'gone@example.com', '+447772'),
        log.deleted(company, deleted, '2026-03-31T10:00:00.000Z'),
        log.erased(company, live),
        log.erased(company, deleted),
      );
      expect(await contactsMatching(values, company, { email: 'gone@example.com' })).to.deep.equal([]);
      const left: unknown[] = [];
      for await (const doc of values.scan()) left.push(doc);
      for await (const doc of deletions.scan()) left.push(doc);
      expect(left).to.deep.equal([]);
    });
  });
};
