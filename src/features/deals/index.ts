import { dealAggregate } from './application/dealAggregate.js';
import { dealsResource } from './api/dealRoutes.js';
import { dealsCheck } from './readModels/dealsCheck.js';
import { dealOf, dealsProjection } from './readModels/dealsProjection.js';
import { exportedRecords } from '../../application/companyExport/ExportedRecords.js';
import { dealTriggerRecords } from './api/dealTriggerRecords.js';
import { dealWebhookEvents } from './application/dealWebhookEvents.js';
import { dealTimeline } from './readModels/dealTimeline.js';
import { readModel, type Feature } from '../Feature.js';
import { dealPersonalData } from './domain/dealPersonalData.js';
import type { DealSearchOf } from './application/dealSearch.js';
import { dealSearch } from './readModels/dealSearch.js';

/** The console's search of a company's deals (by title, or by their contact), over the `deals` read model. */
export const dealSearchOf: DealSearchOf = (readModels) => dealSearch(readModels.collection(dealsProjection));

/** The sales pipeline: deals open, won or lost. */
export const deals: Feature = {
  name: 'deals',
  aggregates: [dealAggregate],
  personalData: dealPersonalData,
  readModels: [readModel(dealsProjection, dealsCheck)],
  resources: [dealsResource],
  exports: [exportedRecords('deals', dealsProjection, dealOf)],
  webhookEvents: { ...dealWebhookEvents, triggerRecords: dealTriggerRecords, timelines: [dealTimeline] },
};

// What other features use of this one.
export { deals as dealsOpenApi } from './api/dealsOpenApi.js';
export { dealAggregate } from './application/dealAggregate.js';
export type { DealCommand } from './domain/dealCommands.js';
export { contactSummaryOf } from './domain/dealContactSummary.js';
export { dealDecider } from './domain/dealDecider.js';
export type { DealState } from './domain/dealDecider.js';
export { DealCreated, DealStatusChanged } from './domain/dealEvents.js';
export type { DealEvent } from './domain/dealEvents.js';
export { dealFromCreated } from './domain/dealRecord.js';
export { toDealView } from './domain/dealView.js';
export type { Deal } from './domain/dealView.js';
export { dealAsOf } from './readModels/dealAsOf.js';
export { dealOf, dealsProjection } from './readModels/dealsProjection.js';
export type { DealDoc } from './readModels/dealsProjection.js';
export type { DealMatch, DealMatches, DealSearch, DealSearchOf } from './application/dealSearch.js';
export { dealTimeline } from './readModels/dealTimeline.js';
