import * as E from 'fp-ts/lib/Either.js';
import type { DeletedRecord } from '../../../shared/DeletedRecord.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { contactDecider, type ContactState } from '../domain/contactDecider.js';
import { ContactEvent, contactStream, type ContactDeleted } from '../domain/contactEvents.js';
import type { ContactCommand } from '../domain/contactCommands.js';
import type { ContactError } from '../domain/contactErrors.js';
import { toContactView } from '../domain/contactRecord.js';
import { isLiveContact, type Contact } from '../domain/contactView.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { ConcurrencyExhaustedError } from '../../../application/commands/ConcurrencyExhaustedError.js';
import { decideCommand, handleCommand, type CommandSpec } from '../../../application/commands/handleCommand.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { WrongExpectedRevisionError, type EventStore, type StreamAppend } from '../../../application/ports/EventStore.js';
import {
  decideRelease,
  decideReservation,
  orElseRelease,
  releaseAbandonedReservation,
  releasePhoneNumber,
  reservePhoneNumber,
  type PhoneNumberClaim,
} from './phoneNumberReservations.js';
import type { ContactWriteError } from './ContactWriteError.js';

/** How many times a delete or restore decides again after one of its streams moved under it. */
const MAX_ATTEMPTS = 5;

type ContactSpec = CommandSpec<ContactCommand, ContactEvent, ContactState, ContactError>;

const specOf = (contactId: string, command: ContactCommand, metadata: EventMetadata): ContactSpec => ({
  decider: contactDecider,
  eventCodec: ContactEvent,
  stream: contactStream(contactId),
  command,
  metadata,
});


const deletedOf = (events: readonly ContactEvent[]): DeletedRecord => {
  const deleted = events.find((event): event is ContactDeleted => event.type === 'ContactDeleted');
  if (!deleted) throw new Error('a delete that appended no ContactDeleted');
  return { id: deleted.data.contactId, deletedAt: deleted.data.deletedAt, restorableUntil: deleted.data.restorableUntil };
};

/**
 * Deletes a contact of the company: it answers 404 and leaves every list, and its
 * phone number is free again at once. It stays restorable for `retentionMs`
 * (`DELETED_RECORDS_RETENTION_DAYS`). Where the store appends to several streams
 * atomically (SQLite, PostgreSQL), `ContactDeleted` and the number's release are
 * one append; elsewhere (EventStoreDB) the release follows, best effort (a
 * reservation whose holder is deleted is stale, see `phoneNumberReservations`).
 * A contact whose person was erased (its fields read as null) is not found, as
 * the API shows no such contact: nothing is written.
 */
export const deleteContact = async (
  deps: CommandDeps,
  input: { companyId: string; contactId: string; retentionMs: number; metadata: EventMetadata },
): Promise<E.Either<ContactWriteError, { deleted: DeletedRecord; position: Position }>> => {
  const { companyId, contactId, metadata } = input;
  const at = deps.clock.now();
  const spec = specOf(contactId, { type: 'DeleteContact', contactId, companyId, at, restorableUntil: new Date(at.getTime() + input.retentionMs) }, metadata);
  const appendToStreams = deps.eventStore.appendToStreams?.bind(deps.eventStore);
  if (!appendToStreams) {
    const { state } = await loadAggregate(deps.eventStore, spec.stream, spec);
    if (state.status === 'active' && !isLiveContact(state.contact)) return E.left({ kind: 'ContactNotFound' });
    const outcome = await handleCommand(deps, spec);
    if (E.isLeft(outcome)) return E.left({ kind: 'ContactNotFound' });
    const { events, position } = outcome.right;
    if (position === null || outcome.right.state.status !== 'deleted') throw new Error(`Contact ${contactId} was not deleted`);
    const { phoneNumber } = outcome.right.state.contact;
    // Null only if its person was erased after the read above: no number to read, none to release.
    const released = phoneNumber === null ? null : await releasePhoneNumber(deps, { companyId, phoneNumber, contactId, at, metadata });
    return E.right({ deleted: deletedOf(events), position: released ?? position });
  }
  for (let attempt = 1; ; attempt++) {
    const decided = await decideCommand(deps, spec);
    if (E.isLeft(decided)) return E.left({ kind: 'ContactNotFound' });
    const { events, state, append } = decided.right;
    if (state.status !== 'active') throw new Error(`Contact ${contactId} was not active`);
    if (!isLiveContact(state.contact)) return E.left({ kind: 'ContactNotFound' });
    const appends: StreamAppend[] = [append];
    const release = await decideRelease(deps, { companyId, phoneNumber: state.contact.phoneNumber, contactId, at, metadata });
    if (release !== null) appends.push(release);
    try {
      const stored = await appendToStreams(appends);
      return E.right({ deleted: deletedOf(events), position: stored[stored.length - 1]!.position });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw ConcurrencyExhaustedError.after(error, attempt);
    }
  }
};

