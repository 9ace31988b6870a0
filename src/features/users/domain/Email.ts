import * as t from 'io-ts';

interface EmailBrand {
  readonly Email: unique symbol;
}

/**
 * A practical email check (not RFC 5322's full grammar, which admits addresses no
 * mail system delivers to): one `@`, a local part without spaces, a domain of
 * dot-separated labels with a top-level label of at least two letters; at most
 * 254 characters. The input is trimmed and the domain lower-cased.
 */
const EMAIL = /^[^\s@"(),:;<>[\\\]]{1,64}@(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const Email = new t.Type<t.Branded<string, EmailBrand>, string, unknown>(
  'Email',
  (u): u is t.Branded<string, EmailBrand> => typeof u === 'string' && u.length <= 254 && EMAIL.test(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be an email address');
    const trimmed = u.trim();
    if (trimmed.length > 254 || !EMAIL.test(trimmed)) return t.failure(u, c, 'must be an email address');
    const at = trimmed.lastIndexOf('@');
    return t.success(`${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}` as t.Branded<string, EmailBrand>);
  },
  String,
);
export type Email = t.TypeOf<typeof Email>;
