import * as t from 'io-ts';
import { NAME_CHARACTER_MESSAGES, nameCharacterProblem } from './nameCharacters.js';

export const DISPLAY_NAME_MAX_LENGTH = 200;

interface DisplayNameBrand {
  readonly DisplayName: unique symbol;
}

/**
 * A display name (of a company, a user, an agent, an API key, an admin token): trimmed,
 * 1 to 200 characters, no control characters, no bidirectional override or isolate,
 * at least one visible character (see nameCharacters). For input only: events hold
 * names as plain strings, so names stored before a rule was added keep loading.
 */
export const DisplayName = new t.Type<t.Branded<string, DisplayNameBrand>, string, unknown>(
  'DisplayName',
  (u): u is t.Branded<string, DisplayNameBrand> =>
    typeof u === 'string' &&
    u === u.trim() &&
    u.length > 0 &&
    u.length <= DISPLAY_NAME_MAX_LENGTH &&
    !/\p{Cc}/u.test(u) &&
    nameCharacterProblem(u) === null,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a string');
    const name = u.trim();
    if (name.length === 0 || name.length > DISPLAY_NAME_MAX_LENGTH || /\p{Cc}/u.test(name)) {
      return t.failure(u, c, `must be 1 to ${DISPLAY_NAME_MAX_LENGTH} characters without control characters`);
    }
    const problem = nameCharacterProblem(name);
    if (problem !== null) return t.failure(u, c, NAME_CHARACTER_MESSAGES[problem]);
    return t.success(name as t.Branded<string, DisplayNameBrand>);
  },
  String,
);
export type DisplayName = t.TypeOf<typeof DisplayName>;
