import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { formatValidationErrors } from '../../shared/validationReporter.js';
import type { RecordedEvent } from '../ports/EventStore.js';
import { UndecodableEventError } from './UndecodableEventError.js';

/** Why `codec` refuses a stored event (Left), or the event as the domain types it (Right). */
export const tryDecodeStoredEvent = <Event>(codec: t.Decoder<unknown, Event>, event: RecordedEvent): E.Either<string, Event> => {
  const decoded = codec.decode({ type: event.type, data: event.data });
  return E.isRight(decoded) ? decoded : E.left(JSON.stringify(formatValidationErrors(decoded.left)));
};

/**
 * A stored event decoded with the codec it is written with; a refusal is an
 * `UndecodableEventError` naming the event. Every reader of stored events
 * (command handling, projections, history, verify, the webhook mapping) decodes
 * through here or `tryDecodeStoredEvent`. Events read through the event store
 * (`UpcastingEventStore`) come in their current shapes, already accepted by
 * their version's codec: this types them.
 */
export const decodeStoredEvent = <Event>(codec: t.Decoder<unknown, Event>, event: RecordedEvent): Event => {
  const decoded = tryDecodeStoredEvent(codec, event);
  if (E.isLeft(decoded)) throw new UndecodableEventError(event, decoded.left);
  return decoded.right;
};

/**
 * A decoder for a projection: `targets` and `evolve` see the same stored event,
 * decoded once (cached per event object). The event codecs transform nothing, so
 * a value that `is` accepts (far cheaper than `decode` on a rebuild: see
 * docs/benchmarks/design-measurements.md) is its own decoding; `decode` runs only
 * to explain a refusal.
 */
export const cachedDecoder = <Event>(codec: t.Type<Event, unknown, unknown>): ((event: RecordedEvent) => Event) => {
  const decoded = new WeakMap<RecordedEvent, Event>();
  return (event) => {
    const cached = decoded.get(event);
    if (cached !== undefined) return cached;
    const candidate: unknown = { type: event.type, data: event.data };
    const result = codec.is(candidate) ? candidate : decodeStoredEvent(codec, event);
    decoded.set(event, result);
    return result;
  };
};
