import fc from 'fast-check';
import { resolvePointer } from './openApi.js';

/**
 * fast-check arbitraries from the OpenAPI document's JSON Schemas: values that
 * mostly follow a schema (so requests reach the handlers and the 2xx paths), each
 * of which may have any part replaced by an arbitrary JSON value (so every
 * validation path is exercised too). `named` supplies values for properties by
 * name (real ids of the test's records, so that lookups hit as well as miss).
 */
export type Named = Readonly<Record<string, fc.Arbitrary<unknown>>>;

type Schema = Record<string, unknown>;

/** Any JSON value, small. */
export const junk: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });

/** Strings that tend to break parsers, trimmers and length checks. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '\t\n', '   padded   ', '%zz', '../..', '<script>', '\ud800', 'null', '1e309', '-0', '9007199254740993'),
  fc.string({ minLength: 256, maxLength: 300 }),
);

const iso = fc.date({ min: new Date('1970-01-01T00:00:00.000Z'), max: new Date('2100-01-01T00:00:00.000Z'), noInvalidDate: true });

const stringFor = (schema: Schema): fc.Arbitrary<string> => {
  switch (schema.format) {
    case 'date-time':
      return iso.map((d) => d.toISOString());
    case 'date':
      return iso.map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
      // Public-looking hosts only (resolved by the test's stand-in resolver; nothing is ever sent).
      return fc.oneof(
        fc.webUrl({ validSchemes: ['https', 'http'] }),
        fc.constantFrom('https://hooks.example.com/chronicle', 'http://127.0.0.1/x', 'ftp://example.com/', 'https://user:pw@example.com/'),
      );
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern as string), { size: 'xsmall' });
    } catch {
      // fall through to a plain string
    }
  }
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, minLength + 60) : minLength + 40;
  return fc.string({ minLength, maxLength });
};

const numberFor = (schema: Schema, integer: boolean): fc.Arbitrary<number> => {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 1e6;
  return integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
};

const typed = (type: string, schema: Schema, named: Named): fc.Arbitrary<unknown> => {
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 5, 5);
      const minLength = Math.min(typeof schema.minItems === 'number' ? schema.minItems : 0, maxLength);
      return fc.array(valueFor(items, named), { minLength, maxLength });
    }
    case 'object': {
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) {
        shape[name] = named[name] ? fc.oneof(named[name]!, valueFor(property, named)) : valueFor(property, named);
      }
      const requiredKeys = Object.keys(shape).filter((k) => required.has(k));
      return fc.record(shape, { requiredKeys });
    }
    default:
      return junk;
  }
};

/** Values following `schema` (resolving `$ref`s into the OpenAPI document), most of the time. */
export const valueFor = (schema: Schema, named: Named = {}): fc.Arbitrary<unknown> => {
  if (typeof schema.$ref === 'string') {
    const target = resolvePointer(schema.$ref) as Schema | undefined;
    return target ? valueFor(target, named) : junk;
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (alternatives && alternatives.length > 0) {
    // A sibling `type`/`format` applies to every alternative (`{type: 'string', anyOf: [{format}, …]}`).
    const { oneOf: _o, anyOf: _a, ...rest } = schema;
    return fc.oneof(...alternatives.map((alternative) => valueFor({ ...rest, ...alternative }, named)));
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? typed('object', schema, named) : junk;
  return fc.oneof(...types.map((type) => typed(type, schema, named)));
};

/** A value of `schema`, or (sometimes) one with a part replaced by junk, or junk altogether. */
export const fuzzedValueFor = (schema: Schema, named: Named = {}): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 5, arbitrary: valueFor(schema, named) },
    {
      weight: 3,
      arbitrary: fc.tuple(valueFor(schema, named), fc.string({ maxLength: 20 }), fc.oneof(junk, nastyString)).map(([value, key, replacement]) => {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return replacement;
        const keys = Object.keys(value);
        const target = keys.length > 0 && key.length % 2 === 0 ? keys[key.length % keys.length]! : key;
        return { ...(value as object), [target]: replacement };
      }),
    },
    { weight: 1, arbitrary: junk },
  );

/** A query-string or header value: a schema value as text, or a nasty string. */
export const textFor = (schema: Schema, named: Named = {}): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: valueFor(schema, named).map((v) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '')) },
    { weight: 1, arbitrary: nastyString },
  );
