/**
 * Contact commands: create and update, with phone numbers unique per company.
 *
 * Uniqueness protocol. Each (company, normalised number) has a reservation
 * stream `phone-<companyId>-<number>` (see `phoneReservationDecider`): a state
 * machine free → reserved(contactId, at) → released → reserved …, appended with
 * the revision read and never deleted, so of any number of concurrent
 * reservations exactly one is appended; the others re-read (handleCommand) and
 * find the number taken.
 *
 * - Create: reserve the number for the new contact id, then append
 *   `ContactCreated` to the new `contact-<id>` stream (`no_stream`).
 * - Update that changes the number: check the contact (company), reserve the new
 *   number for it, append `ContactUpdated`, then release the old number (the one
 *   the appended event replaced).
 * - A reservation counts only while its holder currently has that number, or while
 *   it is younger than the grace period (`RESERVATION_GRACE_PERIOD_MS`, 30 s), which
 *   covers a command still in flight between its two appends. An older reservation
 *   whose holder does not have the number (a create or update that failed
 *   part-way, or a release that never happened) is stale and is taken over by the
 *   next reservation (appended with the revision read, so only one taker wins).
 *   Re-reserving a number one already holds refreshes its time.
 * - Releasing is best-effort: if it fails, the leftover reservation is stale by
 *   the rule above. So a failure at any step never leaves a number held by
 *   nobody forever, and never lets two contacts of a company share a number
 *   (unless a command outlives the grace period, or clocks of API instances
 *   drift by more than it).
 */
import * as E from 'fp-ts/lib/Either.js';
import { ConcurrencyExhaustedError, UndecodableEventError, handleCommand } from '../handleCommand.js';
import type { EventStore } from '../ports/EventStore.js';
import { toIsoTimestamp, type Clock } from '../../shared/Clock.js';
import { assertNever } from '../../shared/Decider.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import type { Position } from '../../shared/Position.js';
import { formatValidationErrors } from '../../shared/validationReporter.js';
import { contactDecider, type ContactState } from '../../domain/contacts/contactDecider.js';
import { ContactEvent, contactStream } from '../../domain/contacts/contactEvents.js';
import type { CreateContactFields, UpdateContactFields } from '../../domain/contacts/contactInput.js';
import type { ContactRecord } from '../../domain/contacts/contactRecord.js';
import { toContactView, type Contact } from '../../domain/contacts/contactView.js';
import { normalizePhoneNumber } from '../../domain/contacts/phoneNumber.js';
import type { HolderCheck } from '../../domain/phoneReservation/phoneReservationCommands.js';
import { RESERVATION_GRACE_PERIOD_MS, phoneReservationDecider } from '../../domain/phoneReservation/phoneReservationDecider.js';
import {
  PhoneReservationEvent,
  phoneReservationStream,
} from '../../domain/phoneReservation/phoneReservationEvents.js';

export { toContactView, type Contact } from '../../domain/contacts/contactView.js';

export interface ContactServiceDeps {
  readonly eventStore: EventStore;
  /** Ids of new contacts and events. */
  readonly newId: () => string;
  readonly clock: Clock;
}

export type ContactServiceError = { kind: 'ContactNotFound' } | { kind: 'DuplicatePhoneNumber'; existingContactId: string };

/** How many holders a reservation may be checked against before giving up (each check follows a concurrent write). */
const MAX_HOLDER_CHECKS = 5;

const handlerDeps = (deps: ContactServiceDeps) => ({ eventStore: deps.eventStore, newEventId: deps.newId });

/** The contact as its stream has it now, or null when the stream is empty. */
const loadContact = async (eventStore: EventStore, contactId: string): Promise<ContactRecord | null> => {
  let state: ContactState = contactDecider.initialState;
  for (const stored of await eventStore.readStream(contactStream(contactId))) {
    const decoded = ContactEvent.decode({ type: stored.type, data: stored.data });
    if (E.isLeft(decoded)) throw new UndecodableEventError(stored, JSON.stringify(formatValidationErrors(decoded.left)));
    state = contactDecider.evolve(state, decoded.right);
  }
  return state.status === 'active' ? state.contact : null;
};

/**
 * Reserves `phoneNumber` of `companyId` for `contactId`. Right: the position of
 * the reservation event; Left: the contact whose reservation counts.
 */
const reservePhoneNumber = async (
  deps: ContactServiceDeps,
  request: { companyId: string; phoneNumber: string; contactId: string; at: string; metadata: EventMetadata },
): Promise<E.Either<{ holder: string }, Position | null>> => {
  const stream = phoneReservationStream(request.companyId, request.phoneNumber);
  let holderCheck: HolderCheck | undefined;
  for (let check = 0; check <= MAX_HOLDER_CHECKS; check++) {
    const result = await handleCommand(handlerDeps(deps), {
      decider: phoneReservationDecider,
      eventCodec: PhoneReservationEvent,
      stream,
      command: {
        kind: 'ReservePhoneNumber',
        companyId: request.companyId,
        phoneNumber: request.phoneNumber,
        contactId: request.contactId,
        at: request.at,
        ...(holderCheck ? { holderCheck } : {}),
      },
      metadata: request.metadata,
    });
    if (E.isRight(result)) return E.right(result.right.position);
    const problem = result.left;
    switch (problem.kind) {
      case 'PhoneNumberTaken':
        return E.left({ holder: problem.contactId });
      case 'HolderUnverified': {
        const holder = await loadContact(deps.eventStore, problem.contactId);
        holderCheck = {
          contactId: problem.contactId,
          hasNumber: holder !== null && holder.companyId === request.companyId && holder.phoneNumber === request.phoneNumber,
        };
        break;
      }
      default:
        return assertNever(problem);
    }
  }
  throw new ConcurrencyExhaustedError(stream, MAX_HOLDER_CHECKS + 1);
};

