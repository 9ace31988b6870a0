/**
 * The characters a name (of a company, a key, a user, an agent, an admin token, a
 * contact, a deal's title) may not hold, so that a name shown to a person does not
 * lie about what it is. Checked on input only: names already in the log keep loading.
 *
 * - Bidirectional embeddings and overrides (U+202A–U+202E) and isolates
 *   (U+2066–U+2069) are refused anywhere: they reorder the text around them, so
 *   that `invoice\u202Egnp.exe` shows as "invoiceexe.png". The marks LRM (U+200E), RLM
 *   (U+200F) and ALM (U+061C) are allowed: they reorder nothing.
 * - A name must keep a visible character once the invisible ones are removed:
 *   whitespace, format characters (`\p{Cf}`: zero-width space, ZWNJ, ZWJ, word
 *   joiner, BOM, soft hyphen, the marks above…) and other default-ignorable code
 *   points (variation selectors, the Hangul fillers…). Inside a visible name they
 *   stay allowed: ZWJ in an emoji sequence, ZWNJ in a Persian word.
 */

const BIDI_EMBEDDING_OVERRIDE_OR_ISOLATE = /[\u202A-\u202E\u2066-\u2069]/u;

const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{White_Space}]/gu;

export type NameCharacterProblem = 'BidiControl' | 'NothingVisible';

/** Why a name is refused, in the words of a 422 `details` message (after the field's name, where the codec names it). */
export const NAME_CHARACTER_MESSAGES: Readonly<Record<NameCharacterProblem, string>> = {
  BidiControl: 'must not contain bidirectional override or isolate characters (U+202A–U+202E, U+2066–U+2069)',
  NothingVisible: 'must contain a visible character',
};

/** Whether the name has nothing visible once whitespace, format and default-ignorable characters are removed. */
export const hasNothingVisible = (name: string): boolean => name.replace(INVISIBLE, '') === '';

/** The reason a name is refused for its characters, or null when they are fine. */
export const nameCharacterProblem = (name: string): NameCharacterProblem | null => {
  if (BIDI_EMBEDDING_OVERRIDE_OR_ISOLATE.test(name)) return 'BidiControl';
  if (hasNothingVisible(name)) return 'NothingVisible';
  return null;
};
