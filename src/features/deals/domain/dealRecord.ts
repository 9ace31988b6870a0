import type { DealContactView, DealCreated, DealPriority, DealStatus, DealStatusChanged, DealUserSnapshot } from './dealEvents.js';

/**
 * A deal as its events define it: the aggregate's state and the source of every
 * view. A personal field of its contact or user is null where the events read as
 * null (the person erased): nothing here makes a value up for it.
 */
export interface DealRecord {
  readonly id: string;
  readonly companyId: string;
  readonly title: string;
  readonly description: string | null;
  readonly value: number;
  readonly currency: string;
  readonly stage: string | null;
  readonly priority: DealPriority;
  readonly probability: number | null;
  readonly status: DealStatus;
  readonly expectedCloseDate: string | null;
  /** Null exactly while the deal is open. */
  readonly actualCloseDate: string | null;
  readonly source: string | null;
  /** The linked contact as the deal shows it: a deleted (or erased) contact's has nulls but `id`. */
  readonly contact: DealContactView | null;
  /** The assigned user: an erased user's has `name` and `email` null. */
  readonly assignedTo: DealUserSnapshot | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The deal a `DealCreated` describes: open, without a close date. */
export const dealFromCreated = ({ data }: DealCreated): DealRecord => ({
  id: data.dealId,
  companyId: data.companyId,
  title: data.title,
  description: data.description,
  value: data.value,
  currency: data.currency,
  stage: data.stage,
  priority: data.priority,
  probability: data.probability,
  status: 'open',
  expectedCloseDate: data.expectedCloseDate,
  actualCloseDate: null,
  source: data.source,
  contact: data.contact,
  assignedTo: data.assignedTo,
  createdAt: data.createdAt,
  updatedAt: data.createdAt,
});

/**
 * The deal after a `DealStatusChanged`: moves applied, close date set, `updatedAt`
 * moved; everything else (the embedded contact included) kept. Takes only the
 * moves, so the decider can compute the event's `deal` snapshot with the same
 * function before the event exists.
 */
export const applyDealStatusChanged = (
  deal: DealRecord,
  { data }: { readonly data: Pick<DealStatusChanged['data'], 'status' | 'stage' | 'actualCloseDate' | 'updatedAt'> },
): DealRecord => ({
  ...deal,
  status: data.status?.to ?? deal.status,
  stage: data.stage ? data.stage.to : deal.stage,
  actualCloseDate: data.actualCloseDate,
  updatedAt: data.updatedAt,
});
