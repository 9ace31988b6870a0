/** One field on which the log and a read-model document disagree. */
export interface FieldDifference {
  /** Dotted path, e.g. `name` or `contact.email`. */
  readonly field: string;
  /** What folding the log gives (undefined: the log has no value there). */
  readonly log: unknown;
  /** What the document holds (undefined: the document has no such field). */
  readonly readModel: unknown;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Equality of JSON values (what a read model can store): arrays in order, objects by key. */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && sameJson(a[key], b[key]));
  }
  return false;
};

/**
 * The fields of `expected` (what the log says) whose value in `actual` (the
 * document) differs, one entry per leaf: nested objects on both sides are
 * compared field by field, anything else (arrays included) as a whole. Fields
 * only the document has are not looked at: a read model may carry more than an
 * aggregate's state (and every check passes exactly the fields both carry).
 */
export const compareFields = (expected: Record<string, unknown>, actual: Record<string, unknown>, prefix = ''): FieldDifference[] => {
  const differences: FieldDifference[] = [];
  for (const [key, log] of Object.entries(expected)) {
    const field = prefix + key;
    const readModel = Object.prototype.hasOwnProperty.call(actual, key) ? actual[key] : undefined;
    if (isPlainObject(log) && isPlainObject(readModel)) differences.push(...compareFields(log, readModel, `${field}.`));
    else if (!sameJson(log, readModel)) differences.push({ field, log, readModel });
  }
  return differences;
};
