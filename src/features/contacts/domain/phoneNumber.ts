/**
 * Phone-number normalisation (the rule behind uniqueness):
 *
 * 1. Spaces, dots, dashes and parentheses are removed: `+49 (151) 000-1` → `+491510001`.
 * 2. A leading `00` (the international call prefix) becomes `+`: `0049 151 000` → `+49151000`.
 * 3. A leading `+` is kept; everything else is kept as given (no country is guessed,
 *    so the national form `0151 000` stays `0151000` and is a different number
 *    from `+49151000`).
 *
 * So `+49 151 000`, `+49151000` and `0049-151-000` are one number, `+49151000`,
 * and that normalised form is what a contact stores and returns. A valid number
 * (see `contactInput.ts`) holds only digits, an optional leading `+` and those
 * separators, with 3 to 15 digits after normalising.
 */
export const normalizePhoneNumber = (input: string): string => {
  const compact = input.trim().replace(/[\s.\-()]/g, '');
  return compact.startsWith('00') ? `+${compact.slice(2)}` : compact;
};

/** Separators allowed between digits: space, dot, dash, parentheses. */
const PHONE_SHAPE = /^\+?[0-9 .\-()]+$/;
const NORMALISED_SHAPE = /^\+?[0-9]{3,15}$/;

export const MIN_PHONE_DIGITS = 3;
export const MAX_PHONE_DIGITS = 15;

/** The normalised number, or null when the input is not a phone number by the rule above. */
export const parsePhoneNumber = (input: string): string | null => {
  const trimmed = input.trim();
  if (!PHONE_SHAPE.test(trimmed)) return null;
  const normalised = normalizePhoneNumber(trimmed);
  return NORMALISED_SHAPE.test(normalised) ? normalised : null;
};
