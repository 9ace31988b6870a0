/**
 * Escapes text so that a MongoDB (PCRE) regular expression matches it literally.
 * Every escaped character is non-alphanumeric, which PCRE always reads as a literal;
 * a NUL (which the server refuses inside a pattern) becomes `\x00`.
 */
export const escapeRegex = (text: string): string =>
  text.replace(/[\\^$.*+?()[\]{}|\-/#]/g, '\\$&').replace(/\0/g, '\\x00');
