import * as t from 'io-ts';

export const USER_NAME_MAX_LENGTH = 200;

interface UserNameBrand {
  readonly UserName: unique symbol;
}

/** A user's display name: trimmed, 1 to 200 characters, no control characters. */
export const UserName = new t.Type<t.Branded<string, UserNameBrand>, string, unknown>(
  'UserName',
  (u): u is t.Branded<string, UserNameBrand> =>
    typeof u === 'string' && u === u.trim() && u.length > 0 && u.length <= USER_NAME_MAX_LENGTH && !/\p{Cc}/u.test(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a string');
    const name = u.trim();
    if (name.length === 0 || name.length > USER_NAME_MAX_LENGTH || /\p{Cc}/u.test(name)) {
      return t.failure(u, c, `must be 1 to ${USER_NAME_MAX_LENGTH} characters without control characters`);
    }
    return t.success(name as t.Branded<string, UserNameBrand>);
  },
  String,
);
export type UserName = t.TypeOf<typeof UserName>;
