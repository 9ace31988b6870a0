/** The currency of a deal created without one. */
export const DEFAULT_CURRENCY = 'EUR';

/**
 * ISO 4217 codes the runtime knows (`Intl.supportedValuesOf('currency')`: the
 * codes in current use, from ICU's data), so a code is one that `Intl.NumberFormat`
 * can format. Read once.
 */
const CURRENCY_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** The code upper-cased (`usd` → `USD`), or null when it is not an ISO 4217 code in current use. */
export const parseCurrencyCode = (raw: string): string | null => {
  const code = raw.trim().toUpperCase();
  return CURRENCY_CODES.has(code) ? code : null;
};
