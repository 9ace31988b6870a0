import type { ErasureReason } from './contactEvents.js';
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

/**
 * Delete a contact of `companyId` at `at`; it stays restorable until
 * `restorableUntil` (the retention period is the server's setting, so the
 * application computes it).
 */
export interface DeleteContact {
  readonly type: 'DeleteContact';
  readonly contactId: string;
  readonly companyId: string;
  readonly at: Date;
  readonly restorableUntil: Date;
}

/** Bring back a deleted contact of `companyId` as it was, if `at` is before its `restorableUntil`. */
export interface RestoreContact {
  readonly type: 'RestoreContact';
  readonly contactId: string;
  readonly companyId: string;
  readonly at: Date;
}

/**
 * Erase a contact of `companyId` (deleted or not) at `at`: for good, its personal
 * values unreadable everywhere. Erasing one erased already changes nothing.
 */
export interface EraseContact {
  readonly type: 'EraseContact';
  readonly contactId: string;
  readonly companyId: string;
  readonly at: Date;
  readonly reason: ErasureReason;
}

export type ContactCommand = CreateContact | UpdateContact | DeleteContact | RestoreContact | EraseContact;
