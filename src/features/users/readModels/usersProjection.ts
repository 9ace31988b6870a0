import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { UserEvent } from '../domain/userEvents.js';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';

/** A user in the read model: `name` and `email` null when they read as null (the user erased). */
export interface UserDoc extends ReadModelDocument {
  readonly name: string | null;
  readonly email: string | null;
  readonly createdAt: string;
}

const decodeUserEvent = cachedDecoder(UserEvent);

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
