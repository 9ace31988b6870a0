import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import type { FieldsDeclaration, SubjectKind } from '../../shared/PersonalData.js';
import { subjectOf } from './SubjectKeys.js';

/*
 * Sealing the personal fields of one event's data (crypto-shredding). For each
 * group of a declaration (one subject's fields), the values present are taken out
 * of the data (each set to null) and kept, as JSON, encrypted with the subject's
 * key, in `data.sealed`. Unsealing puts them back; when the subject's key is gone
 * (erased), the fields stay null and are listed as erased.
 *
 * `data.sealed` holds one entry per subject, named by the path of the subject's
 * id (`contactId`, `deal.contact.id`): the subject's values, as JSON by path,
 * sealed. A sealed value: `pd1:<base64url of nonce ‖ ciphertext ‖ tag>`, AES-256-GCM under
 * a random 96-bit nonce, with the subject and the event's id as associated data
 * (a value copied to another event or subject does not open).
 */

/** The field of an event's data that holds its sealed values, by the path of their subject's id. */
export const SEALED_FIELD = 'sealed';
const V1 = 'pd1:';
const CIPHER = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The path holding a declared field's value: an array's items (`tags[]`) are kept with their array (`tags`). */
const holderOf = (path: string): string => path.replace(/\[\].*$/, '');

const valueAtParts = (data: unknown, parts: readonly string[]): unknown => {
  let at: unknown = data;
  for (const part of parts) {
    if (!isObject(at)) return undefined;
    at = at[part];
  }
  return at;
};

/**
 * Sets `path` in `data` to `value`, when every object above it exists, copying each
 * object along the path once (`copied` holds those already copied; `data` itself is).
 * `onlyIfPresent`: leaves a missing last field missing.
 */
const setAt = (data: JsonObject, parts: readonly string[], value: Json, copied: Set<JsonObject>, onlyIfPresent: boolean): void => {
  let at = data;
  for (let index = 0; index < parts.length - 1; index++) {
    const part = parts[index]!;
    const inner = at[part];
    if (!isObject(inner)) return;
    let own = inner;
    if (!copied.has(inner)) {
      own = { ...inner };
      copied.add(own);
      at[part] = own;
    }
    at = own;
  }
  const last = parts[parts.length - 1]!;
  if (!onlyIfPresent || last in at) at[last] = value;
};

interface CompiledGroup {
  readonly kind: SubjectKind;
  readonly idAt: readonly string[];
  /** The holders of its values: each path, and its parts. */
  readonly paths: ReadonlyArray<{ readonly path: string; readonly parts: readonly string[] }>;
}

/** A declaration's groups with their paths split once (declarations live as long as the process). */
const compiled = new WeakMap<FieldsDeclaration, readonly CompiledGroup[]>();
const compile = (declaration: FieldsDeclaration): readonly CompiledGroup[] => {
  let groups = compiled.get(declaration);
  if (!groups) {
    groups = declaration.personal.map((group) => ({
      kind: group.subject,
      idAt: group.idAt.split('.'),
      paths: [...new Set(group.fields.map(holderOf))].map((path) => ({ path, parts: path.split('.') })),
    }));
    compiled.set(declaration, groups);
  }
  return groups;
};

interface Group {
  readonly subject: string;
  /** Its entry's name in `sealed`: the path of its subject's id (its first group's, when several name the same subject). */
  readonly entry: string;
  readonly paths: ReadonlyArray<{ readonly path: string; readonly parts: readonly string[] }>;
}

