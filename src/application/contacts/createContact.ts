import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import type { Position } from '../../shared/Position.js';
import { contactDecider } from '../../domain/contacts/contactDecider.js';
import { ContactEvent, contactStream } from '../../domain/contacts/contactEvents.js';
import { toContactView } from '../../domain/contacts/contactRecord.js';
import type { Contact } from '../../domain/contacts/contactView.js';
import { normalizePhoneNumber } from '../../domain/contacts/phoneNumber.js';
import type { CommandDeps } from '../CommandDeps.js';
import { handleCommand } from '../handleCommand.js';
import { orElseRelease, releaseAbandonedReservation, reservePhoneNumber } from './phoneNumberReservations.js';
import type { ContactWriteError } from './ContactWriteError.js';
import type { CreateContactFields } from '../../domain/contacts/contactInput.js';

/** Creates a contact with a new id; its (normalised) phone number must be free in the company. */
export const createContact = async (
  deps: CommandDeps,
  input: { companyId: string; fields: CreateContactFields; metadata: EventMetadata },
): Promise<E.Either<ContactWriteError, { contact: Contact; position: Position }>> => {
  const { companyId, metadata } = input;
  const fields = { ...input.fields, phoneNumber: normalizePhoneNumber(input.fields.phoneNumber) };
  const contactId = deps.newId();
  const at = deps.clock.now();

  const reserved = await reservePhoneNumber(deps, { companyId, phoneNumber: fields.phoneNumber, contactId, at, metadata });
  if (E.isLeft(reserved)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reserved.left.holder });

  // If the contact is not stored, neither may its reservation stay.
  const created = await orElseRelease(
    () =>
      handleCommand(deps, {
        decider: contactDecider,
        eventCodec: ContactEvent,
        stream: contactStream(contactId),
        command: { type: 'CreateContact', contactId, companyId, fields, at },
        metadata,
      }),
    () => releaseAbandonedReservation(deps, { companyId, phoneNumber: fields.phoneNumber, contactId, at, metadata }),
  );
  // A fresh id never exists; if it did, the ids are broken, not the request.
  if (E.isLeft(created)) throw new Error(`Contact ${contactId} already exists`);
  const { state, position } = created.right;
  if (state.status !== 'active' || position === null) throw new Error(`Contact ${contactId} was not created`);
  return E.right({ contact: toContactView(state.contact), position });
};
