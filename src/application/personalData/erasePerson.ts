import type { SubjectKind } from '../../shared/PersonalData.js';

/** Whose values an erasure takes out: a kind of person and their id. */
export interface ErasedPerson {
  readonly kind: SubjectKind;
  readonly id: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (value: unknown): value is { [key: string]: Json } => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSON value kept whole (a delivery's body, a kept response) with the person's
 * values set to null: in every object, at any depth, whose `id` is the person's,
 * each of `fields` (the kind's, `personFieldNames`) that holds a value. The value
 * given is not changed; `erased` counts the values set to null.
 */
export const erasePersonFrom = (value: unknown, person: ErasedPerson, fields: ReadonlySet<string>): { readonly value: unknown; readonly erased: number } => {
  let erased = 0;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      let changed = false;
      const items = node.map((item) => {
        const next = walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? items : node;
    }
    if (!isObject(node)) return node;
    let copy: { [key: string]: unknown } | null = null;
    const own = node.id === person.id;
    for (const [key, inner] of Object.entries(node)) {
      const next = own && fields.has(key) && inner !== null && inner !== undefined ? null : walk(inner);
      if (next === inner) continue;
      if (own && next === null && fields.has(key)) erased++;
      copy ??= { ...node };
      copy[key] = next;
    }
    return copy ?? node;
  };
  const result = walk(value);
  return { value: result, erased };
};

/** `erasePersonFrom` on JSON text (a delivery's body): the text unchanged, byte for byte, when it held nothing of the person. */
export const erasePersonFromText = (text: string, person: ErasedPerson, fields: ReadonlySet<string>): string => {
  const { value, erased } = erasePersonFrom(JSON.parse(text) as unknown, person, fields);
  return erased === 0 ? text : JSON.stringify(value);
};
