import { HttpError } from './HttpError.js';

/** Input that failed validation, as the domain's validators report it. */
export type InputProblem =
  | { readonly kind: 'MissingFields'; readonly fields: readonly string[] }
  | { readonly kind: 'Invalid'; readonly details: Readonly<Record<string, string>> };

/** Every domain error a route can meet. */
export type DomainFailure =
  | InputProblem
  | { readonly kind: 'ContactNotFound' }
  | { readonly kind: 'DuplicatePhoneNumber'; readonly existingContactId: string };

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
  }
};
