/** A statement and the values of its `$n` placeholders. */
export interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** A scalar as the text PostgreSQL reads it (what `pg` would send as the parameter). */
const scalarText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  throw new Error(`Cannot write ${typeof value} into a statement`);
};

/** An array as PostgreSQL's array literal: every element quoted (its `\` and `"` escaped), `NULL` unquoted. */
const arrayText = (values: readonly unknown[]): string =>
  `{${values
    .map((value) =>
      value === null || value === undefined
        ? 'NULL'
        : Array.isArray(value)
          ? arrayText(value)
          : `"${scalarText(value).replace(/[\\"]/g, '\\$&')}"`,
    )
    .join(',')}}`;

const literal = (value: unknown): string => {
  if (value === null || value === undefined) return 'NULL';
  const text = Array.isArray(value) ? arrayText(value) : scalarText(value);
  // A simple query's text ends at NUL (and PostgreSQL's text cannot hold one): the stores make texts storable first.
  if (text.includes('\u0000')) throw new Error('Cannot write NUL into a statement');
  // As `pg.escapeLiteral` writes it (an `E''` literal when it holds a backslash), with the engine's replace rather than a loop.
  const body = text.replace(/'/g, "''");
  return text.includes('\\') ? ` E'${body.replace(/\\/g, '\\\\')}'` : `'${body}'`;
};

/**
 * The statement with its values written in as literals (untyped, as a parameter is:
 * the statement's casts type them), so that it can go in one simple query with
 * others, one round trip. Only this project's own statement texts are inlined: a
 * placeholder inside a quoted literal or identifier is left alone, and the texts
 * hold no dollar-quoted strings.
 */
export const inlined = ({ text, values }: Statement): string =>
  text.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g, (match: string, n: string | undefined) => {
    if (n === undefined) return match;
    const index = Number(n) - 1;
    if (index >= values.length) throw new Error(`No value for $${n} in a statement of ${values.length}`);
    return literal(values[index]);
  });
