import * as t from 'io-ts';
import { DealContactSummary, DealPriority, DealStatus, DealUserSummary } from './dealEvents.js';
import type { DealRecord } from './dealRecord.js';

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/**
 * A deal as the API returns it (responses, read model, webhook payloads): every
 * field present, null when unset; date-times ISO 8601 UTC with milliseconds.
 */
export const DealView = t.type({
  id: t.string,
  title: t.string,
  description: nullable(t.string),
  value: t.number,
  currency: t.string,
  stage: nullable(t.string),
  priority: DealPriority,
  probability: nullable(t.number),
  status: DealStatus,
  expectedCloseDate: nullable(t.string),
  actualCloseDate: nullable(t.string),
  source: nullable(t.string),
  contact: nullable(DealContactSummary),
  assignedTo: nullable(DealUserSummary),
  createdAt: t.string,
  updatedAt: t.string,
});
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
