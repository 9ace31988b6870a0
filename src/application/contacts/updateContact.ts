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
import { ConcurrencyExhaustedError } from '../ConcurrencyExhaustedError.js';
import { PreconditionFailedError, type RevisionPrecondition } from '../PreconditionFailedError.js';
import { loadContact } from './loadContact.js';
import { releaseAbandonedReservation, releasePhoneNumber, reservePhoneNumber } from './phoneNumberReservations.js';
import type { ContactWriteError } from './ContactWriteError.js';
import type { UpdateContactFields } from '../../domain/contacts/contactInput.js';

/**
 * Changes some fields of a contact of the company. Values equal to the current
 * ones append nothing (position null; the contact and its updatedAt unchanged).
 */
export const updateContact = async (
  deps: CommandDeps,
  input: {
    companyId: string;
    contactId: string;
    changes: UpdateContactFields;
    metadata: EventMetadata;
    /** Only when the contact's stream is at a revision it accepts (`If-Match`); see `handleCommand`. */
    precondition?: RevisionPrecondition;
  },
): Promise<E.Either<ContactWriteError, { contact: Contact; position: Position | null; revision: number }>> => {
  const { companyId, contactId, metadata } = input;
  const changes =
    input.changes.phoneNumber === undefined
      ? input.changes
      : { ...input.changes, phoneNumber: normalizePhoneNumber(input.changes.phoneNumber) };
  const at = deps.clock.now();

  const current = await loadContact(deps.eventStore, contactId);
  if (current === null || current.companyId !== companyId) return E.left({ kind: 'ContactNotFound' });

  const newNumber = changes.phoneNumber !== undefined && changes.phoneNumber !== current.phoneNumber ? changes.phoneNumber : null;
  if (newNumber !== null) {
    const reserved = await reservePhoneNumber(deps, { companyId, phoneNumber: newNumber, contactId, at, metadata });
    if (E.isLeft(reserved)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reserved.left.holder });
  }

  const releaseReserved = async (): Promise<void> => {
    if (newNumber !== null) await releasePhoneNumber(deps, { companyId, phoneNumber: newNumber, contactId, at, metadata });
  };
  let updated: Awaited<ReturnType<typeof handleContactUpdate>>;
  try {
    updated = await handleContactUpdate(deps, { contactId, companyId, changes, at, metadata, precondition: input.precondition });
  } catch (error) {
    // The contact's event was refused and nothing written: the number reserved for it goes back,
    // at once, or (the store refusing writes) in the background until its grace period ends.
    if (error instanceof PreconditionFailedError || error instanceof ConcurrencyExhaustedError) await releaseReserved();
    else if (newNumber !== null) await releaseAbandonedReservation(deps, { companyId, phoneNumber: newNumber, contactId, at, metadata });
    if (error instanceof PreconditionFailedError) return E.left({ kind: 'PreconditionFailed' });
    throw error;
  }
  if (E.isLeft(updated)) {
    await releaseReserved();
    return E.left({ kind: 'ContactNotFound' });
  }
  const { state, events } = updated.right;
  if (state.status !== 'active') throw new Error(`Contact ${contactId} vanished`);
  let position = updated.right.position;

  // Release the number this update replaced (taken from the appended event, which
  // may differ from what was read before if another update came in between).
  for (const event of events) {
    const replaced = event.type === 'ContactUpdated' ? event.data.previous?.phoneNumber : undefined;
    if (replaced !== undefined && replaced !== state.contact.phoneNumber) {
      const released = await releasePhoneNumber(deps, { companyId, phoneNumber: replaced, contactId, at, metadata });
      if (released !== null) position = released;
    }
  }
  return E.right({ contact: toContactView(state.contact), position, revision: updated.right.revision });
};

const handleContactUpdate = (
  deps: CommandDeps,
  input: {
    contactId: string;
    companyId: string;
    changes: UpdateContactFields;
    at: Date;
    metadata: EventMetadata;
    precondition: RevisionPrecondition | undefined;
  },
) =>
  handleCommand(deps, {
    decider: contactDecider,
    eventCodec: ContactEvent,
    stream: contactStream(input.contactId),
    command: { type: 'UpdateContact', contactId: input.contactId, companyId: input.companyId, changes: input.changes, at: input.at },
    metadata: input.metadata,
    ...(input.precondition ? { precondition: input.precondition } : {}),
  });
