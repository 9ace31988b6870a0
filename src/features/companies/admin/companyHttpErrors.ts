import { HttpError } from '../../../http/HttpError.js';
import { toHttpError, type KernelFailure } from '../../../http/errorTable.js';
import type { CompanyNotFound } from '../domain/companyErrors.js';

/** The admin API's 404 of an unknown company. */
export const companyNotFoundError = (): HttpError => new HttpError(404, 'Company not found', 'No company with this id exists.');

/** The spec's error bodies of the companies' refusals. */
export const companyHttpError = (failure: CompanyNotFound | KernelFailure): HttpError =>
  failure.kind === 'CompanyNotFound' ? companyNotFoundError() : toHttpError(failure);
