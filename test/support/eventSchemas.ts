import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as t from 'io-ts';
import { STORED_EVENT_TYPES } from '../../src/features/index.js';

/** The committed snapshot of every stored event type's schema per version (test/fixtures/event-schemas.json). */
export const EVENT_SCHEMAS_FILE = fileURLToPath(new URL('../../../test/fixtures/event-schemas.json', import.meta.url));

/** The command that rewrites the snapshot from the code. */
export const UPDATE_EVENT_SCHEMAS = 'npm run event-schemas:update';

/** `{type: {version: schema}}`: the io-ts codec's structural name of each version of each type. */
export type EventSchemas = Record<string, Record<string, string>>;

/**
 * A codec's structure as text, like io-ts's own names but with every named
 * codec opened up (`t.keyof(…, 'AgentStatus')` shows its keys), so that a change
 * anywhere inside an event's codec changes its schema. A codec of a kind not
 * listed here (a hand-written `t.Type`) shows as `<its name>`: its own code is
 * what decides then, and a change to that code needs a new version as well.
 */
export const schemaOf = (codec: t.Mixed): string => {
  const props = (of: t.Props): string =>
    `{ ${Object.entries(of)
      .map(([key, inner]) => `${key}: ${schemaOf(inner as t.Mixed)}`)
      .join(', ')} }`;
  if (codec instanceof t.InterfaceType) return props(codec.props as t.Props);
  if (codec instanceof t.PartialType) return `Partial<${props(codec.props as t.Props)}>`;
  if (codec instanceof t.ExactType || codec instanceof t.ReadonlyType) return schemaOf(codec.type as t.Mixed);
  if (codec instanceof t.IntersectionType) return `(${(codec.types as t.Mixed[]).map(schemaOf).join(' & ')})`;
  if (codec instanceof t.UnionType) return `(${(codec.types as t.Mixed[]).map(schemaOf).join(' | ')})`;
  if (codec instanceof t.ArrayType || codec instanceof t.ReadonlyArrayType) return `Array<${schemaOf(codec.type as t.Mixed)}>`;
  if (codec instanceof t.TupleType) return `[${(codec.types as t.Mixed[]).map(schemaOf).join(', ')}]`;
  if (codec instanceof t.DictionaryType) return `Record<${schemaOf(codec.domain as t.Mixed)}, ${schemaOf(codec.codomain as t.Mixed)}>`;
  if (codec instanceof t.RefinementType) return `Refinement<${schemaOf(codec.type as t.Mixed)}, ${codec.name}>`;
  if (codec instanceof t.KeyofType) return Object.keys(codec.keys as object).map((key) => JSON.stringify(key)).join(' | ');
  if (codec instanceof t.LiteralType) return JSON.stringify(codec.value);
  if (
    codec instanceof t.StringType ||
    codec instanceof t.NumberType ||
    codec instanceof t.BooleanType ||
    codec instanceof t.NullType ||
    codec instanceof t.UndefinedType ||
    codec instanceof t.UnknownType
  ) {
    return codec.name;
  }
  return `<${codec.name}>`;
};

export const currentEventSchemas = (): EventSchemas =>
  Object.fromEntries(
    [...STORED_EVENT_TYPES.values()]
      .sort((a, b) => a.type.localeCompare(b.type))
      .map((type) => [type.type, Object.fromEntries(type.versions.map((codec, i) => [String(i + 1), schemaOf(codec)]))]),
  );

export const committedEventSchemas = (): EventSchemas => JSON.parse(readFileSync(EVENT_SCHEMAS_FILE, 'utf8')) as EventSchemas;

export const writeEventSchemas = (): void => {
  writeFileSync(EVENT_SCHEMAS_FILE, `${JSON.stringify(currentEventSchemas(), null, 2)}\n`);
};
