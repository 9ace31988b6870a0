import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { erasePersonalFields, sealPersonalFields, subjectsIn, unsealPersonalFields, sealedSubjectsIn } from '../../../src/application/personalData/personalSeal.js';
import { contactPersonalData } from '../../../src/features/contacts/domain/contactPersonalData.js';
import { dealPersonalData } from '../../../src/features/deals/domain/dealPersonalData.js';

const contactCreated = {
  contactId: 'c-1',
  companyId: 'co-1',
  name: 'Ada Lovelace',
  phoneNumber: '+442079460000',
  email: 'ada@example.org',
  city: 'London',
  tags: ['vip', 'engines'],
  createdAt: '2024-05-01T10:00:00.000Z',
};
const dealCreated = {
  dealId: 'd-1',
  companyId: 'co-1',
  title: 'Engine',
  description: null,
  value: 10,
  currency: 'EUR',
  stage: null,
  priority: 'high',
  probability: null,
  expectedCloseDate: null,
  source: null,
  contact: { id: 'c-1', name: 'Ada Lovelace', email: 'ada@example.org', phoneNumber: '+442079460000', currentCompany: null },
  assignedTo: { id: 'u-1', name: 'Sam Seller', email: 'sam@example.com' },
  createdAt: '2024-05-01T10:00:00.000Z',
};
const contactKey = randomBytes(32);
const userKey = randomBytes(32);
const keys = new Map([
  ['contact:c-1', contactKey],
  ['user:u-1', userKey],
]);

describe('sealing personal fields (crypto-shredding of one event\'s data)', () => {
  const contactFields = contactPersonalData.events.ContactCreated!;
  const dealFields = dealPersonalData.events.DealCreated!;

  it('takes every personal value out of the data, keeping it only encrypted, and puts it back with the key', () => {
    const sealed = sealPersonalFields('e-1', contactCreated, contactFields, keys) as Record<string, unknown>;
    const text = JSON.stringify(sealed);
    for (const value of ['Ada', 'Lovelace', '442079460000', 'ada@example.org', 'London', 'vip', 'engines']) expect(text).not.to.contain(value);
    expect(sealed).to.deep.include({ contactId: 'c-1', companyId: 'co-1', name: null, phoneNumber: null, tags: null, createdAt: contactCreated.createdAt });
    expect(Object.keys(sealed.sealed as object)).to.deep.equal(['contactId']);
    expect(unsealPersonalFields('e-1', sealed, contactFields, keys)).to.deep.equal({ data: contactCreated, erasedFields: [] });
  });

  it('seals each subject under its own key: a deal\'s contact and its assigned user', () => {
    expect(subjectsIn(dealCreated, dealFields)).to.deep.equal(['contact:c-1', 'user:u-1']);
    const sealed = sealPersonalFields('e-2', dealCreated, dealFields, keys);
    expect(sealedSubjectsIn(sealed, dealFields)).to.deep.equal(['contact:c-1', 'user:u-1']);
    expect(sealed).to.deep.include({ title: 'Engine', priority: 'high' });
    // The contact erased: its fields read as null and are listed; the user's come back.
    const withoutContact = unsealPersonalFields('e-2', sealed, dealFields, new Map([['user:u-1', userKey]]));
    expect(withoutContact.erasedFields).to.have.members(['contact.name', 'contact.email', 'contact.phoneNumber', 'contact.currentCompany']);
    expect(withoutContact.data).to.deep.equal({
      ...dealCreated,
      contact: { id: 'c-1', name: null, email: null, phoneNumber: null, currentCompany: null },
    });
  });

  it('leaves a group out when its subject is absent (a deal without a contact), and data without personal fields as it is', () => {
    const noContact = { ...dealCreated, contact: null };
    const sealed = sealPersonalFields('e-3', noContact, dealFields, keys);
    expect(sealedSubjectsIn(sealed, dealFields)).to.deep.equal(['user:u-1']);
    expect(unsealPersonalFields('e-3', sealed, dealFields, keys).data).to.deep.equal(noContact);
    const deleted = { contactId: 'c-1', companyId: 'co-1', deletedAt: 'x', restorableUntil: 'y' };
    expect(sealPersonalFields('e-4', deleted, contactPersonalData.events.ContactDeleted!, keys)).to.deep.equal(deleted);
    expect(unsealPersonalFields('e-4', deleted, contactPersonalData.events.ContactDeleted!, keys)).to.deep.equal({ data: deleted, erasedFields: [] });
  });

  it('seals only the values present: a change\'s fields, a cleared one staying null', () => {
    const updated = {
      contactId: 'c-1',
      companyId: 'co-1',
      changes: { city: 'Paris', email: null },
      previous: { city: 'London', email: 'ada@example.org' },
      updatedAt: '2024-05-02T10:00:00.000Z',
      contact: { id: 'c-1', name: 'Ada', firstName: null, lastName: null, phoneNumber: '+44', email: null, position: null, currentCompany: null, industrySector: null, city: 'Paris', country: null, tags: [], createdAt: 'a', updatedAt: 'b' },
    };
    const declaration = contactPersonalData.events.ContactUpdated!;
    const sealed = sealPersonalFields('e-5', updated, declaration, keys) as typeof updated;
    expect(sealed.changes).to.deep.equal({ city: null, email: null });
    expect(sealed.contact).to.deep.include({ name: null, phoneNumber: null, email: null, city: null, tags: null, createdAt: 'a' });
    expect(unsealPersonalFields('e-5', sealed, declaration, keys).data).to.deep.equal(updated);
    // Erased: the subject's fields that are there read as null and are listed, a cleared one too.
    expect(unsealPersonalFields('e-5', sealed, declaration, new Map()).erasedFields).to.include.members(['changes.city', 'changes.email', 'previous.city', 'contact.name', 'contact.tags']);
  });

  it('drops the values of a subject without a key (erased before the write): never stored in the clear', () => {
    const sealed = sealPersonalFields('e-6', contactCreated, contactFields, new Map());
    expect(JSON.stringify(sealed)).not.to.contain('Ada');
    expect(sealedSubjectsIn(sealed, contactFields)).to.deep.equal([]);
  });

  it('refuses a sealed value moved to another event, or altered: never a wrong value', () => {
    const sealed = sealPersonalFields('e-7', contactCreated, contactFields, keys) as { sealed: Record<string, string> };
    expect(() => unsealPersonalFields('e-8', sealed, contactFields, keys)).to.throw();
    const value = sealed.sealed.contactId!;
    const altered = { ...sealed, sealed: { contactId: `${value.slice(0, -4)}AAAA` } };
    expect(() => unsealPersonalFields('e-7', altered, contactFields, keys)).to.throw();
    expect(() => unsealPersonalFields('e-7', sealed, contactFields, new Map([['contact:c-1', randomBytes(32)]]))).to.throw();
    // Moved to another subject (the same event's data naming another contact): the associated data differs.
    expect(() => unsealPersonalFields('e-7', { ...sealed, contactId: 'c-2' }, contactFields, new Map([['contact:c-2', contactKey]]))).to.throw();
    // An entry the type does not declare.
    expect(() => unsealPersonalFields('e-7', { ...sealed, sealed: { elsewhere: value } }, contactFields, keys)).to.throw(/does not declare/);
  });
});

