import type * as t from 'io-ts';
import { DealView } from './dealEvents.js';
import type { DealRecord } from './dealRecord.js';

/**
 * A deal as the API returns it (responses, read model, webhook payloads): every
 * field present, null when unset; date-times ISO 8601 UTC with milliseconds.
 * The codec lives in `dealEvents.ts` (a `DealStatusChanged` carries one).
 */
export { DealView };
export type Deal = t.TypeOf<typeof DealView>;

/** The response view of a deal; the service and the read model both use it, so they agree. */
export const toDealView = (deal: DealRecord): Deal => ({
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
