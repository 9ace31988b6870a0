/** A key of a parsed JSON body that could reach an object's prototype, and where it was. */
export interface ForbiddenKey {
  /** `__proto__`, or `constructor.prototype`. */
  readonly key: string;
  /** Where, from the body's top: `a.b[2].__proto__` (shortened at the front when long). */
  readonly path: string;
}

// The spellings JSON allows for the two names, escapes included (`"\u005f_proto__"` is `__proto__`).
const SUSPECT =
  /(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])|(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)/;

const MAX_PATH = 200;

/** A node met while walking: its value, and how it was reached (kept as links, so a deep body costs no long strings). */
interface Step {
  readonly value: unknown;
  readonly key: string | number | null;
  readonly parent: Step | null;
}

const pathOf = (step: Step, last: string): string => {
  const keys: (string | number)[] = [last];
  for (let at: Step | null = step; at !== null && at.key !== null; at = at.parent) keys.push(at.key);
  const path = keys
    .reverse()
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`))
    .join('');
  return path.length > MAX_PATH ? `…${path.slice(path.length - MAX_PATH)}` : path;
};

/**
 * The first key of a body (`JSON.parse`d: such keys are plain own properties there)
 * that would reach a prototype once the body is merged or assigned into another
 * object: `__proto__` at any depth, and `constructor` holding an object with a
 * `prototype` key (the same keys the parser refused before: the body stays refused,
 * now with its key named). Null when there is none. The walk is iterative (bodies
 * nest deeply) and only runs when the raw text mentions one of the names.
 */
export const forbiddenKeyOf = (body: unknown, rawText: string): ForbiddenKey | null => {
  if (!SUSPECT.test(rawText)) return null;
  const pending: Step[] = [{ value: body, key: null, parent: null }];
  while (pending.length > 0) {
    const step = pending.pop()!;
    const { value } = step;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      // Pushed last first: the first key in the body's order is the one named.
      for (let index = value.length - 1; index >= 0; index--) pending.push({ value: value[index], key: index, parent: step });
      continue;
    }
    if (Object.hasOwn(value, '__proto__')) return { key: '__proto__', path: pathOf(step, '__proto__') };
    const ctor = (value as Record<string, unknown>).constructor;
    if (Object.hasOwn(value, 'constructor') && typeof ctor === 'object' && ctor !== null && Object.hasOwn(ctor, 'prototype')) {
      return { key: 'constructor.prototype', path: pathOf(step, 'constructor.prototype') };
    }
    const entries = Object.entries(value);
    for (let index = entries.length - 1; index >= 0; index--) pending.push({ value: entries[index]![1], key: entries[index]![0], parent: step });
  }
  return null;
};
