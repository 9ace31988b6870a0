import { HttpError } from '../../../http/HttpError.js';
import { invalidField, toHttpError, type KernelFailure } from '../../../http/errorTable.js';
import type { DealWriteError } from '../application/DealWriteError.js';

/** The spec's error bodies of the deals' refusals. */
export const dealHttpError = (failure: DealWriteError | KernelFailure): HttpError => {
  switch (failure.kind) {
    case 'DealNotFound':
      return new HttpError(404, 'Deal not found', 'No deal with this id exists in your company.');
    case 'ContactNotInCompany':
      return new HttpError(400, 'Contact not found or does not belong to your company', 'contactId must name a contact of your company.');
    case 'UserNotInCompany':
      return new HttpError(400, 'User not found or does not belong to your company', 'assignedToId must name a user of your company.');
    case 'CloseDateOnOpenDeal':
      return invalidField('actualCloseDate', 'only for won or lost deals');
    default:
      return toHttpError(failure);
  }
};
