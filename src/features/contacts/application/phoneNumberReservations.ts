/**
 * Phone numbers unique per company: reserving and releasing them.
 *
 * Uniqueness protocol. Each (company, normalised number) has a reservation
 * stream `phone-<companyId>-<number>` (see `phoneReservationDecider`): a state
 * machine free → reserved(contactId, at) → released → reserved …, appended with
 * the revision read and never deleted, so of any number of concurrent
 * reservations exactly one is appended; the others re-read (handleCommand) and
 * find the number taken.
 *
 * - Create: reserve the number for the new contact id and append `ContactCreated`
 *   to the new `contact-<id>` stream (`no_stream`): in one atomic append where
 *   the store offers it (`appendToStreams`, SQLite), so the reservation and its
 *   contact are stored together or not at all; elsewhere (EventStoreDB) the
 *   reservation first, then the contact, the reservation released if the
 *   contact's append fails.
 * - Update that changes the number: reserve the new number for the contact,
 *   append `ContactUpdated`, and release the old number (the one the appended
 *   event replaced): in one atomic append where the store offers it, each stream
 *   at the revision read (any of them moved: decided again); elsewhere in that
 *   order, after checking the contact (company), the new number released if the
 *   contact's event fails.
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
import { assertNever } from '../../../shared/Decider.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import type { HolderCheck, PhoneReservationCommand } from '../domain/phoneReservationCommands.js';
import {
  RESERVATION_GRACE_PERIOD_MS,
  phoneReservationDecider,
  type PhoneReservationState,
} from '../domain/phoneReservationDecider.js';
import type { PhoneReservationError } from '../domain/phoneReservationErrors.js';
import { PhoneReservationEvent, phoneReservationStream } from '../domain/phoneReservationEvents.js';
import { ConcurrencyExhaustedError } from '../../../application/commands/ConcurrencyExhaustedError.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { decideCommand, handleCommand, type CommandSpec, type Decision } from '../../../application/commands/handleCommand.js';
import { loadContact } from './loadContact.js';
import type { StreamAppend } from '../../../application/ports/EventStore.js';

/** How many holders a reservation may be checked against before giving up (each check follows a concurrent write). */
const MAX_HOLDER_CHECKS = 5;

/** One number of one company, for one contact, at one time. */
export interface PhoneNumberClaim {
  readonly companyId: string;
  readonly phoneNumber: string;
  readonly contactId: string;
  readonly at: Date;
  readonly metadata: EventMetadata;
}

type ReservationSpec = CommandSpec<PhoneReservationCommand, PhoneReservationEvent, PhoneReservationState, PhoneReservationError>;

/**
 * Runs the reservation command through `run` (which appends it, or only decides
 * it), checking the holder of a stale reservation whenever the decider asks
 * (HolderUnverified) and running it again with what it found. Left: the contact
 * whose reservation counts.
 */
const reserveWith = async <T>(
  deps: CommandDeps,
  request: PhoneNumberClaim,
  run: (spec: ReservationSpec) => Promise<E.Either<PhoneReservationError, T>>,
  newStream = false,
): Promise<E.Either<{ holder: string }, T>> => {
  const stream = phoneReservationStream(request.companyId, request.phoneNumber);
  let holderCheck: HolderCheck | undefined;
  for (let check = 0; check <= MAX_HOLDER_CHECKS; check++) {
    const result = await run({
      decider: phoneReservationDecider,
      eventCodec: PhoneReservationEvent,
      stream,
      command: {
        type: 'ReservePhoneNumber',
        companyId: request.companyId,
        phoneNumber: request.phoneNumber,
        contactId: request.contactId,
        at: request.at,
        ...(holderCheck ? { holderCheck } : {}),
      },
      metadata: request.metadata,
      newStream,
    });
    if (E.isRight(result)) return result;
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
  // Named without its number: a message may reach a log.
  throw new ConcurrencyExhaustedError(stream, MAX_HOLDER_CHECKS + 1, 'of a phone number\'s reservation');
};

/**
 * Reserves `phoneNumber` of `companyId` for `contactId`. Right: the position of
 * the reservation event; Left: the contact whose reservation counts.
 */
export const reservePhoneNumber = async (
  deps: CommandDeps,
  request: PhoneNumberClaim,
): Promise<E.Either<{ holder: string }, Position | null>> => {
  const reserved = await reserveWith(deps, request, (spec) => handleCommand(deps, spec));
  return E.isRight(reserved) ? E.right(reserved.right.position) : reserved;
};

/**
 * Decides the reservation of `phoneNumber` of `companyId` for `contactId` on the
 * reservation stream as it is now, without appending it: Right, the reservation to
 * append with the expected revision read (always one `PhoneNumberReserved`); Left,
 * the contact whose reservation counts. For a write that appends the reservation
 * together with its contact's event (`EventStore.appendToStreams`): if the
 * reservation stream moved in between, that append fails with its
 * `WrongExpectedRevisionError` and the caller decides again. With
 * `assumeNeverReserved` the stream is not read: the reservation is decided on a
 * number never reserved (always free) and appended expecting no stream, so a
 * number reserved before fails that append the same way.
 */
export const decideReservation = (
  deps: CommandDeps,
  request: PhoneNumberClaim,
  options: { readonly assumeNeverReserved?: boolean } = {},
): Promise<E.Either<{ holder: string }, Decision<PhoneReservationEvent, PhoneReservationState>>> =>
  reserveWith(deps, request, (spec) => decideCommand(deps, spec), options.assumeNeverReserved === true);

/** The release of the claim's number by its contact, at `at`: only the holder releases. */
const releaseSpec = (claim: PhoneNumberClaim, at: Date): ReservationSpec => ({
  decider: phoneReservationDecider,
  eventCodec: PhoneReservationEvent,
  stream: phoneReservationStream(claim.companyId, claim.phoneNumber),
  command: { type: 'ReleasePhoneNumber', contactId: claim.contactId, at },
  metadata: claim.metadata,
});

/**
 * Decides the release of `phoneNumber` by `contactId` on the reservation stream as
 * it is now, without appending it: what to append with the revision read, or null
 * when the contact does not hold the number (already released, taken over). For a
 * write that appends it together with its contact's event.
 */
export const decideRelease = async (deps: CommandDeps, request: PhoneNumberClaim): Promise<StreamAppend | null> => {
  const decided = await decideCommand(deps, releaseSpec(request, request.at));
  return E.isRight(decided) && decided.right.events.length > 0 ? decided.right.append : null;
};

/** Best effort: a reservation left behind is stale once its holder no longer has the number. */
export const releasePhoneNumber = async (
  deps: CommandDeps,
  request: PhoneNumberClaim,
): Promise<Position | null> => {
  try {
    const result = await handleCommand(deps, releaseSpec(request, request.at));
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
export const releaseAbandonedReservation = async (deps: CommandDeps, claim: PhoneNumberClaim): Promise<void> => {
  const giveUpAt = claim.at.getTime() + RESERVATION_GRACE_PERIOD_MS;
  const attempt = async (): Promise<boolean> => {
    try {
      const result = await handleCommand(deps, releaseSpec(claim, deps.clock.now()));
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
export const orElseRelease = async <T>(work: () => Promise<T>, release: () => Promise<void>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    await release();
    throw error;
  }
};
