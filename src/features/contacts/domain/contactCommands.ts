import type { CreateContactFields, UpdateContactFields } from './contactInput.js';

/** Create a contact with a server-assigned id; `at` (ISO 8601 UTC) becomes createdAt and updatedAt. */
export interface CreateContact {
  readonly type: 'CreateContact';
  readonly contactId: string;
  readonly companyId: string;
  /** Validated fields (`phoneNumber` normalised). */
  readonly fields: CreateContactFields;
  readonly at: Date;
}

/** Change some fields of a contact of `companyId`; `at` becomes updatedAt when anything changes. */
export interface UpdateContact {
  readonly type: 'UpdateContact';
  readonly contactId: string;
  readonly companyId: string;
  /** Validated fields; absent: keep; null: clear (optional fields only). */
  readonly changes: UpdateContactFields;
  readonly at: Date;
}

export type ContactCommand = CreateContact | UpdateContact;
