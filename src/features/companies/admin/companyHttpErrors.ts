import { HttpError } from '../../../http/HttpError.js';
import { toHttpError, type KernelFailure } from '../../../http/errorTable.js';
import type { CompanyErasureUnderWay, CompanyIsSuspended, CompanyNotFound } from '../domain/companyErrors.js';

/** The admin API's 404 of an unknown company. */
export const companyNotFoundError = (): HttpError => new HttpError(404, 'Company not found', 'No company with this id exists.');

/** The admin API's 409 of what a suspended company cannot have (a console link). */
export const companySuspendedError = (): HttpError =>
  new HttpError(409, 'Company suspended', 'The company is suspended: resume it first (POST /admin/companies/{id}/resume).', { code: 'COMPANY_SUSPENDED' });

/** The admin API's 409 of a resume (or a cancellation) once the company's erasure has begun. */
export const companyBeingErasedError = (): HttpError =>
  new HttpError(409, 'Company being erased', 'The company is being erased: its deletion can no longer be cancelled.', { code: 'COMPANY_BEING_ERASED' });

/** The spec's error bodies of the companies' refusals. */
export const companyHttpError = (failure: CompanyNotFound | CompanyIsSuspended | CompanyErasureUnderWay | KernelFailure): HttpError => {
  switch (failure.kind) {
    case 'CompanyNotFound':
      return companyNotFoundError();
    case 'CompanyIsSuspended':
      return companySuspendedError();
    case 'CompanyErasureUnderWay':
      return companyBeingErasedError();
    default:
      return toHttpError(failure);
  }
};
