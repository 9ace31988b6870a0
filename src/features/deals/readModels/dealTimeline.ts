import { recordTimeline } from '../../webhookEvents/index.js';
import { dealAggregate } from '../application/dealAggregate.js';
import { dealAsOf } from './dealAsOf.js';
import { dealOf, dealsProjection } from './dealsProjection.js';

/** A deal's history in the console's activity: change by change, and as it was at a chosen time. */
export const dealTimeline = recordTimeline({
  kind: 'deal',
  path: 'deals',
  label: 'Deal',
  aggregate: dealAggregate,
  projection: dealsProjection,
  viewOf: dealOf,
  titleOf: (view) => String(view.title ?? 'Deal'),
  asOf: dealAsOf,
});
