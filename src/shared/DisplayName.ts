import * as t from 'io-ts';

export const DISPLAY_NAME_MAX_LENGTH = 200;

interface DisplayNameBrand {
  readonly DisplayName: unique symbol;
}

/** A display name (of a company, a user): trimmed, 1 to 200 characters, no control characters. */
export const DisplayName = new t.Type<t.Branded<string, DisplayNameBrand>, string, unknown>(
  'DisplayName',
  (u): u is t.Branded<string, DisplayNameBrand> =>
    typeof u === 'string' && u === u.trim() && u.length > 0 && u.length <= DISPLAY_NAME_MAX_LENGTH && !/\p{Cc}/u.test(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a string');
    const name = u.trim();
    if (name.length === 0 || name.length > DISPLAY_NAME_MAX_LENGTH || /\p{Cc}/u.test(name)) {
      return t.failure(u, c, `must be 1 to ${DISPLAY_NAME_MAX_LENGTH} characters without control characters`);
    }
    return t.success(name as t.Branded<string, DisplayNameBrand>);
  },
  String,
);
export type DisplayName = t.TypeOf<typeof DisplayName>;
