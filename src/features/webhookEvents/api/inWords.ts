/** `a, b or c`. */
export const inWords = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]!}`;

/** The text with its first letter a capital. */
export const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
