import { phoneReservationDecider } from '../../src/features/contacts/domain/phoneReservationDecider.js';
import { phoneReservationStream } from '../../src/features/contacts/domain/phoneReservationEvents.js';
import type { EventMetadata } from '../../src/shared/EventMetadata.js';
import { decided } from './decided.js';
import type { rawLogWriter } from './rawLogWriter.js';

/** Seeds a new phone number's reservation for a contact, as a create does before the contact itself. */
export const reservePhoneNumber = (
  append: ReturnType<typeof rawLogWriter>['append'],
  reservation: { readonly companyId: string; readonly phoneNumber: string; readonly contactId: string },
  metadata: EventMetadata,
  at: string,
): void => {
  const { companyId, phoneNumber, contactId } = reservation;
  append(
    phoneReservationStream(companyId, phoneNumber),
    decided(phoneReservationDecider, { type: 'ReservePhoneNumber', companyId, phoneNumber, contactId, at: new Date(at) }, phoneReservationDecider.initialState),
    metadata,
    at,
  );
};
