import { expect } from 'chai';
import { contactDecider } from '../../../src/features/contacts/domain/contactDecider.js';
import type { ContactCreated, ContactEvent, ContactUpdated } from '../../../src/features/contacts/domain/contactEvents.js';
import type { Contact } from '../../../src/features/contacts/domain/contactView.js';
import { specFor } from '../../support/givenWhenThen.js';

const spec = specFor(contactDecider);
const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T11:00:00.000Z';

const created: ContactCreated = {
  type: 'ContactCreated',
  data: {
    contactId: 'c-1',
    companyId: 'co-1',
    name: 'Ada Lovelace',
    phoneNumber: '+442079460000',
    email: 'ada@example.org',
    city: 'London',
    tags: ['vip'],
    createdAt: T0,
  },
};

/** The contact of `created`, as the API shows it. */
const createdView: Contact = {
  id: 'c-1',
  name: 'Ada Lovelace',
  firstName: null,
  lastName: null,
  phoneNumber: '+442079460000',
  email: 'ada@example.org',
  position: null,
  currentCompany: null,
  industrySector: null,
  city: 'London',
  country: null,
  tags: ['vip'],
  createdAt: T0,
  updatedAt: T0,
};

/** A `ContactUpdated` at T1 whose snapshot is `created`'s contact with the fields `after` (the values after the change). */
const updated = (data: Partial<Omit<ContactUpdated['data'], 'contact'>>, after: Partial<Contact> = {}): ContactUpdated => ({
  type: 'ContactUpdated',
  data: {
    contactId: 'c-1',
    companyId: 'co-1',
    changes: {},
    updatedAt: T1,
    ...data,
    contact: { ...createdView, ...after, updatedAt: T1 },
  },
});

const update = (changes: object, companyId = 'co-1') =>
  ({ type: 'UpdateContact', contactId: 'c-1', companyId, changes, at: new Date(T1) }) as const;

