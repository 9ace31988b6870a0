import type { ContactWriteError } from '../application/contacts/ContactWriteError.js';
import type { DealWriteError } from '../application/deals/DealWriteError.js';
import type { InputProblem } from '../shared/InputProblem.js';
import { HttpError } from './HttpError.js';

/** Every refusal a route can meet: bad input, or a write the application refused. */
export type DomainFailure = InputProblem | ContactWriteError | DealWriteError;

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
