import { dealAggregate } from '../application/aggregates/dealAggregate.js';
import { dealsResource } from '../http/routes/deals.js';
import { dealsCheck } from '../../projections/deals/dealsCheck.js';
import { dealsProjection } from '../../projections/deals/dealsProjection.js';
import { readModel, type Feature } from './Feature.js';

/** The sales pipeline: deals open, won or lost. */
export const deals: Feature = {
  name: 'deals',
  aggregates: [dealAggregate],
  readModels: [readModel(dealsProjection, dealsCheck)],
  resources: [dealsResource],
};