/** The subjects and the paths of their values in `data` (a group whose subject id is absent or null has none). */
const groupsIn = (data: unknown, declaration: FieldsDeclaration): Group[] => {
  const groups: Group[] = [];
  for (const group of compile(declaration)) {
    const id = valueAtParts(data, group.idAt);
    if (typeof id !== 'string') continue;
    const subject = subjectOf(group.kind, id);
    const same = groups.findIndex((candidate) => candidate.subject === subject);
    if (same < 0) groups.push({ subject, entry: group.idAt.join('.'), paths: group.paths });
    else {
      const known = new Set(groups[same]!.paths.map(({ path }) => path));
      groups[same] = { ...groups[same]!, paths: [...groups[same]!.paths, ...group.paths.filter(({ path }) => !known.has(path))] };
    }
  }
  return groups;
};

/** The subjects whose keys sealing or unsealing `data` needs. */
export const subjectsIn = (data: unknown, declaration: FieldsDeclaration): string[] => groupsIn(data, declaration).map((group) => group.subject);

const associatedData = (subject: string, eventId: string): Buffer => Buffer.from(`${V1}${subject}:${eventId}`, 'utf8');

/** Random bytes drawn a pool at a time: one call to the system's generator per 340 nonces instead of one each. */
const NONCE_POOL = Buffer.alloc(NONCE_BYTES * 340);
let noncePoolAt = NONCE_POOL.length;
const nextNonce = (): Buffer => {
  if (noncePoolAt + NONCE_BYTES > NONCE_POOL.length) {
    randomFillSync(NONCE_POOL);
    noncePoolAt = 0;
  }
  const nonce = Buffer.from(NONCE_POOL.subarray(noncePoolAt, noncePoolAt + NONCE_BYTES));
  noncePoolAt += NONCE_BYTES;
  return nonce;
};

