import * as t from 'io-ts';

export const COMPANY_NAME_MAX_LENGTH = 200;

interface CompanyNameBrand {
  readonly CompanyName: unique symbol;
}

/** A company's display name: trimmed, 1 to 200 characters, no control characters. */
export const CompanyName = new t.Type<t.Branded<string, CompanyNameBrand>, string, unknown>(
  'CompanyName',
  (u): u is t.Branded<string, CompanyNameBrand> =>
    typeof u === 'string' && u === u.trim() && u.length > 0 && u.length <= COMPANY_NAME_MAX_LENGTH && !/\p{Cc}/u.test(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be a string');
    const name = u.trim();
    if (name.length === 0 || name.length > COMPANY_NAME_MAX_LENGTH || /\p{Cc}/u.test(name)) {
      return t.failure(u, c, `must be 1 to ${COMPANY_NAME_MAX_LENGTH} characters without control characters`);
    }
    return t.success(name as t.Branded<string, CompanyNameBrand>);
  },
  String,
);
export type CompanyName = t.TypeOf<typeof CompanyName>;
