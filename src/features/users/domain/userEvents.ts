import * as t from 'io-ts';

export const UserCreated = t.type({
  type: t.literal('UserCreated'),
  data: t.type({ userId: t.string, companyId: t.string, name: t.string, email: t.string, createdAt: t.string }),
});
export type UserCreated = t.TypeOf<typeof UserCreated>;

/** Every event of a `user-<id>` stream (one kind so far). */
export const UserEvent = UserCreated;
export type UserEvent = t.TypeOf<typeof UserEvent>;

export const userStream = (userId: string): string => `user-${userId}`;