const seal = (key: Buffer, subject: string, eventId: string, values: JsonObject): string => {
  const nonce = nextNonce();
  const cipher = createCipheriv(CIPHER, key, nonce);
  cipher.setAAD(associatedData(subject, eventId));
  const sealed = Buffer.concat([nonce, cipher.update(JSON.stringify(values), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${V1}${sealed.toString('base64url')}`;
};

const open = (key: Buffer, subject: string, eventId: string, sealed: string): JsonObject => {
  if (!sealed.startsWith(V1)) throw new Error(`a sealed value of ${subject} in event ${eventId} is in a format this release does not know`);
  const bytes = Buffer.from(sealed.slice(V1.length), 'base64url');
  if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new Error(`a sealed value of ${subject} in event ${eventId} is truncated`);
  const decipher = createDecipheriv(CIPHER, key, bytes.subarray(0, NONCE_BYTES));
  decipher.setAAD(associatedData(subject, eventId));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  const plain = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  const values: unknown = JSON.parse(plain);
  if (!isObject(values)) throw new Error(`a sealed value of ${subject} in event ${eventId} holds no fields`);
  return values;
};

/**
 * `data` with the personal fields of each subject sealed under its key (`keys`):
 * each present value taken out (null in its place) and kept encrypted in
 * `data.sealed`. A subject without a key (erased) keeps nothing: its values are
 * dropped, never stored in the clear.
 */
export const sealPersonalFields = (
  eventId: string,
  data: unknown,
  declaration: FieldsDeclaration,
  keys: ReadonlyMap<string, Buffer>,
): unknown => {
  if (!isObject(data)) return data;
  // Copied once along the paths it changes (the caller's data is never changed).
  const sealedData: JsonObject = { ...data };
  const copied = new Set<JsonObject>([sealedData]);
  let sealed: JsonObject | null = null;
  for (const { subject, entry, paths } of groupsIn(data, declaration)) {
    const values: JsonObject = {};
    let any = false;
    for (const { path, parts } of paths) {
      const value = valueAtParts(data, parts);
      if (value === undefined || value === null) continue;
      values[path] = value as Json;
      any = true;
      setAt(sealedData, parts, null, copied, true);
    }
    const key = keys.get(subject);
    if (key && any) (sealed ??= {})[entry] = seal(key, subject, eventId, values);
  }
  if (sealed) sealedData[SEALED_FIELD] = sealed;
  return sealedData;
};

/** Data as read: the sealed values put back, and the paths that stayed null because their subject's key is gone. */
export interface UnsealedData {
  readonly data: unknown;
  readonly erasedFields: readonly string[];
}

/** The groups of `data` that have sealed values (`data.sealed`, by entry), with each value; throws on an entry its declaration does not have. */
const sealedGroupsIn = (eventId: string, data: JsonObject, sealedByEntry: JsonObject, declaration: FieldsDeclaration): Array<Group & { readonly value: string }> => {
  const groups = groupsIn(data, declaration);
  return Object.entries(sealedByEntry).map(([entry, value]) => {
    const group = groups.find((candidate) => candidate.entry === entry);
    if (!group || typeof value !== 'string') throw new Error(`event ${eventId} holds a sealed value (${entry}) its type does not declare`);
    return { ...group, value };
  });
};

/**
 * `data` (sealed by `sealPersonalFields` with `declaration`) with every value put
 * back whose subject still has a key (`keys`); the values of a subject without one
 * stay null, and the subject's fields that are there (null) are `erasedFields`. Data
 * without `sealed` is returned as it is. Throws when a sealed value does not open
 * with its subject's key (altered, or moved from another event): never a wrong value.
 */
export const unsealPersonalFields = (
  eventId: string,
  data: unknown,
  declaration: FieldsDeclaration,
  keys: ReadonlyMap<string, Buffer>,
): UnsealedData => {
  if (!isObject(data) || !isObject(data[SEALED_FIELD])) return { data, erasedFields: [] };
  const { [SEALED_FIELD]: sealedByEntry, ...opened } = data as JsonObject & { [SEALED_FIELD]: JsonObject };
  const copied = new Set<JsonObject>([opened]);
  const erasedFields: string[] = [];
  for (const { subject, paths, value } of sealedGroupsIn(eventId, opened, sealedByEntry, declaration)) {
    const key = keys.get(subject);
    if (!key) {
      for (const { path, parts } of paths) if (valueAtParts(opened, parts) === null) erasedFields.push(path);
      continue;
    }
    for (const [path, fieldValue] of Object.entries(open(key, subject, eventId, value))) setAt(opened, path.split('.'), fieldValue, copied, false);
  }
  return { data: opened, erasedFields };
};

/** The subjects whose values `data` holds sealed (the keys unsealing needs). */
export const sealedSubjectsIn = (data: unknown, declaration: FieldsDeclaration): string[] => {
  if (!isObject(data) || !isObject(data[SEALED_FIELD])) return [];
  const entries = new Set(Object.keys(data[SEALED_FIELD]));
  return groupsIn(data, declaration)
    .filter((group) => entries.has(group.entry))
    .map((group) => group.subject);
};

/**
 * Plain data (a read model's document, a delivery's body, a kept response) with the
 * values of one subject set to null wherever `declaration` holds them: each group
 * whose id path holds that subject's id. Other subjects' values stay; the caller's
 * data is not changed. Also answers the paths it set to null (those present and not
 * null before): none when the data holds nothing of the subject.
 */
export const erasePersonalFields = (
  data: unknown,
  declaration: FieldsDeclaration,
  subject: { readonly kind: SubjectKind; readonly id: string },
): { readonly data: unknown; readonly erased: readonly string[] } => {
  if (!isObject(data)) return { data, erased: [] };
  const erasedData: JsonObject = { ...data };
  const copied = new Set<JsonObject>([erasedData]);
  const erased: string[] = [];
  for (const group of compile(declaration)) {
    if (group.kind !== subject.kind || valueAtParts(data, group.idAt) !== subject.id) continue;
    for (const { path, parts } of group.paths) {
      const value = valueAtParts(erasedData, parts);
      if (value === undefined || value === null) continue;
      setAt(erasedData, parts, null, copied, true);
      erased.push(path);
    }
  }
  return erased.length === 0 ? { data, erased } : { data: erasedData, erased };
};
