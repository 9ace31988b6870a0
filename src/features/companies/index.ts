import { companyAggregate } from './application/companyAggregate.js';
import { companiesCheck } from './readModels/companiesCheck.js';
import { PLATFORM_SCOPE, companiesProjection, companyOf } from './readModels/companiesProjection.js';
import { adminCompaniesResource } from './admin/companyAdminRoutes.js';
import { adminCompanyExportsResource } from './admin/companyExportRoutes.js';
import { companyProfileReader, type CompanyProfileReaderOf } from './application/companyProfileQuery.js';
import { readModel, type Feature } from '../Feature.js';
import { companyPersonalData } from './domain/companyPersonalData.js';

/** The platform's customers: every record belongs to one company. */
export const companies: Feature = {
  name: 'companies',
  aggregates: [companyAggregate],
  personalData: companyPersonalData,
  readModels: [readModel(companiesProjection, companiesCheck)],
  adminResources: [adminCompaniesResource, adminCompanyExportsResource],
};

// What other features use of this one.
export { companyHttpError } from './admin/companyHttpErrors.js';
export { knownCompany } from './admin/knownCompany.js';
export { loadCompany } from './application/loadCompany.js';
export type { CompanyProfile, CompanyProfileReader, CompanyProfileReaderOf } from './application/companyProfileQuery.js';
export type { CompanyNotFound } from './domain/companyErrors.js';
export { PLATFORM_SCOPE, companiesProjection, companyOf } from './readModels/companiesProjection.js';
export type { Company, CompanyDoc } from './readModels/companiesProjection.js';

/** A company's profile (name, since when) by id, over the read models: the console's overview. */
export const companyProfileReaderOf: CompanyProfileReaderOf = (readModels) =>
  companyProfileReader({ companies: readModels.collection(companiesProjection), partition: PLATFORM_SCOPE, profileOf: companyOf });

// What the CLI and the start-up use of this one.
export { createCompany } from './application/createCompany.js';
export { CompanyName } from './domain/CompanyName.js';
export { describeCompanyError } from './domain/companyErrors.js';
export { companyNameReader } from './readModels/companyQueries.js';
