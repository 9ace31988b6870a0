import * as t from 'io-ts';
import type { UserCreated } from './userEvents.js';

/*
 * Earlier versions of the user's stored events, and the upcasters that read them
 * as the current version. A released version's codec never changes: a new shape
 * is a new version (see docs/contributors/changing-an-event.md).
 *
 *   UserCreated  v1: name and e-mail (releases up to bf089fc)
 *                v2 (current): v1, but `name` and `email` may be null (erased)
 */

/** `UserCreated` version 1: the user's name and e-mail, both values. */
export const UserCreatedV1 = t.type({
  type: t.literal('UserCreated'),
  data: t.type({ userId: t.string, companyId: t.string, name: t.string, email: t.string, createdAt: t.string }),
});
export type UserCreatedV1 = t.TypeOf<typeof UserCreatedV1>;

/** `UserCreated` v1 → v2: the identity (version 2 only lets `name` and `email` be null). */
export const upcastUserCreatedV1 = (event: UserCreatedV1): UserCreated => event;