/** Best effort: a reservation left behind is stale once its holder no longer has the number. */
const releasePhoneNumber = async (
  deps: ContactServiceDeps,
  request: { companyId: string; phoneNumber: string; contactId: string; at: string; metadata: EventMetadata },
): Promise<Position | null> => {
  try {
    const result = await handleCommand(handlerDeps(deps), {
      decider: phoneReservationDecider,
      eventCodec: PhoneReservationEvent,
      stream: phoneReservationStream(request.companyId, request.phoneNumber),
      command: { kind: 'ReleasePhoneNumber', contactId: request.contactId, at: request.at },
      metadata: request.metadata,
    });
    return E.isRight(result) ? result.right.position : null;
  } catch {
    return null;
  }
};

/** How often a reservation left by a failed command is offered back, while its store refuses writes. */
const ABANDONED_RELEASE_RETRY_MS = 1000;

/**
 * Gives back a number reserved for a command whose next append failed (the store
 * refused the write: storage full, a lost connection), so that nothing of the
 * failed command stays in effect: the client may send it again at once. Tried now;
 * if the store still refuses, tried again every second in the background until
 * the reservation's grace period is over, when it no longer counts anyway.
 * Releasing only ever releases this command's own reservation.
 */
const releaseAbandonedReservation = async (
  deps: ContactServiceDeps,
  request: { companyId: string; phoneNumber: string; contactId: string; at: string; metadata: EventMetadata },
): Promise<void> => {
  const giveUpAt = Date.parse(request.at) + RESERVATION_GRACE_PERIOD_MS;
  const attempt = async (): Promise<boolean> => {
    try {
      const result = await handleCommand(handlerDeps(deps), {
        decider: phoneReservationDecider,
        eventCodec: PhoneReservationEvent,
        stream: phoneReservationStream(request.companyId, request.phoneNumber),
        command: { kind: 'ReleasePhoneNumber', contactId: request.contactId, at: toIsoTimestamp(deps.clock.now()) },
        metadata: request.metadata,
      });
      return E.isRight(result);
    } catch {
      return false;
    }
  };
  if (await attempt()) return;
  const retry = (): void => {
    if (deps.clock.now().getTime() >= giveUpAt) return;
    setTimeout(() => void attempt().then((done) => (done ? undefined : retry())), ABANDONED_RELEASE_RETRY_MS).unref();
  };
  retry();
};

/** Runs `work`; when it throws, runs `release` before passing the error on. */
const orElseRelease = async <T>(work: () => Promise<T>, release: () => Promise<void>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    await release();
    throw error;
  }
};

/** Creates a contact with a new id; its (normalised) phone number must be free in the company. */
export const createContact = async (
  deps: ContactServiceDeps,
  input: { companyId: string; fields: CreateContactFields; metadata: EventMetadata },
): Promise<E.Either<ContactServiceError, { contact: Contact; position: Position }>> => {
  const { companyId, metadata } = input;
  const fields = { ...input.fields, phoneNumber: normalizePhoneNumber(input.fields.phoneNumber) };
  const contactId = deps.newId();
  const at = toIsoTimestamp(deps.clock.now());

  const reserved = await reservePhoneNumber(deps, { companyId, phoneNumber: fields.phoneNumber, contactId, at, metadata });
  if (E.isLeft(reserved)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reserved.left.holder });

  // If the contact is not stored, neither may its reservation stay.
  const created = await orElseRelease(
    () =>
      handleCommand(handlerDeps(deps), {
        decider: contactDecider,
        eventCodec: ContactEvent,
        stream: contactStream(contactId),
        command: { kind: 'CreateContact', contactId, companyId, fields, at },
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

/**
 * Changes some fields of a contact of the company. Values equal to the current
 * ones append nothing (position null; the contact and its updatedAt unchanged).
 */
export const updateContact = async (
  deps: ContactServiceDeps,
  input: { companyId: string; contactId: string; changes: UpdateContactFields; metadata: EventMetadata },
): Promise<E.Either<ContactServiceError, { contact: Contact; position: Position | null }>> => {
  const { companyId, contactId, metadata } = input;
  const changes =
    input.changes.phoneNumber === undefined
      ? input.changes
      : { ...input.changes, phoneNumber: normalizePhoneNumber(input.changes.phoneNumber) };
  const at = toIsoTimestamp(deps.clock.now());

  const current = await loadContact(deps.eventStore, contactId);
  if (current === null || current.companyId !== companyId) return E.left({ kind: 'ContactNotFound' });

  const newNumber = changes.phoneNumber !== undefined && changes.phoneNumber !== current.phoneNumber ? changes.phoneNumber : null;
  if (newNumber !== null) {
    const reserved = await reservePhoneNumber(deps, { companyId, phoneNumber: newNumber, contactId, at, metadata });
    if (E.isLeft(reserved)) return E.left({ kind: 'DuplicatePhoneNumber', existingContactId: reserved.left.holder });
  }

  const updated = await orElseRelease(
    () =>
      handleCommand(handlerDeps(deps), {
        decider: contactDecider,
        eventCodec: ContactEvent,
        stream: contactStream(contactId),
        command: { kind: 'UpdateContact', contactId, companyId, changes, at },
        metadata,
      }),
    async () => {
      if (newNumber !== null) await releaseAbandonedReservation(deps, { companyId, phoneNumber: newNumber, contactId, at, metadata });
    },
  );
  if (E.isLeft(updated)) {
    if (newNumber !== null) await releasePhoneNumber(deps, { companyId, phoneNumber: newNumber, contactId, at, metadata });
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
  return E.right({ contact: toContactView(state.contact), position });
};
