import { dealAggregate } from './application/dealAggregate.js';
import { dealsResource } from './api/dealRoutes.js';
import { dealsCheck } from './readModels/dealsCheck.js';
import { dealsProjection } from './readModels/dealsProjection.js';
import { readModel, type Feature } from '../Feature.js';

/** The sales pipeline: deals open, won or lost. */
export const deals: Feature = {
  name: 'deals',
  aggregates: [dealAggregate],
  readModels: [readModel(dealsProjection, dealsCheck)],
  resources: [dealsResource],
};