describe('erasing one subject from plain data (read models, deliveries, kept responses)', () => {
  const dealDeclaration = dealPersonalData.events['DealCreated']!;

  it("sets that subject's fields to null and leaves the other subject's, without changing the caller's data", () => {
    const before = JSON.stringify(dealCreated);
    const { data, erased } = erasePersonalFields(dealCreated, dealDeclaration, { kind: 'contact', id: 'c-1' });
    expect(data).to.deep.equal({
      ...dealCreated,
      contact: { id: 'c-1', name: null, email: null, phoneNumber: null, currentCompany: null },
    });
    expect(erased).to.have.members(['contact.name', 'contact.email', 'contact.phoneNumber']);
    expect(JSON.stringify(dealCreated)).to.equal(before);
  });

  it('erases a user as a user, by the id at its own path', () => {
    const { data } = erasePersonalFields(dealCreated, dealDeclaration, { kind: 'user', id: 'u-1' });
    expect(data).to.deep.include({ assignedTo: { id: 'u-1', name: null, email: null }, contact: dealCreated.contact });
  });

  it('changes nothing for another subject, or the same id of another kind', () => {
    for (const subject of [{ kind: 'contact', id: 'c-2' }, { kind: 'user', id: 'c-1' }] as const) {
      const { data, erased } = erasePersonalFields(dealCreated, dealDeclaration, subject);
      expect(data).to.equal(dealCreated);
      expect(erased).to.deep.equal([]);
    }
  });

  it("takes a contact's whole tag list with it (the holder of `tags[]`)", () => {
    const { data } = erasePersonalFields(contactCreated, contactPersonalData.events['ContactCreated']!, { kind: 'contact', id: 'c-1' });
    expect(data).to.deep.equal({ contactId: 'c-1', companyId: 'co-1', name: null, phoneNumber: null, email: null, city: null, tags: null, createdAt: contactCreated.createdAt });
  });
});
