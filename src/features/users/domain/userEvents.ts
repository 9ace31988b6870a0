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

/** Every event of a `user-<id>` stream (one kind so far). */
export const UserEvent = UserCreated;
export type UserEvent = t.TypeOf<typeof UserEvent>;

export const userStream = (userId: string): string => `user-${userId}`;
