import { companyAggregate } from './application/companyAggregate.js';
import { companiesCheck } from './readModels/companiesCheck.js';
import { PLATFORM_SCOPE, companiesProjection, companyOf } from './readModels/companiesProjection.js';
import { adminCompaniesResource } from './admin/companyAdminRoutes.js';
import { adminCompanyExportsResource } from './admin/companyExportRoutes.js';
import { companyProfileReader, type CompanyProfileReaderOf } from './application/companyProfileQuery.js';
import { readModel, type Feature } from '../Feature.js';
import { companyPersonalData } from './domain/companyPersonalData.js';
import { companyEraser } from './application/companyEraser.js';

/** The platform's customers: every record belongs to one company. */
export const companies: Feature = {
  name: 'companies',
  aggregates: [companyAggregate],
  personalData: companyPersonalData,
  readModels: [readModel(companiesProjection, companiesCheck)],
  adminResources: [adminCompaniesResource, adminCompanyExportsResource],
  subjectErasers: [companyEraser],
};

// What other features use of this one.
export { companyHttpError } from './admin/companyHttpErrors.js';
export { knownCompany } from './admin/knownCompany.js';
export { loadCompany } from './application/loadCompany.js';
export type { CompanyProfile, CompanyProfileReader, CompanyProfileReaderOf } from './application/companyProfileQuery.js';
export type { CompanyIsSuspended, CompanyNotFound } from './domain/companyErrors.js';
export { PLATFORM_SCOPE, companiesProjection, companyOf, isSuspendedDoc } from './readModels/companiesProjection.js';
export type { Company, CompanyDoc, CompanyStatus } from './readModels/companiesProjection.js';
export { suspendedCompaniesReader } from './readModels/companyQueries.js';

/** A company's profile (name, since when) by id, over the read models: the console's overview. */
export const companyProfileReaderOf: CompanyProfileReaderOf = (readModels) =>
  companyProfileReader({ companies: readModels.collection(companiesProjection), partition: PLATFORM_SCOPE, profileOf: companyOf });

// What the CLI and the start-up use of this one.
export { createCompany } from './application/createCompany.js';
export { resumeCompany, suspendCompany } from './application/companySuspension.js';
export { SuspensionReason } from './domain/SuspensionReason.js';
export { cancelCompanyDeletion, eraseCompany, requestCompanyDeletion } from './application/companyDeletion.js';
export type { CompanyErasureDeps, ErasedCompany, RequestedDeletion } from './application/companyDeletion.js';
export { CompanyDeletionSweep } from './application/CompanyDeletionSweep.js';
export { COMPANY_ERASED, erasedWithCompany } from './readModels/erasedWithCompany.js';
export { withoutErasedCompanies } from './readModels/withoutErasedCompanies.js';
export { deletionsDue } from './readModels/companyQueries.js';
export { CompanyName } from './domain/CompanyName.js';
export { describeCompanyError } from './domain/companyErrors.js';
export { companyNameReader, companySuspendedReader } from './readModels/companyQueries.js';
