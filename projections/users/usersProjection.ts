import * as E from 'fp-ts/lib/Either.js';
import type { Projection, ReadModelDocument } from '../../src/application/ports/ReadModelStore.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { UserEvent } from '../../src/domain/users/events.js';
import { formatValidationErrors } from '../../src/shared/validationReporter.js';

export interface UserDoc extends ReadModelDocument {
  readonly name: string;
  readonly email: string;
  readonly createdAt: string;
}

const decodeUserEvent = (event: RecordedEvent): UserEvent => {
  const decoded = UserEvent.decode({ type: event.type, data: event.data });
  if (E.isLeft(decoded)) {
    throw new Error(`Event ${event.id} (${event.type}) does not decode: ${JSON.stringify(formatValidationErrors(decoded.left))}`);
  }
  return decoded.right;
};

/** `users`: one document per user, under its company, in creation order. */
export const usersProjection: Projection<UserDoc> = {
  name: 'users',
  eventTypes: new Set(['UserCreated']),
  indexes: [['email']],
  targets(event) {
    const { data } = decodeUserEvent(event);
    return [{ kind: 'id', companyId: data.companyId, id: data.userId }];
  },
  evolve(doc, recorded) {
    if (doc) return doc;
    const { data } = decodeUserEvent(recorded);
    return {
      id: data.userId,
      companyId: data.companyId,
      name: data.name,
      email: data.email,
      createdAt: data.createdAt,
      position: recorded.position,
    };
  },
};
