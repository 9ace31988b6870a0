import { overviewRoutes } from './console/overviewRoutes.js';
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
  consolePages: [{ routes: overviewRoutes, signedIn: true }],
};
