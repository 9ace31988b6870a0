import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { contactDecider, type ContactState } from '../domain/contactDecider.js';
import { ContactEvent, contactStream, type ContactErased, type ErasureReason } from '../domain/contactEvents.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { ConcurrencyExhaustedError } from '../../../application/commands/ConcurrencyExhaustedError.js';
import { decideCommand, handleCommand } from '../../../application/commands/handleCommand.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { WrongExpectedRevisionError, type StreamAppend } from '../../../application/ports/EventStore.js';
import { decideRelease, releasePhoneNumber } from './phoneNumberReservations.js';

/** How many times an erase decides again after one of its streams moved under it. */
const MAX_ATTEMPTS = 5;

/** What an erase answers: the contact's id and when it was erased (the first time, for an erase sent again). */
export interface ErasedRecord {
  readonly id: string;
  readonly erasedAt: string;
}

const erasedOf = (contactId: string, events: readonly ContactEvent[], state: ContactState): ErasedRecord => {
  const erased = events.find((event): event is ContactErased => event.type === 'ContactErased');
  if (erased) return { id: contactId, erasedAt: erased.data.erasedAt };
  if (state.status === 'erased') return { id: contactId, erasedAt: state.erasedAt };
  throw new Error(`Contact ${contactId} was not erased`);
};

/**
 * Records the erasure of a contact of the company (`ContactErased`), deleted or
 * not; a live contact's phone number is released with it (in the same atomic
 * append where the store offers one; elsewhere just after, best effort). Erasing
 * one erased already appends nothing and answers when it was erased. Another
 * company's contact, or none: not found. What makes the values unreadable (the
 * key, the kept responses) follows in `PersonErasure.forget`, which the caller runs
 * whether or not this appended anything, so that a retry finishes an erase a crash
 * interrupted.
 */
export const eraseContact = async (
  deps: CommandDeps,
  input: { companyId: string; contactId: string; reason: ErasureReason; metadata: EventMetadata },
): Promise<E.Either<{ kind: 'ContactNotFound' }, { erased: ErasedRecord; position: Position | null }>> => {
  const { companyId, contactId, reason, metadata } = input;
  const at = deps.clock.now();
  const spec = {
    decider: contactDecider,
    eventCodec: ContactEvent,
    stream: contactStream(contactId),
    command: { type: 'EraseContact' as const, contactId, companyId, at, reason },
    metadata,
  };
  const appendToStreams = deps.eventStore.appendToStreams?.bind(deps.eventStore);
  if (!appendToStreams) {
    const { state: before } = await loadAggregate(deps.eventStore, spec.stream, spec);
    const outcome = await handleCommand(deps, spec);
    if (E.isLeft(outcome)) return E.left({ kind: 'ContactNotFound' });
    const { events, state, position } = outcome.right;
    const erased = erasedOf(contactId, events, state);
    const phoneNumber = before.status === 'active' ? before.contact.phoneNumber : null;
    if (events.length === 0 || phoneNumber === null) return E.right({ erased, position });
    const released = await releasePhoneNumber(deps, { companyId, phoneNumber, contactId, at, metadata });
    return E.right({ erased, position: released ?? position });
  }
  for (let attempt = 1; ; attempt++) {
    const decided = await decideCommand(deps, spec);
    if (E.isLeft(decided)) return E.left({ kind: 'ContactNotFound' });
    const { events, state, next, append } = decided.right;
    if (events.length === 0) return E.right({ erased: erasedOf(contactId, events, next), position: null });
    const appends: StreamAppend[] = [append];
    // A live contact holds its number; a deleted one gave it back when it was deleted.
    if (state.status === 'active' && state.contact.phoneNumber !== null) {
      const release = await decideRelease(deps, { companyId, phoneNumber: state.contact.phoneNumber, contactId, at, metadata });
      if (release !== null) appends.push(release);
    }
    try {
      const stored = await appendToStreams(appends);
      return E.right({ erased: erasedOf(contactId, events, next), position: stored[stored.length - 1]!.position });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw ConcurrencyExhaustedError.after(error, attempt);
    }
  }
};
