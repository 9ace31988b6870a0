import { OPTIONAL_TEXT_FIELDS, type ContactCreated, type ContactUpdated } from './contactEvents.js';
import type { Contact, ContactSnapshot, LiveContact } from './contactView.js';

/**
 * A contact as its events define it: the aggregate's state and the source of every
 * view. A personal field is null when it reads as null in the events (its person
 * erased): nothing here makes a value up for it.
 */
export interface ContactRecord {
  readonly id: string;
  readonly companyId: string;
  readonly name: string | null;
  readonly phoneNumber: string | null;
  readonly firstName: string | null;
  readonly lastName: string | null;
  readonly email: string | null;
  readonly position: string | null;
  readonly currentCompany: string | null;
  readonly industrySector: string | null;
  readonly city: string | null;
  readonly country: string | null;
  readonly tags: readonly string[] | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The contact a `ContactCreated` describes. */
export const contactFromCreated = ({ data }: ContactCreated): ContactRecord => ({
  id: data.contactId,
  companyId: data.companyId,
  name: data.name,
  phoneNumber: data.phoneNumber,
  firstName: data.firstName ?? null,
  lastName: data.lastName ?? null,
  email: data.email ?? null,
  position: data.position ?? null,
  currentCompany: data.currentCompany ?? null,
  industrySector: data.industrySector ?? null,
  city: data.city ?? null,
  country: data.country ?? null,
  tags: data.tags,
  createdAt: data.createdAt,
  updatedAt: data.createdAt,
});

/**
 * The contact after a `ContactUpdated`: its changes applied, `updatedAt` moved.
 * Takes only `changes` and `updatedAt`, so the decider can compute the event's
 * `contact` snapshot with the same function before the event exists.
 */
export const applyContactUpdated = (
  contact: ContactRecord,
  { data }: { readonly data: Pick<ContactUpdated['data'], 'changes' | 'updatedAt'> },
): ContactRecord => {
  const { changes } = data;
  const next: { -readonly [K in keyof ContactRecord]: ContactRecord[K] } = { ...contact, updatedAt: data.updatedAt };
  if (changes.name !== undefined) next.name = changes.name;
  if (changes.phoneNumber !== undefined) next.phoneNumber = changes.phoneNumber;
  for (const field of OPTIONAL_TEXT_FIELDS) {
    const value = changes[field];
    if (value !== undefined) next[field] = value;
  }
  if (changes.tags !== undefined) next.tags = changes.tags;
  return next;
};

/**
 * The contact as its events carry it and the read model keeps it (null where
 * erased); the decider, the projection and the webhooks use it, so they agree.
 */
export const toContactSnapshot = (contact: ContactRecord | ContactSnapshot): ContactSnapshot => ({
  id: contact.id,
  name: contact.name,
  firstName: contact.firstName,
  lastName: contact.lastName,
  phoneNumber: contact.phoneNumber,
  email: contact.email,
  position: contact.position,
  currentCompany: contact.currentCompany,
  industrySector: contact.industrySector,
  city: contact.city,
  country: contact.country,
  tags: contact.tags && [...contact.tags],
  createdAt: contact.createdAt,
  updatedAt: contact.updatedAt,
});

/** The response view of a live contact (see `isLiveContact`); the services and the read model's answers both use it, so they agree. */
export const toContactView = (contact: LiveContact<ContactRecord> | LiveContact<ContactSnapshot>): Contact => ({
  ...toContactSnapshot(contact),
  // The fields a live contact has, whatever a snapshot allows.
  name: contact.name,
  phoneNumber: contact.phoneNumber,
  tags: [...contact.tags],
});
