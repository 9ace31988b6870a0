import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { PhoneReservationCommand, ReservePhoneNumber } from './phoneReservationCommands.js';
import type { PhoneReservationError } from './phoneReservationErrors.js';
import type { PhoneReservationEvent } from './phoneReservationEvents.js';

/**
 * How long a reservation counts even though its holder does not have the number
 * (yet): covers a create or update still in flight between reserving the number
 * and appending the contact event.
 */
export const RESERVATION_GRACE_PERIOD_MS = 30_000;

/**
 * free: never reserved (no stream). reserved: `contactId` holds it since `at`.
 * released: `contactId` held it and let it go at `at`.
 */
export type PhoneReservationState =
  | { readonly status: 'free' }
  | { readonly status: 'reserved'; readonly contactId: string; readonly at: string }
  | { readonly status: 'released'; readonly contactId: string; readonly at: string };

const free: PhoneReservationState = { status: 'free' };

const ageMs = (since: string, at: Date): number => at.getTime() - Date.parse(since);

const reserve = (
  command: ReservePhoneNumber,
  state: PhoneReservationState,
): E.Either<PhoneReservationError, readonly PhoneReservationEvent[]> => {
  const reserved = (takenOverFrom?: string): readonly PhoneReservationEvent[] => [
    {
      type: 'PhoneNumberReserved',
      data: {
        companyId: command.companyId,
        contactId: command.contactId,
        at: toIsoTimestamp(command.at),
        ...(takenOverFrom === undefined ? {} : { takenOverFrom }),
      },
    },
  ];
  // Free, released, or already ours: (re)reserve. Re-reserving refreshes `at`, so
  // the grace period covers this command too.
  if (state.status !== 'reserved' || state.contactId === command.contactId) return E.right(reserved());
  const holder = state.contactId;
  // A young reservation counts: its holder's command may still be in flight.
  // (NaN from an unparsable time counts as young: never take over on doubt.)
  if (!(ageMs(state.at, command.at) >= RESERVATION_GRACE_PERIOD_MS)) {
    return E.left({ kind: 'PhoneNumberTaken', contactId: holder });
  }
  // An old reservation counts only if its holder has the number.
  if (command.holderCheck?.contactId !== holder) return E.left({ kind: 'HolderUnverified', contactId: holder });
  return command.holderCheck.hasNumber ? E.left({ kind: 'PhoneNumberTaken', contactId: holder }) : E.right(reserved(holder));
};

/**
 * One phone number of one company (stream `phone-<companyId>-<number>`): a small
 * state machine, never deleted: free → reserved → released → reserved …
 */
export const phoneReservationDecider: Decider<
  PhoneReservationCommand,
  PhoneReservationEvent,
  PhoneReservationState,
  PhoneReservationError
> = {
  initialState: free,
  decide(command, state) {
    switch (command.type) {
      case 'ReservePhoneNumber':
        return reserve(command, state);
      case 'ReleasePhoneNumber':
        // Only the holder releases; anything else (already released, taken over) changes nothing.
        return E.right(
          state.status === 'reserved' && state.contactId === command.contactId
            ? [{ type: 'PhoneNumberReleased', data: { contactId: command.contactId, at: toIsoTimestamp(command.at) } }]
            : [],
        );
      default:
        return assertNever(command);
    }
  },
  evolve(_state, event) {
    switch (event.type) {
      case 'PhoneNumberReserved':
        return { status: 'reserved', contactId: event.data.contactId, at: event.data.at };
      case 'PhoneNumberReleased':
        return { status: 'released', contactId: event.data.contactId, at: event.data.at };
      default:
        return assertNever(event);
    }
  },
};
