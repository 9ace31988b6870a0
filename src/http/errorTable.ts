import { HttpError } from './HttpError.js';
import { StoreUnavailableError } from '../application/ports/StoreUnavailableError.js';

/** Input that failed validation, as the domain's validators report it. */
export type InputProblem =
  | { readonly kind: 'MissingFields'; readonly fields: readonly string[] }
  | { readonly kind: 'Invalid'; readonly details: Readonly<Record<string, string>> };

/** Every domain error a route can meet. */
export type DomainFailure =
  | InputProblem
  | { readonly kind: 'ContactNotFound' }
  | { readonly kind: 'DuplicatePhoneNumber'; readonly existingContactId: string }
  | { readonly kind: 'DealNotFound' }
  | { readonly kind: 'ContactNotInCompany' }
  | { readonly kind: 'UserNotInCompany' }
  | { readonly kind: 'CloseDateOnOpenDeal' };

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
    case 'CloseDateOnOpenDeal':
      return new HttpError(422, 'Validation failed', 'One or more fields are invalid.', {
        details: { actualCloseDate: 'only for won or lost deals' },
      });
  }
};

/**
 * The one table from the ports' own errors (thrown, not returned) to HTTP: a store
 * that cannot take the write now is a 503 with `Retry-After` (nothing was stored,
 * so the client may send the same request again). Null for anything else.
 */
export const fromPortError = (error: unknown): HttpError | null => {
  if (error instanceof StoreUnavailableError) {
    return new HttpError(
      503,
      'Service unavailable',
      error.reason === 'storage_full'
        ? 'The service cannot store changes right now (storage full). Nothing was changed; try again later.'
        : 'The service is busy right now. Nothing was changed; try again shortly.',
      { headers: { 'Retry-After': String(error.retryAfterSeconds) } },
    );
  }
  return null;
};
