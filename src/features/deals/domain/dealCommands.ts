import type { DealContactSummary, DealContactView, DealUserSummary } from './dealEvents.js';
import type { CreateDealFields, DealStatusChangeFields } from './dealInput.js';

/**
 * Create a deal with a server-assigned id; `at` (ISO 8601 UTC) becomes createdAt
 * and updatedAt. The caller has resolved `contactId` and `assignedToId` to
 * summaries of the company's contact and user (the decider sees only this stream).
 */
export interface CreateDeal {
  readonly type: 'CreateDeal';
  readonly dealId: string;
  readonly companyId: string;
  /** Validated fields; absent currency and priority take their defaults. */
  readonly fields: Omit<CreateDealFields, 'contactId' | 'assignedToId'>;
  readonly contact: DealContactSummary | null;
  readonly assignedTo: DealUserSummary | null;
  readonly at: Date;
}

/**
 * Change the status, stage or close date of a deal of `companyId`; `at` becomes
 * updatedAt when anything changes, and the close date of a deal that becomes won
 * or lost without one.
 */
export interface ChangeDealStatus {
  readonly type: 'ChangeDealStatus';
  readonly dealId: string;
  readonly companyId: string;
  /** Validated fields; absent: keep; `stage: null`: clear. */
  readonly change: DealStatusChangeFields;
  /**
   * The summary of the deal's contact as the contact's stream has it now (the
   * caller reads it; a deleted contact's has nulls but `id`), for the `deal`
   * snapshot the event carries; null when the deal has no contact. A summary of
   * another contact than the deal's is ignored.
   */
  readonly contact: DealContactView | null;
  readonly at: Date;
}

/**
 * Bring the deal's embedded contact summary up to date with `contact` (the
 * contact's stream as it is now). Changes nothing when the deal embeds another
 * contact or the same summary already.
 */
export interface RefreshDealContact {
  readonly type: 'RefreshDealContact';
  readonly dealId: string;
  readonly companyId: string;
  /** The contact as it is now: a deleted one's shows its id, every other field null. */
  readonly contact: DealContactView;
}

/**
 * Delete a deal of `companyId` at `at`; it stays restorable until
 * `restorableUntil` (the retention period is the server's setting, so the
 * application computes it).
 */
export interface DeleteDeal {
  readonly type: 'DeleteDeal';
  readonly dealId: string;
  readonly companyId: string;
  readonly at: Date;
  readonly restorableUntil: Date;
}

/**
 * Bring back a deleted deal of `companyId` as it was, if `at` is before its
 * `restorableUntil`. `contact` is as in `ChangeDealStatus`: the deal's contact
 * as its stream has it now, for the `deal` the event carries.
 */
export interface RestoreDeal {
  readonly type: 'RestoreDeal';
  readonly dealId: string;
  readonly companyId: string;
  readonly contact: DealContactView | null;
  readonly at: Date;
}

export type DealCommand = CreateDeal | ChangeDealStatus | RefreshDealContact | DeleteDeal | RestoreDeal;
