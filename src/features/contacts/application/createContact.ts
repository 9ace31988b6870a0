import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { contactDecider, type ContactState } from '../domain/contactDecider.js';
import { ContactEvent, contactStream } from '../domain/contactEvents.js';
import { toContactView } from '../domain/contactRecord.js';
import { isLiveContact, type Contact } from '../domain/contactView.js';
import { normalizePhoneNumber } from '../domain/phoneNumber.js';
import type { CreateContactFields } from '../domain/contactInput.js';
import type { ContactCommand } from '../domain/contactCommands.js';
import type { ContactError } from '../domain/contactErrors.js';
import { ConcurrencyExhaustedError } from '../../../application/commands/ConcurrencyExhaustedError.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { decideCommand, handleCommand, type CommandSpec } from '../../../application/commands/handleCommand.js';
import { WrongExpectedRevisionError, type EventStore } from '../../../application/ports/EventStore.js';
import {
  decideReservation,
  orElseRelease,
  releaseAbandonedReservation,
  reservePhoneNumber,
  type PhoneNumberClaim,
} from './phoneNumberReservations.js';
import type { ContactWriteError } from './ContactWriteError.js';

type CreateResult = E.Either<ContactWriteError, { contact: Contact; position: Position }>;

/** How many times a create decides again after its number's reservation stream moved under it. */
const MAX_ATTEMPTS = 5;

/**
 * Creates a contact with a new id; its (normalised) phone number must be free in
 * the company. Where the store appends to several streams atomically (SQLite), the
 * number's reservation and `ContactCreated` are one append (one durable commit);
 * elsewhere (EventStoreDB) the reservation comes first and is released if the
 * contact cannot be stored (see `phoneNumberReservations`). The one append first
 * assumes the number was never reserved (no read of its stream: a round trip
 * saved on PostgreSQL); its expected revision makes that safe.
 */
export const createContact = async (
  deps: CommandDeps,
  input: { companyId: string; fields: CreateContactFields; metadata: EventMetadata },
): Promise<CreateResult> => {
  const { companyId, metadata } = input;
  const fields = { ...input.fields, phoneNumber: normalizePhoneNumber(input.fields.phoneNumber) };
  const contactId = deps.newId();
  const at = deps.clock.now();
  const claim: PhoneNumberClaim = { companyId, phoneNumber: fields.phoneNumber, contactId, at, metadata };
  const spec: ContactSpec = {
    decider: contactDecider,
    eventCodec: ContactEvent,
    stream: contactStream(contactId),
    command: { type: 'CreateContact', contactId, companyId, fields, at },
    metadata,
    // A fresh id: nothing to read.
    newStream: true,
  };
  const appendToStreams = deps.eventStore.appendToStreams?.bind(deps.eventStore);
  return appendToStreams ? createAtomically(deps, appendToStreams, claim, spec) : createInTwoAppends(deps, claim, spec);
};

type ContactSpec = CommandSpec<ContactCommand, ContactEvent, ContactState, ContactError>;

/** The reservation and the contact in one append: both stored, or neither. */
const createAtomically = async (
  deps: CommandDeps,
  appendToStreams: NonNullable<EventStore['appendToStreams']>,
  claim: PhoneNumberClaim,
  spec: ContactSpec,
): Promise<CreateResult> => {
  for (let attempt = 1; ; attempt++) {
    // Most numbers were never reserved: the first attempt appends without reading the number's stream,
    // expecting none; a number reserved before refuses that append, and the next attempt reads it.
    const reservation = await decideReservation(deps, claim, { assumeNeverReserved: attempt === 1 });
    if (E.isLeft(reservation)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reservation.left.holder });
    const contact = await decideCommand(deps, spec);
    if (E.isLeft(contact)) throw alreadyExists(claim.contactId);
    try {
      const [, stored] = await appendToStreams([reservation.right.append, contact.right.append]);
      return created(claim.contactId, contact.right.next, stored!.position);
    } catch (error) {
      // Another write to the number's reservation stream came first: decide again on what it wrote.
      if (!(error instanceof WrongExpectedRevisionError) || error.stream !== reservation.right.append.stream) throw error;
      if (attempt >= MAX_ATTEMPTS) throw ConcurrencyExhaustedError.after(error, attempt);
    }
  }
};

/** The reservation, then the contact; if the contact is not stored, neither may its reservation stay. */
const createInTwoAppends = async (deps: CommandDeps, claim: PhoneNumberClaim, spec: ContactSpec): Promise<CreateResult> => {
  const reserved = await reservePhoneNumber(deps, claim);
  if (E.isLeft(reserved)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reserved.left.holder });
  const outcome = await orElseRelease(
    () => handleCommand(deps, spec),
    () => releaseAbandonedReservation(deps, claim),
  );
  if (E.isLeft(outcome)) throw alreadyExists(claim.contactId);
  if (outcome.right.position === null) throw new Error(`Contact ${claim.contactId} was not created`);
  return created(claim.contactId, outcome.right.state, outcome.right.position);
};

// A fresh id never exists; if it did, the ids are broken, not the request.
const alreadyExists = (contactId: string): Error => new Error(`Contact ${contactId} already exists`);

const created = (contactId: string, state: ContactState, position: Position): CreateResult => {
  // Made of the command's values: every field the API shows is there.
  if (state.status !== 'active' || !isLiveContact(state.contact)) throw new Error(`Contact ${contactId} was not created`);
  return E.right({ contact: toContactView(state.contact), position });
};