describe('contact decider', () => {
  describe('given no contact', () => {
    it('creates it, leaving unset fields out and tags empty', () =>
      spec
        .given()
        .when({
          type: 'CreateContact',
          contactId: 'c-1',
          companyId: 'co-1',
          fields: { name: 'Ada', phoneNumber: '+44123', firstName: null, email: 'ada@example.org' },
          at: new Date(T0),
        })
        .then({
          type: 'ContactCreated',
          data: { contactId: 'c-1', companyId: 'co-1', name: 'Ada', phoneNumber: '+44123', email: 'ada@example.org', tags: [], createdAt: T0 },
        }));

    it('refuses an update: not found', () =>
      spec.given().when(update({ name: 'X' })).thenError({ kind: 'ContactNotFound', contactId: 'c-1' }));
  });

  describe('given a contact', () => {
    it('refuses to create it again', () =>
      spec
        .given(created)
        .when({ type: 'CreateContact', contactId: 'c-1', companyId: 'co-1', fields: { name: 'A', phoneNumber: '123' }, at: new Date(T1) })
        .thenError({ kind: 'ContactAlreadyExists', contactId: 'c-1' }));

    it('records only the fields that changed, with their previous values', () =>
      spec
        .given(created)
        .when(update({ name: 'Ada King', city: 'London', email: null, firstName: 'Ada', tags: ['vip', 'math'] }))
        .then(
          updated(
            {
              changes: { name: 'Ada King', firstName: 'Ada', email: null, tags: ['vip', 'math'] },
              previous: { name: 'Ada Lovelace', firstName: null, email: 'ada@example.org', tags: ['vip'] },
            },
            { name: 'Ada King', firstName: 'Ada', email: null, tags: ['vip', 'math'] },
          ),
        ));

    it('records a new phone number with the old one', () =>
      spec
        .given(created)
        .when(update({ phoneNumber: '+4915100' }))
        .then(
          updated({ changes: { phoneNumber: '+4915100' }, previous: { phoneNumber: '+442079460000' } }, { phoneNumber: '+4915100' }),
        ));

    it('emits nothing when every value equals the current one', () =>
      spec
        .given(created)
        .when(update({ name: 'Ada Lovelace', phoneNumber: '+442079460000', city: 'London', country: null, tags: ['vip'] }))
        .then());

    it('treats tags in another order as a change', () =>
      spec
        .given({ ...created, data: { ...created.data, tags: ['a', 'b'] } })
        .when(update({ tags: ['b', 'a'] }))
        .then(updated({ changes: { tags: ['b', 'a'] }, previous: { tags: ['a', 'b'] } }, { tags: ['b', 'a'] })));

    it('records the whole contact after the change, as the API shows it', () =>
      spec
        .given(created)
        .when(update({ city: 'Paris', lastName: 'King' }))
        .then({
          type: 'ContactUpdated',
          data: {
            contactId: 'c-1',
            companyId: 'co-1',
            changes: { lastName: 'King', city: 'Paris' },
            previous: { lastName: null, city: 'London' },
            updatedAt: T1,
            contact: {
              id: 'c-1',
              name: 'Ada Lovelace',
              firstName: null,
              lastName: 'King',
              phoneNumber: '+442079460000',
              email: 'ada@example.org',
              position: null,
              currentCompany: null,
              industrySector: null,
              city: 'Paris',
              country: null,
              tags: ['vip'],
              createdAt: T0,
              updatedAt: T1,
            },
          },
        }));

    it('refuses an update from another company: not found', () =>
      spec.given(created).when(update({ name: 'X' }, 'co-2')).thenError({ kind: 'ContactNotFound', contactId: 'c-1' }));
  });

  describe('given a contact that was updated', () => {
    const history: ContactEvent[] = [
      created,
      updated(
        { changes: { city: null, country: 'UK', tags: [] }, previous: { city: 'London', country: null, tags: ['vip'] } },
        { city: null, country: 'UK', tags: [] },
      ),
    ];

    it('decides on the updated values', () =>
      spec.given(...history).when(update({ city: null, country: 'UK', tags: [] })).then());

    it('holds the full contact with createdAt and the last updatedAt', () => {
      const state = history.reduce(contactDecider.evolve, contactDecider.initialState);
      expect(state).to.deep.equal({
        status: 'active',
        contact: {
          id: 'c-1',
          companyId: 'co-1',
          name: 'Ada Lovelace',
          phoneNumber: '+442079460000',
          firstName: null,
          lastName: null,
          email: 'ada@example.org',
          position: null,
          currentCompany: null,
          industrySector: null,
          city: null,
          country: 'UK',
          tags: [],
          createdAt: T0,
          updatedAt: T1,
        },
      });
    });
  });

  describe('delete and restore', () => {
    const T2 = '2024-05-02T10:00:00.000Z';
    const UNTIL = '2024-05-31T10:00:00.000Z';
    const remove = (companyId = 'co-1') =>
      ({ type: 'DeleteContact', contactId: 'c-1', companyId, at: new Date(T1), restorableUntil: new Date(UNTIL) }) as const;
    const restore = (at: string, companyId = 'co-1') => ({ type: 'RestoreContact', contactId: 'c-1', companyId, at: new Date(at) }) as const;
    const deleted: ContactEvent = {
      type: 'ContactDeleted',
      data: { contactId: 'c-1', companyId: 'co-1', deletedAt: T1, restorableUntil: UNTIL },
    };

    it('deletes a contact, recording until when it can be restored and nothing personal', () =>
      spec.given(created).when(remove()).then(deleted));

    it('refuses to delete a contact already deleted, one never created, or another company\'s: not found', () => {
      spec.given(created, deleted).when(remove()).thenError({ kind: 'ContactNotFound', contactId: 'c-1' });
      spec.given().when(remove()).thenError({ kind: 'ContactNotFound', contactId: 'c-1' });
      spec.given(created).when(remove('co-2')).thenError({ kind: 'ContactNotFound', contactId: 'c-1' });
    });

    it('refuses to update a deleted contact: not found', () =>
      spec.given(created, deleted).when(update({ name: 'X' })).thenError({ kind: 'ContactNotFound', contactId: 'c-1' }));

    it('restores it as it was when deleted, updatedAt unchanged', () =>
      spec
        .given(created, deleted)
        .when(restore(T2))
        .then({ type: 'ContactRestored', data: { contactId: 'c-1', companyId: 'co-1', restoredAt: T2, contact: createdView } }));

    it('restores the contact as its last update left it', () =>
      spec
        .given(created, updated({ changes: { city: 'Paris' }, previous: { city: 'London' } }, { city: 'Paris' }), deleted)
        .when(restore(T2))
        .then({
          type: 'ContactRestored',
          data: { contactId: 'c-1', companyId: 'co-1', restoredAt: T2, contact: { ...createdView, city: 'Paris', updatedAt: T1 } },
        }));

    it('refuses to restore once restorableUntil has come, and another company\'s contact: not found', () => {
      spec.given(created, deleted).when(restore(UNTIL)).thenError({ kind: 'ContactNotFound', contactId: 'c-1' });
      spec.given(created, deleted).when(restore(T2, 'co-2')).thenError({ kind: 'ContactNotFound', contactId: 'c-1' });
      spec.given().when(restore(T2)).thenError({ kind: 'ContactNotFound', contactId: 'c-1' });
    });

    it('restores nothing when the contact is not deleted (a restore sent twice answers the same)', () =>
      spec.given(created).when(restore(T2)).then());

    it('can update, delete and restore it again once restored', () => {
      const restored: ContactEvent = { type: 'ContactRestored', data: { contactId: 'c-1', companyId: 'co-1', restoredAt: T2, contact: createdView } };
      spec.given(created, deleted, restored).when(remove()).then(deleted);
      spec.given(created, deleted, restored).when(restore(T2)).then();
    });
  });

  describe('given a contact whose person was erased (its personal fields read as null)', () => {
    const T2 = '2024-05-02T10:00:00.000Z';
    const UNTIL = '2024-05-31T10:00:00.000Z';
    /** `created` as it reads once its person is erased: every personal field it has null. */
    const erasedCreated: ContactCreated = {
      type: 'ContactCreated',
      data: { contactId: 'c-1', companyId: 'co-1', name: null, phoneNumber: null, email: null, city: null, tags: null, createdAt: T0 },
    };
    const erasedView = { ...createdView, name: null, phoneNumber: null, email: null, city: null, tags: null };

    it('keeps the nulls in its state: an update records them as the previous values, and the contact after it with them', () =>
      spec
        .given(erasedCreated)
        .when(update({ country: 'France', tags: ['vip'] }))
        .then({
          type: 'ContactUpdated',
          data: {
            contactId: 'c-1',
            companyId: 'co-1',
            changes: { country: 'France', tags: ['vip'] },
            previous: { country: null, tags: null },
            updatedAt: T1,
            contact: { ...erasedView, country: 'France', tags: ['vip'], updatedAt: T1 },
          },
        }));

    it('takes an update whose changes read as null (erased) as they are: the contact after it has those fields null, nothing kept from before', () => {
      const erasedUpdate: ContactUpdated = {
        type: 'ContactUpdated',
        data: {
          contactId: 'c-1',
          companyId: 'co-1',
          changes: { name: null, city: null, tags: null },
          previous: { name: null, city: null, tags: null },
          updatedAt: T1,
          contact: { ...erasedView, updatedAt: T1 },
        },
      };
      spec
        .given(created, erasedUpdate)
        .when(update({ city: 'Paris' }))
        .then({
          type: 'ContactUpdated',
          data: {
            contactId: 'c-1',
            companyId: 'co-1',
            changes: { city: 'Paris' },
            previous: { city: null },
            updatedAt: T1,
            contact: { ...createdView, name: null, city: 'Paris', tags: null, updatedAt: T1 },
          },
        });
    });

    it('restores it with its fields null, as its state holds them', () => {
      const deleted: ContactEvent = { type: 'ContactDeleted', data: { contactId: 'c-1', companyId: 'co-1', deletedAt: T1, restorableUntil: UNTIL } };
      spec
        .given(erasedCreated, deleted)
        .when({ type: 'RestoreContact', contactId: 'c-1', companyId: 'co-1', at: new Date(T2) })
        .then({ type: 'ContactRestored', data: { contactId: 'c-1', companyId: 'co-1', restoredAt: T2, contact: erasedView } });
    });
  });
});
