import { HttpError } from '../../../http/HttpError.js';
import { toHttpError, type KernelFailure } from '../../../http/errorTable.js';
import type { ContactWriteError } from '../application/ContactWriteError.js';

/** The spec's error bodies of the contacts' refusals. */
export const contactHttpError = (failure: ContactWriteError | KernelFailure): HttpError => {
  switch (failure.kind) {
    case 'ContactNotFound':
      return new HttpError(404, 'Contact not found', 'No contact with this id exists in your company.');
    case 'DuplicatePhoneNumber':
      return new HttpError(409, 'Contact with this phone number already exists', 'Phone numbers are unique within a company.', {
        extras: { existingContactId: failure.existingContactId },
      });
    default:
      return toHttpError(failure);
  }
};
