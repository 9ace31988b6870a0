import { companyAggregate } from '../application/aggregates/companyAggregate.js';
import { companiesCheck } from '../../projections/companies/companiesCheck.js';
import { companiesProjection } from '../../projections/companies/companiesProjection.js';
import { adminCompaniesResource } from '../http/routes/admin/companies.js';
import { readModel, type Feature } from './Feature.js';

/** The platform's customers: every record belongs to one company. */
export const companies: Feature = {
  name: 'companies',
  aggregates: [companyAggregate],
  readModels: [readModel(companiesProjection, companiesCheck)],
  adminResources: [adminCompaniesResource],
};
