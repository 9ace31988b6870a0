import { HttpError } from '../../../http/HttpError.js';
import { invalidField, type KernelFailure } from '../../../http/errorTable.js';
import { companyHttpError } from '../../companies/index.js';
import type { CompanyNotFound } from '../../companies/index.js';
import type { ApiKeyError } from '../domain/apiKeyErrors.js';

/** The refusals of the admin API's key routes. */
export type ApiKeyAdminFailure = CompanyNotFound | Extract<ApiKeyError, { kind: 'ApiKeyNotFound' | 'NoPermissions' | 'ExpiryNotInFuture' }> | KernelFailure;

/** The spec's error bodies of the API keys' refusals. */
export const apiKeyHttpError = (failure: ApiKeyAdminFailure): HttpError => {
  switch (failure.kind) {
    case 'ApiKeyNotFound':
      return new HttpError(404, 'API key not found', 'No API key with this id exists in this company.');
    case 'NoPermissions':
      return invalidField('permissions', 'must hold at least one permission');
    case 'ExpiryNotInFuture':
      return invalidField('expiresAt', 'must be in the future');
    default:
      return companyHttpError(failure);
  }
};
