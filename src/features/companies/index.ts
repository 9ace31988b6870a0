import { companyAggregate } from './application/companyAggregate.js';
import { companiesCheck } from './readModels/companiesCheck.js';
import { companiesProjection } from './readModels/companiesProjection.js';
import { adminCompaniesResource } from './admin/companyAdminRoutes.js';
import { readModel, type Feature } from '../Feature.js';

/** The platform's customers: every record belongs to one company. */
export const companies: Feature = {
  name: 'companies',
  aggregates: [companyAggregate],
  readModels: [readModel(companiesProjection, companiesCheck)],
  adminResources: [adminCompaniesResource],
};

// What other features use of this one.
export { companyHttpError } from './admin/companyHttpErrors.js';
export { knownCompany } from './admin/knownCompany.js';
export { loadCompany } from './application/loadCompany.js';
export type { CompanyNotFound } from './domain/companyErrors.js';
export { PLATFORM_SCOPE, companiesProjection, companyOf } from './readModels/companiesProjection.js';
export type { Company, CompanyDoc } from './readModels/companiesProjection.js';
