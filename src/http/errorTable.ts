import { ConcurrencyExhaustedError } from '../application/commands/ConcurrencyExhaustedError.js';
import type { ContactWriteError } from '../features/contacts/application/ContactWriteError.js';
import type { DealWriteError } from '../features/deals/application/DealWriteError.js';
import type { InputProblem } from '../shared/InputProblem.js';
import type { AgentError } from '../features/agents/domain/agentErrors.js';
import type { ApiKeyError } from '../features/apiKeys/domain/apiKeyErrors.js';
import type { CompanyNotFound } from '../features/companies/domain/companyErrors.js';
import { HttpError } from './HttpError.js';
import { StoreUnavailableError } from '../application/ports/StoreUnavailableError.js';

/** Refusals of the admin API's writes and reads: what they name does not exist (in that company), or a key is refused. */
export type AdminFailure =
  | CompanyNotFound
  | Extract<ApiKeyError, { kind: 'ApiKeyNotFound' | 'NoPermissions' | 'ExpiryNotInFuture' }>
  | Extract<AgentError, { kind: 'AgentNotFound' }>;

/** Every refusal a route can meet: bad input, or a write the application refused. */
export type DomainFailure = InputProblem | ContactWriteError | DealWriteError | AdminFailure;

/** The one table from domain errors to HTTP statuses and the spec's error bodies. */
export const toHttpError = (failure: DomainFailure): HttpError => {
  switch (failure.kind) {
    case 'MissingFields':
      return new HttpError(422, 'Missing required fields', `Required: ${failure.fields.join(', ')}.`, {
        details: { missingFields: [...failure.fields] },
      });
    case 'Invalid':
      return new HttpError(422, 'Validation failed', 'One or more fields are invalid.', { details: { ...failure.details } });
    case 'ContactNotFound':
      return new HttpError(404, 'Contact not found', 'No contact with this id exists in your company.');
    case 'DuplicatePhoneNumber':
      return new HttpError(409, 'Contact with this phone number already exists', 'Phone numbers are unique within a company.', {
        extras: { existingContactId: failure.existingContactId },
      });
    case 'DealNotFound':
      return new HttpError(404, 'Deal not found', 'No deal with this id exists in your company.');
    case 'ContactNotInCompany':
      return new HttpError(400, 'Contact not found or does not belong to your company', 'contactId must name a contact of your company.');
    case 'UserNotInCompany':
      return new HttpError(400, 'User not found or does not belong to your company', 'assignedToId must name a user of your company.');
    case 'PreconditionFailed':
      return new HttpError(412, 'Precondition failed', 'The record changed since the ETag sent in If-Match; read it again and retry with its new ETag.', {
        code: 'PRECONDITION_FAILED',
      });
    case 'CloseDateOnOpenDeal':
      return new HttpError(422, 'Validation failed', 'One or more fields are invalid.', {
        details: { actualCloseDate: 'only for won or lost deals' },
      });
    case 'CompanyNotFound':
      return new HttpError(404, 'Company not found', 'No company with this id exists.');
    case 'ApiKeyNotFound':
      return new HttpError(404, 'API key not found', 'No API key with this id exists in this company.');
    case 'AgentNotFound':
      return new HttpError(404, 'Agent not found', 'No agent with this id exists in this company.');
    case 'NoPermissions':
      return new HttpError(422, 'Validation failed', 'One or more fields are invalid.', { details: { permissions: 'must hold at least one permission' } });
    case 'ExpiryNotInFuture':
      return new HttpError(422, 'Validation failed', 'One or more fields are invalid.', { details: { expiresAt: 'must be in the future' } });
  }
};

/** Seconds a client should wait before retrying a write that met too many concurrent changes. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Failures that are nobody's fault and pass: the spec's 503 ("temporary
 * outage"), with `Retry-After`, so clients and their HTTP libraries retry; nothing
 * of the write was stored, so sending the same request again is safe. `code` says
 * which: a record that kept changing under the write (`CONCURRENT_CHANGES`), a
 * store that is full (`STORAGE_FULL`) or whose lock was not free in time
 * (`STORE_BUSY`). Null for anything else (a 500).
 */
export const temporaryFailureOf = (error: unknown): HttpError | null => {
  if (error instanceof ConcurrencyExhaustedError) {
    return new HttpError(503, 'Service unavailable', 'This record is being changed by other requests right now. Nothing was changed; retry in a moment.', {
      code: 'CONCURRENT_CHANGES',
      headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
    });
  }
  if (error instanceof StoreUnavailableError) {
    const full = error.reason === 'storage_full';
    return new HttpError(
      503,
      'Service unavailable',
      full
        ? 'The service cannot store changes right now (storage full). Nothing was changed; try again later.'
        : 'The service is busy right now. Nothing was changed; try again shortly.',
      { code: full ? 'STORAGE_FULL' : 'STORE_BUSY', headers: { 'Retry-After': String(error.retryAfterSeconds) } },
    );
  }
  return null;
};
