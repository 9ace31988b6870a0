import type * as t from 'io-ts';

/**
 * A dotted field path from an io-ts context. Intersection and union members show
 * up as numeric keys over the same value; only array indexes are kept.
 */
const pathOf = (context: t.Context): string => {
  const keys: string[] = [];
  context.forEach((entry, i) => {
    if (i === 0 || entry.key === '') return;
    const isIndex = /^\d+$/.test(entry.key);
    if (!isIndex || Array.isArray(context[i - 1]?.actual)) keys.push(entry.key);
  });
  return keys.join('.');
};

/** The message a codec gave, or a generic one naming the expected type. */
const messageOf = (error: t.ValidationError): string => {
  if (error.message) return error.message;
  const last = error.context[error.context.length - 1];
  if (error.value === undefined) return 'is required';
  return `must be ${last?.type.name ?? 'valid'}`;
};

/**
 * The one validation reporter: turns io-ts errors into `{field: message}`
 * (the first message per field wins; `(root)` for the value itself).
 */
export const formatValidationErrors = (errors: t.Errors): Record<string, string> => {
  const details: Record<string, string> = {};
  for (const error of errors) {
    const field = pathOf(error.context) || '(root)';
    if (!(field in details)) details[field] = messageOf(error);
  }
  return details;
};