type RestoreResult = E.Either<ContactWriteError, { contact: Contact; position: Position | null }>;

/**
 * Brings back a deleted contact of the company as it was, while it is
 * restorable. Its phone number must be free again: taken meanwhile, the restore is
 * refused (DuplicatePhoneNumber, with the contact that holds it). Restoring a
 * contact that is not deleted changes nothing and answers it. Where the store
 * appends atomically the number's reservation and `ContactRestored` are one
 * append; elsewhere the reservation comes first and is given back if the contact's
 * event cannot be stored. A contact whose person was erased (its fields read as
 * null) is not found, deleted or not: nothing is written.
 */
export const restoreContact = async (
  deps: CommandDeps,
  input: { companyId: string; contactId: string; metadata: EventMetadata },
): Promise<RestoreResult> => {
  const { companyId, contactId, metadata } = input;
  const at = deps.clock.now();
  const spec = specOf(contactId, { type: 'RestoreContact', contactId, companyId, at }, metadata);
  const appendToStreams = deps.eventStore.appendToStreams?.bind(deps.eventStore);
  return appendToStreams ? restoreAtomically(deps, appendToStreams, spec, at) : restoreInTwoAppends(deps, spec, input, at);
};

const restoreAtomically = async (
  deps: CommandDeps,
  appendToStreams: NonNullable<EventStore['appendToStreams']>,
  spec: ContactSpec,
  at: Date,
): Promise<RestoreResult> => {
  for (let attempt = 1; ; attempt++) {
    const decided = await decideCommand(deps, spec);
    if (E.isLeft(decided)) return E.left({ kind: 'ContactNotFound' });
    const { events, next, append } = decided.right;
    if (next.status !== 'active') throw new Error(`Contact ${spec.stream} was not restored`);
    if (!isLiveContact(next.contact)) return E.left({ kind: 'ContactNotFound' });
    if (events.length === 0) return E.right({ contact: toContactView(next.contact), position: null });
    const { companyId, phoneNumber, id: contactId } = next.contact;
    const claim: PhoneNumberClaim = { companyId, phoneNumber, contactId, at, metadata: append.events[0]!.metadata };
    const reservation = await decideReservation(deps, claim);
    if (E.isLeft(reservation)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reservation.left.holder });
    try {
      const stored = await appendToStreams([reservation.right.append, append]);
      return E.right({ contact: toContactView(next.contact), position: stored[stored.length - 1]!.position });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw ConcurrencyExhaustedError.after(error, attempt);
    }
  }
};

const restoreInTwoAppends = async (
  deps: CommandDeps,
  spec: ContactSpec,
  input: { companyId: string; contactId: string; metadata: EventMetadata },
  at: Date,
): Promise<RestoreResult> => {
  const { state } = await loadAggregate(deps.eventStore, spec.stream, spec);
  if (state.status === 'none' || state.status === 'erased' || state.contact.companyId !== input.companyId || !isLiveContact(state.contact)) {
    return E.left({ kind: 'ContactNotFound' });
  }
  if (state.status === 'active') return E.right({ contact: toContactView(state.contact), position: null });
  const claim: PhoneNumberClaim = { companyId: input.companyId, phoneNumber: state.contact.phoneNumber, contactId: input.contactId, at, metadata: input.metadata };
  const reserved = await reservePhoneNumber(deps, claim);
  if (E.isLeft(reserved)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reserved.left.holder });
  const outcome = await orElseRelease(
    () => handleCommand(deps, spec),
    () => releaseAbandonedReservation(deps, claim),
  );
  if (E.isLeft(outcome)) {
    await releasePhoneNumber(deps, claim);
    return E.left({ kind: 'ContactNotFound' });
  }
  if (outcome.right.state.status !== 'active' || !isLiveContact(outcome.right.state.contact)) throw new Error(`Contact ${input.contactId} was not restored`);
  return E.right({ contact: toContactView(outcome.right.state.contact), position: outcome.right.position });
};
