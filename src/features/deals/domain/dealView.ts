import type * as t from 'io-ts';
import { DealView, type DealSnapshot, type DealUserSnapshot, type DealUserSummary } from './dealEvents.js';
import type { DealRecord } from './dealRecord.js';

/**
 * A deal as the API returns it (responses and the `deals` read model, whose
 * documents GET answers as they are): every field present, null when unset;
 * date-times ISO 8601 UTC with milliseconds. The codec lives in `dealEvents.ts`.
 */
export { DealView };
export type Deal = t.TypeOf<typeof DealView>;

/** A deal's fields, as its state or an event's `deal` holds them. */
type DealFields = Omit<DealRecord, 'companyId'> | DealSnapshot;

/** The deal as its events carry it (`DealStatusChanged`, `DealRestored`), the assigned user's erased fields null; the decider and the webhooks use it. */
export const toDealSnapshot = (deal: DealFields): DealSnapshot => ({
  id: deal.id,
  title: deal.title,
  description: deal.description,
  value: deal.value,
  currency: deal.currency,
  stage: deal.stage,
  priority: deal.priority,
  probability: deal.probability,
  status: deal.status,
  expectedCloseDate: deal.expectedCloseDate,
  actualCloseDate: deal.actualCloseDate,
  source: deal.source,
  contact: deal.contact && { ...deal.contact },
  assignedTo: deal.assignedTo && { ...deal.assignedTo },
  createdAt: deal.createdAt,
  updatedAt: deal.updatedAt,
});

/**
 * The assigned user as the API shows it: the user's summary, or null when there
 * is none, or when its name and e-mail read as null (the user erased): the API
 * names no user it cannot show, and the Deal's `assignedTo` is a user's whole
 * summary or nothing.
 */
const shownUser = (user: DealUserSnapshot | null): DealUserSummary | null =>
  user !== null && user.name !== null && user.email !== null ? { id: user.id, name: user.name, email: user.email } : null;

/**
 * The response view of a deal; the services and the read model both use it, so
 * they agree. Its contact shows as the deal holds it (an erased contact, like a
 * deleted one, as its id and nulls); its user, see `shownUser`.
 */
export const toDealView = (deal: DealFields): Deal => ({ ...toDealSnapshot(deal), assignedTo: shownUser(deal.assignedTo) });
