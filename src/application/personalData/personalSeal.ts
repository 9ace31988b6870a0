import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { FieldsDeclaration, SubjectKind } from '../../shared/PersonalData.js';
import { subjectOf } from './SubjectKeys.js';

/*
 * Sealing the personal fields of one event's data (crypto-shredding). For each
 * group of a declaration (one subject's fields), the values present are taken out
 * of the data (each set to null) and kept, as JSON, encrypted with the subject's
 * key, in `data.sealed[<subject>]`. Unsealing puts them back; when the subject's
 * key is gone (erased), the fields stay null and are listed as erased.
 *
 * A sealed value: `pd1:<base64url of nonce ‖ ciphertext ‖ tag>`, AES-256-GCM under
 * a random 96-bit nonce, with the subject and the event's id as associated data
 * (a value copied to another event or subject does not open).
 */

/** The field of an event's data that holds its sealed values, by subject. */
export const SEALED_FIELD = 'sealed';
const V1 = 'pd1:';
const CIPHER = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The path holding a declared field's value: an array's items (`tags[]`) are kept with their array (`tags`). */
const holderOf = (path: string): string => path.replace(/\[\]$/, '').replace(/\[\].*$/, '');

const valueAt = (data: unknown, path: string): unknown => {
  let at: unknown = data;
  for (const part of path.split('.')) {
    if (!isObject(at)) return undefined;
    at = at[part];
  }
  return at;
};

/** Sets `path` in `data` (a copy along the path), when every object above it exists. */
const withValueAt = (data: JsonObject, path: string, value: Json): JsonObject => {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  if (rest.length === 0) return head in data ? { ...data, [head]: value } : data;
  const inner = data[head];
  return isObject(inner) ? { ...data, [head]: withValueAt(inner, rest.join('.'), value) } : data;
};

interface Group {
  readonly subject: string;
  readonly paths: readonly string[];
}

/** The subjects and the paths of their values in `data` (a group whose subject id is absent or null has none). */
const groupsIn = (data: unknown, declaration: FieldsDeclaration): Group[] => {
  const groups: Group[] = [];
  for (const group of declaration.personal) {
    const id = valueAt(data, group.idAt);
    if (typeof id !== 'string') continue;
    const subject = subjectOf(group.subject as SubjectKind, id);
    const paths = [...new Set(group.fields.map(holderOf))];
    const same = groups.find((candidate) => candidate.subject === subject);
    if (same) groups[groups.indexOf(same)] = { subject, paths: [...new Set([...same.paths, ...paths])] };
    else groups.push({ subject, paths });
  }
  return groups;
};

/** The subjects whose keys sealing or unsealing `data` needs. */
export const subjectsIn = (data: unknown, declaration: FieldsDeclaration): string[] => groupsIn(data, declaration).map((group) => group.subject);

const associatedData = (subject: string, eventId: string): Buffer => Buffer.from(`${V1}${subject}:${eventId}`, 'utf8');

const seal = (key: Buffer, subject: string, eventId: string, values: JsonObject): string => {
  const nonce = randomBytes(NONCE_BYTES);
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
  let sealedData: JsonObject = data;
  const sealed: JsonObject = {};
  for (const { subject, paths } of groupsIn(data, declaration)) {
    const values: JsonObject = {};
    for (const path of paths) {
      const value = valueAt(sealedData, path);
      if (value === undefined || value === null) continue;
      values[path] = value as Json;
      sealedData = withValueAt(sealedData, path, null);
    }
    const key = keys.get(subject);
    const fields = Object.keys(values);
    if (key && fields.length > 0) sealed[subject] = { fields, value: seal(key, subject, eventId, values) };
  }
  return Object.keys(sealed).length === 0 ? sealedData : { ...sealedData, [SEALED_FIELD]: sealed };
};

/** Data as read: the sealed values put back, and the paths that stayed null because their subject's key is gone. */
export interface UnsealedData {
  readonly data: unknown;
  readonly erasedFields: readonly string[];
}

/**
 * `data` (sealed by `sealPersonalFields`) with every value put back whose
 * subject still has a key (`keys`); the values of a subject without one stay null,
 * and their paths are `erasedFields`. Data without `sealed` is returned as it is.
 * Throws when a sealed value does not open with its subject's key (altered, or
 * moved from another event): never a wrong value.
 */
export const unsealPersonalFields = (eventId: string, data: unknown, keys: ReadonlyMap<string, Buffer>): UnsealedData => {
  if (!isObject(data) || !isObject(data[SEALED_FIELD])) return { data, erasedFields: [] };
  const { [SEALED_FIELD]: sealedBySubject, ...rest } = data as JsonObject & { [SEALED_FIELD]: JsonObject };
  let opened: JsonObject = rest;
  const erasedFields: string[] = [];
  for (const [subject, sealed] of Object.entries(sealedBySubject)) {
    const fields = isObject(sealed) && Array.isArray(sealed.fields) ? sealed.fields.filter((field): field is string => typeof field === 'string') : null;
    if (!isObject(sealed) || fields === null || typeof sealed.value !== 'string') {
      throw new Error(`the sealed values of ${subject} in event ${eventId} are not {fields, value}`);
    }
    const key = keys.get(subject);
    if (!key) {
      erasedFields.push(...fields);
      continue;
    }
    for (const [path, value] of Object.entries(open(key, subject, eventId, sealed.value))) opened = withValueAt(opened, path, value);
  }
  return { data: opened, erasedFields };
};

/** The subjects whose values `data` holds sealed (the keys unsealing needs). */
export const sealedSubjectsIn = (data: unknown): string[] =>
  isObject(data) && isObject(data[SEALED_FIELD]) ? Object.keys(data[SEALED_FIELD]) : [];
