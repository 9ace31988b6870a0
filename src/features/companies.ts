import { companyAggregate } from '../application/aggregates/companyAggregate.js';
import type { Feature } from './Feature.js';

/** The platform's customers: every record belongs to one company. */
export const companies: Feature = {
  name: 'companies',
  aggregates: [companyAggregate],
};
