import * as t from 'io-ts';

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/**
 * A user came into being. Version 2: `name` and `email`, the user's personal
 * fields, may be null: they read as null once the user is erased (their key is
 * gone, see docs/contributors/personal-data.md).
 */
export const UserCreated = t.type({
  type: t.literal('UserCreated'),
  data: t.type({ userId: t.string, companyId: t.string, name: nullable(t.string), email: nullable(t.string), createdAt: t.string }),
});
export type UserCreated = t.TypeOf<typeof UserCreated>;

/**
 * A user was erased (the person's right to erasure): their key is destroyed, so
 * that their name and e-mail read as null wherever they were written, and every
 * read model forgets them. No personal value: who asked is in the event's
 * metadata (the admin token).
 */
export const UserErased = t.type({
  type: t.literal('UserErased'),
  data: t.type({ userId: t.string, companyId: t.string, erasedAt: t.string }),
});
export type UserErased = t.TypeOf<typeof UserErased>;

/** Every event of a `user-<id>` stream. */
export const UserEvent = t.union([UserCreated, UserErased]);
export type UserEvent = t.TypeOf<typeof UserEvent>;

export const userStream = (userId: string): string => `user-${userId}`;
