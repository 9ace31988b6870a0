import * as t from 'io-ts';

/** RFC 5646 §4.4.1: every implementation should handle tags of up to 35 characters; ours never need more. */
export const LANGUAGE_TAG_MAX_LENGTH = 35;

interface LanguageTagBrand {
  readonly LanguageTag: unique symbol;
}

/**
 * A primary language subtag of 2 or 3 letters (ISO 639). BCP 47 also reserves
 * 5–8 letters for languages registered in future; none is, so refusing them
 * makes `english` or `german` an error instead of a "well-formed" tag.
 */
const PRIMARY_LANGUAGE = /^[a-z]{2,3}(?:-|$)/;

/** The canonical form of one tag, or null when Intl refuses it. */
const canonicalise = (tag: string): string | null => {
  try {
    const [canonical, ...rest] = Intl.getCanonicalLocales(tag);
    return canonical !== undefined && rest.length === 0 && PRIMARY_LANGUAGE.test(canonical) ? canonical : null;
  } catch {
    return null;
  }
};

/**
 * The language an agent speaks: one well-formed BCP 47 language tag (a Unicode
 * BCP 47 locale identifier, as `Intl` reads it), e.g. `en`, `de-DE`, `zh-Hant-TW`.
 * Decoding trims and canonicalises it with `Intl.getCanonicalLocales`: case is
 * normalised (`EN-us` → `en-US`) and deprecated codes replaced (`iw` → `he`).
 * Well-formed is checked, not registered: `qq` (private use) passes, `en_US`
 * and `english` do not.
 */
export const LanguageTag = new t.Type<t.Branded<string, LanguageTagBrand>, string, unknown>(
  'LanguageTag',
  (u): u is t.Branded<string, LanguageTagBrand> => typeof u === 'string' && u.length <= LANGUAGE_TAG_MAX_LENGTH && canonicalise(u) === u,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a string');
    const canonical = canonicalise(u.trim());
    return canonical !== null && canonical.length <= LANGUAGE_TAG_MAX_LENGTH
      ? t.success(canonical as t.Branded<string, LanguageTagBrand>)
      : t.failure(u, c, `must be a BCP 47 language tag such as en or de-DE (at most ${LANGUAGE_TAG_MAX_LENGTH} characters)`);
  },
  String,
);
export type LanguageTag = t.TypeOf<typeof LanguageTag>;
