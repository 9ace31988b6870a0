import * as E from 'fp-ts/lib/Either.js';

/** A `Content-Type` value: its type and subtype in lower case, each parameter's values in the order given. */
export interface MediaType {
  readonly type: string;
  /** Parameter names in lower case; a name given twice keeps both values. */
  readonly parameters: ReadonlyMap<string, readonly string[]>;
}

const OWS = /[ \t]*/y;
const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;
// qdtext and quoted-pair of RFC 9110 §5.6.4 (obs-text as Latin-1, as Node gives header values).
const QUOTED_STRING = /"((?:[\t \x21\x23-\x5B\x5D-\x7E\x80-\xFF]|\\[\t \x21-\x7E\x80-\xFF])*)"/y;
const QUOTED_PAIR = /\\([\t \x21-\x7E\x80-\xFF])/g;

/** Matches `pattern` at `at` in `text`: the match, or null. */
const matchAt = (pattern: RegExp, text: string, at: number): RegExpExecArray | null => {
  pattern.lastIndex = at;
  return pattern.exec(text);
};

const skipOws = (text: string, at: number): number => at + matchAt(OWS, text, at)![0].length;

const shown = (text: string, at: number): string => (at >= text.length ? 'the end' : JSON.stringify(text.slice(at, at + 12)));

/**
 * Parses a `Content-Type` value by the grammar of RFC 9110 (§8.3.1, §5.6.6), exactly:
 *
 *     media-type = type "/" subtype parameters
 *     parameters = *( OWS ";" OWS [ parameter ] )
 *     parameter  = parameter-name "=" parameter-value
 *     parameter-value = token / quoted-string
 *
 * So `application/json;` and `application/json;;` are well formed (empty parameters),
 * while `application/json; foo`, `application/json; charset` and whitespace around
 * `=` are not. Type, subtype and parameter names are case-insensitive (given back in
 * lower case); parameter values are given back as sent, unquoted. Left: what is wrong,
 * as a phrase for an error message.
 */
export const parseMediaType = (header: string): E.Either<string, MediaType> => {
  let at = skipOws(header, 0);
  const type = matchAt(TOKEN, header, at);
  const subtype = type && header[at + type[0].length] === '/' ? matchAt(TOKEN, header, at + type[0].length + 1) : null;
  if (!type || !subtype) return E.left('it does not start with a media type such as application/json');
  at = subtype.index + subtype[0].length;
  const parameters = new Map<string, string[]>();
  for (;;) {
    at = skipOws(header, at);
    if (at >= header.length) break;
    if (header[at] !== ';') return E.left(`${shown(header, at)} follows the media type where ";" or the end was expected`);
    at = skipOws(header, at + 1);
    // An empty parameter: allowed by RFC 9110's `[ parameter ]`.
    if (at >= header.length || header[at] === ';') continue;
    const name = matchAt(TOKEN, header, at);
    if (!name) return E.left(`a parameter starts with ${shown(header, at)}, which is not a parameter name`);
    at += name[0].length;
    const key = name[0].toLowerCase();
    if (header[at] !== '=') return E.left(`the parameter ${JSON.stringify(name[0])} has no "=value" (no space is allowed around "=")`);
    at += 1;
    const quoted = matchAt(QUOTED_STRING, header, at);
    const token = quoted ? null : matchAt(TOKEN, header, at);
    if (!quoted && !token) return E.left(`the parameter ${JSON.stringify(name[0])} has no valid value (a token or a "quoted string")`);
    const value = quoted ? quoted[1]!.replace(QUOTED_PAIR, '$1') : token![0];
    at += (quoted ?? token)![0].length;
    parameters.set(key, [...(parameters.get(key) ?? []), value]);
  }
  return E.right({ type: `${type[0]}/${subtype[0]}`.toLowerCase(), parameters });
};
