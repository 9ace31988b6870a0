import { HttpError } from '../../../http/HttpError.js';
import { toHttpError, type KernelFailure } from '../../../http/errorTable.js';
import type { CompanyIsSuspended, CompanyNotFound } from '../domain/companyErrors.js';

/** The admin API's 404 of an unknown company. */
export const companyNotFoundError = (): HttpError => new HttpError(404, 'Company not found', 'No company with this id exists.');

/** The admin API's 409 of what a suspended company cannot have (a console link). */
export const companySuspendedError = (): HttpError =>
  new HttpError(409, 'Company suspended', 'The company is suspended: resume it first (POST /admin/companies/{id}/resume).', { code: 'COMPANY_SUSPENDED' });

/** The spec's error bodies of the companies' refusals. */
export const companyHttpError = (failure: CompanyNotFound | CompanyIsSuspended | KernelFailure): HttpError => {
  switch (failure.kind) {
    case 'CompanyNotFound':
      return companyNotFoundError();
    case 'CompanyIsSuspended':
      return companySuspendedError();
    default:
      return toHttpError(failure);
  }
};
