import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { UserEvent } from '../domain/userEvents.js';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import { erasedWithCompany } from '../../companies/index.js';

/** A user in the read model: `name` and `email` null when they read as null, or once the user is erased. */
export interface UserDoc extends ReadModelDocument {
  readonly name: string | null;
  readonly email: string | null;
  readonly createdAt: string;
}

const decodeUserEvent = cachedDecoder(UserEvent);

/**
 * `users`: one document per user, under its company, in creation order. A
 * `UserErased` keeps the document (its id, company and time) with its name and
 * e-mail null: the admin list leaves it out, and the store's secure delete
 * overwrites what they were.
 */
export const usersProjection: Projection<UserDoc> = erasedWithCompany({
  name: 'users',
  eventTypes: new Set(['UserCreated', 'UserErased']),
  indexes: [['email']],
  targets(event) {
    const { data } = decodeUserEvent(event);
    return [{ kind: 'id', companyId: data.companyId, id: data.userId }];
  },
  evolve(doc, recorded) {
    const event = decodeUserEvent(recorded);
    switch (event.type) {
      case 'UserCreated':
        if (doc) return doc;
        return {
          id: event.data.userId,
          companyId: event.data.companyId,
          name: event.data.name,
          email: event.data.email,
          createdAt: event.data.createdAt,
          position: recorded.position,
        };
      case 'UserErased':
        if (!doc || (doc.name === null && doc.email === null)) return doc;
        return { ...doc, name: null, email: null, position: recorded.position };
      default: {
        const unknown: never = event;
        return unknown;
      }
    }
  },
});
