import { expect } from 'chai';
import { ContactCreated, ContactRestored, ContactUpdated, contactStream } from '../../../src/features/contacts/domain/contactEvents.js';
import {
  ContactCreatedV1,
  ContactRestoredV1,
  ContactUpdatedV2,
  upcastContactCreatedV1,
  upcastContactRestoredV1,
  upcastContactUpdatedV2,
} from '../../../src/features/contacts/domain/contactEventVersions.js';
import { contactPersonalData } from '../../../src/features/contacts/domain/contactPersonalData.js';
import { erased, expectNullablePersonalFields, expectReadThroughDecorator } from '../../support/personalFieldsNull.js';

const T0 = '2026-01-01T10:00:00.000Z';
const T1 = '2026-01-02T10:00:00.000Z';

/** Every optional field of a contact, set. */
const optional = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.org',
  position: 'Analyst',
  currentCompany: 'Engines Ltd',
  industrySector: 'Computing',
  city: 'London',
  country: 'United Kingdom',
};

/** The data of a `ContactCreated` version 1 (what releases up to bf089fc wrote), every field there. */
const createdV1 = { contactId: 'c-1', companyId: 'co-1', name: 'Ada Lovelace', phoneNumber: '+442079460000', ...optional, tags: ['vip'], createdAt: T0 };

/** A contact as version 2 of `ContactUpdated` and version 1 of `ContactRestored` carry it. */
const contact = { id: 'c-1', name: 'Ada King', ...optional, phoneNumber: '+442079460001', tags: ['vip', 'newsletter'], createdAt: T0, updatedAt: T1 };

/** The data of a `ContactUpdated` version 2: every field changed, with its value before. */
const updatedV2 = {
  contactId: 'c-1',
  companyId: 'co-1',
  changes: { name: 'Ada King', phoneNumber: '+442079460001', ...optional, tags: ['vip', 'newsletter'] },
  previous: { name: 'Ada Lovelace', phoneNumber: '+442079460000', ...optional, tags: ['vip'] },
  updatedAt: T1,
  contact,
};

/** The data of a `ContactRestored` version 1. */
const restoredV1 = { contactId: 'c-1', companyId: 'co-1', restoredAt: T1, contact };

const declared = contactPersonalData.events;

describe('ContactCreated versions', () => {
  it('v1 → v2 (pure): the identity; version 2 accepts what version 1 holds', () => {
    const v1 = { type: 'ContactCreated' as const, data: createdV1 };
    expect(upcastContactCreatedV1(v1)).to.deep.equal(v1);
    expect(ContactCreated.is(upcastContactCreatedV1(v1))).to.equal(true);
  });

  it('v2 accepts each personal field null (erased), which version 1 refuses; a field that is not personal stays refused as null', () => {
    expectNullablePersonalFields({ type: 'ContactCreated', previous: ContactCreatedV1, current: ContactCreated, declaration: declared.ContactCreated!, sample: createdV1 });
    expect(ContactCreatedV1.is({ type: 'ContactCreated', data: erased(createdV1, declared.ContactCreated!) })).to.equal(false);
    expect(ContactCreated.is({ type: 'ContactCreated', data: { ...createdV1, contactId: null } })).to.equal(false);
  });

  it('reads a v1 event through the versioning decorator as v2, unchanged; records version 2 on a new one', () =>
    expectReadThroughDecorator({ stream: contactStream('c-1'), type: 'ContactCreated', stored: 1, data: createdV1, declaration: declared.ContactCreated! }));
});

describe('ContactUpdated versions: v2 → v3', () => {
  it('v2 → v3 (pure): the identity; version 3 accepts what version 2 holds', () => {
    const v2 = { type: 'ContactUpdated' as const, data: updatedV2 };
    expect(ContactUpdatedV2.is(v2)).to.equal(true);
    expect(upcastContactUpdatedV2(v2)).to.deep.equal(v2);
    expect(ContactUpdated.is(v2)).to.equal(true);
  });

  it('v3 accepts each personal field of changes, previous and contact null (erased), which version 2 refuses (it would read a changed name as cleared); the others stay refused as null', () => {
    expectNullablePersonalFields({ type: 'ContactUpdated', previous: ContactUpdatedV2, current: ContactUpdated, declaration: declared.ContactUpdated!, sample: updatedV2 });
    expect(ContactUpdatedV2.is({ type: 'ContactUpdated', data: { ...updatedV2, changes: { ...updatedV2.changes, name: null } } })).to.equal(false);
    expect(ContactUpdated.is({ type: 'ContactUpdated', data: { ...updatedV2, contact: { ...contact, id: null } } })).to.equal(false);
    expect(ContactUpdated.is({ type: 'ContactUpdated', data: { ...updatedV2, updatedAt: null } })).to.equal(false);
  });

  it('reads a v2 event through the versioning decorator as v3, unchanged; records version 3 on a new one', () =>
    expectReadThroughDecorator({ stream: contactStream('c-1'), type: 'ContactUpdated', stored: 2, data: updatedV2, declaration: declared.ContactUpdated! }));
});

describe('ContactRestored versions', () => {
  it('v1 → v2 (pure): the identity; version 2 accepts what version 1 holds', () => {
    const v1 = { type: 'ContactRestored' as const, data: restoredV1 };
    expect(upcastContactRestoredV1(v1)).to.deep.equal(v1);
    expect(ContactRestored.is(v1)).to.equal(true);
  });

  it('v2 accepts each personal field of the contact null (erased), which version 1 refuses; the others stay refused as null', () => {
    expectNullablePersonalFields({ type: 'ContactRestored', previous: ContactRestoredV1, current: ContactRestored, declaration: declared.ContactRestored!, sample: restoredV1 });
    expect(ContactRestoredV1.is({ type: 'ContactRestored', data: erased(restoredV1, declared.ContactRestored!) })).to.equal(false);
    expect(ContactRestored.is({ type: 'ContactRestored', data: { ...restoredV1, restoredAt: null } })).to.equal(false);
  });

  it('reads a v1 event through the versioning decorator as v2, unchanged; records version 2 on a new one', () =>
    expectReadThroughDecorator({ stream: contactStream('c-1'), type: 'ContactRestored', stored: 1, data: restoredV1, declaration: declared.ContactRestored! }));
});
