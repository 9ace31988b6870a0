import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { contactDecider } from '../domain/contactDecider.js';
import { ContactEvent, contactStream } from '../domain/contactEvents.js';
import { toContactView } from '../domain/contactRecord.js';
import { isLiveContact, type Contact } from '../domain/contactView.js';
import { normalizePhoneNumber } from '../domain/phoneNumber.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { WrongExpectedRevisionError, type EventStore, type StreamAppend } from '../../../application/ports/EventStore.js';
import { decideCommand, handleCommand } from '../../../application/commands/handleCommand.js';
import { ConcurrencyExhaustedError } from '../../../application/commands/ConcurrencyExhaustedError.js';
import { PreconditionFailedError, type RevisionPrecondition } from '../../../application/commands/PreconditionFailedError.js';
import { loadContact } from './loadContact.js';
import {
  decideRelease,
  decideReservation,
  releaseAbandonedReservation,
  releasePhoneNumber,
  reservePhoneNumber,
} from './phoneNumberReservations.js';
import type { ContactWriteError } from './ContactWriteError.js';
import type { UpdateContactFields } from '../domain/contactInput.js';

/**
 * Changes some fields of a contact of the company. Values equal to the current
 * ones append nothing (position null; the contact and its updatedAt unchanged).
 * A contact whose person was erased (its fields read as null) is not found, as
 * the API shows no such contact: nothing is written.
 * A new phone number must be free in the company: where the store appends to
 * several streams atomically (SQLite), the new number's reservation,
 * `ContactUpdated` and the old number's release are one append (one durable
 * commit, all or nothing); elsewhere (EventStoreDB) three appends in that order,
 * the new number given back if the contact's cannot be stored (see
 * `phoneNumberReservations`).
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
  const appendToStreams = deps.eventStore.appendToStreams?.bind(deps.eventStore);
  if (appendToStreams) return updateAtomically(deps, appendToStreams, { ...input, changes, at });

  const current = await loadContact(deps.eventStore, contactId);
  if (current === null || current.companyId !== companyId || !isLiveContact(current)) return E.left({ kind: 'ContactNotFound' });

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
  if (state.status !== 'active' || !isLiveContact(state.contact)) throw new Error(`Contact ${contactId} vanished`);
  let position = updated.right.position;

  // Release the number this update replaced (taken from the appended event, which
  // may differ from what was read before if another update came in between).
  for (const event of events) {
    const replaced = event.type === 'ContactUpdated' ? event.data.previous?.phoneNumber : undefined;
    if (typeof replaced === 'string' && replaced !== state.contact.phoneNumber) {
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

type UpdateResult = E.Either<ContactWriteError, { contact: Contact; position: Position | null; revision: number }>;

/** How many times an update decides again after one of its streams moved under it. */
const MAX_ATTEMPTS = 5;

/**
 * The update in one append: the contact's event, with the new number's
 * reservation before it and the old number's release after it when the number
 * changes. Any of those streams moved since it was read: decided again on what
 * was written. The company is checked before the precondition, so another
 * company's contact is not found (404), never a failed precondition.
 */
const updateAtomically = async (
  deps: CommandDeps,
  appendToStreams: NonNullable<EventStore['appendToStreams']>,
  input: {
    companyId: string;
    contactId: string;
    changes: UpdateContactFields;
    at: Date;
    metadata: EventMetadata;
    precondition?: RevisionPrecondition;
  },
): Promise<UpdateResult> => {
  const { companyId, contactId, at, metadata } = input;
  for (let attempt = 1; ; attempt++) {
    const decided = await decideCommand(deps, {
      decider: contactDecider,
      eventCodec: ContactEvent,
      stream: contactStream(contactId),
      command: { type: 'UpdateContact', contactId, companyId, changes: input.changes, at },
      metadata,
    });
    if (E.isLeft(decided)) return E.left({ kind: 'ContactNotFound' });
    const { events, state, next, revision, append } = decided.right;
    if (state.status === 'active' && !isLiveContact(state.contact)) return E.left({ kind: 'ContactNotFound' });
    if (input.precondition && !input.precondition(revision)) return E.left({ kind: 'PreconditionFailed' });
    // A live contact changed with the command's values stays live.
    if (next.status !== 'active' || !isLiveContact(next.contact)) throw new Error(`Contact ${contactId} vanished`);
    if (events.length === 0) return E.right({ contact: toContactView(next.contact), position: null, revision });

    const appends: StreamAppend[] = [append];
    const replaced = events.find((event) => event.type === 'ContactUpdated')?.data.previous?.phoneNumber;
    if (typeof replaced === 'string' && replaced !== next.contact.phoneNumber) {
      const claim = { companyId, contactId, at, metadata };
      const reservation = await decideReservation(deps, { ...claim, phoneNumber: next.contact.phoneNumber });
      if (E.isLeft(reservation)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reservation.left.holder });
      appends.unshift(reservation.right.append);
      const release = await decideRelease(deps, { ...claim, phoneNumber: replaced });
      if (release !== null) appends.push(release);
    }
    try {
      const stored = await appendToStreams(appends);
      const ofContact = stored[appends.indexOf(append)]!;
      return E.right({ contact: toContactView(next.contact), position: stored[stored.length - 1]!.position, revision: ofContact.nextRevision });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw ConcurrencyExhaustedError.after(error, attempt);
    }
  }
};
