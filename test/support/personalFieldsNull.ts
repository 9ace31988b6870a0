import { expect } from 'chai';
import { join } from 'node:path';
import type * as t from 'io-ts';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { UpcastingEventStore } from '../../src/application/versioning/UpcastingEventStore.js';
import { STORED_EVENT_TYPES } from '../../src/features/index.js';
import type { FieldsDeclaration } from '../../src/shared/PersonalData.js';
import { newId } from '../../src/shared/ids.js';
import { tempDir } from './tempStore.js';

/*
 * The versions that let a stored event's personal fields be null (read as null
 * once their person is erased): what each new version accepts and refuses beside
 * the one before it, and how the one before it reads through the versioning
 * decorator.
 */

type Json = { [key: string]: unknown };
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The path that holds a declared field's value: an array's items (`tags[]`) are held by their array (`tags`), as sealing holds them. */
const holderOf = (path: string): string => path.replace(/\[\].*$/, '');

/** `data` with the value at the dotted `path` null (the objects along it copied); null when the path is not in `data`. */
export const withNullAt = (data: unknown, path: string): unknown => {
  const [head, ...rest] = path.split('.');
  if (!isObject(data) || !(head! in data)) return null;
  if (rest.length === 0) return { ...data, [head!]: null };
  const inner = withNullAt(data[head!], rest.join('.'));
  return inner === null ? null : { ...data, [head!]: inner };
};

/** Every holder of a personal field of `declaration`, once each. */
export const personalHolders = (declaration: FieldsDeclaration): string[] => [
  ...new Set(declaration.personal.flatMap((group) => group.fields.map(holderOf))),
];

/** `data` with every personal field of `declaration` that it has null: what an erased person's event reads as. */
export const erased = (data: unknown, declaration: FieldsDeclaration): unknown =>
  personalHolders(declaration).reduce((at, path) => withNullAt(at, path) ?? at, data);

const accepts = (codec: t.Mixed, type: string, data: unknown): boolean => codec.is({ type, data });

/**
 * Checks the new version of `type` against the one before it, on a sample of the
 * older version's data that has every declared field: the new codec accepts the
 * sample, each personal field null alone, and all of them null at once; and
 * wherever the older codec refuses a null in a field that is not personal, the
 * new one refuses it too (only personal fields became nullable).
 */
export const expectNullablePersonalFields = (spec: {
  readonly type: string;
  readonly previous: t.Mixed;
  readonly current: t.Mixed;
  readonly declaration: FieldsDeclaration;
  readonly sample: unknown;
}): void => {
  const { type, previous, current, declaration, sample } = spec;
  expect(accepts(previous, type, sample), `the sample is a version before ${type}'s current one`).to.equal(true);
  expect(accepts(current, type, sample), `${type}'s current version reads the sample`).to.equal(true);
  const refusedPersonal: string[] = [];
  for (const path of personalHolders(declaration)) {
    const nulled = withNullAt(sample, path);
    expect(nulled, `the sample of ${type} has ${path}`).not.to.equal(null);
    if (!accepts(current, type, nulled)) refusedPersonal.push(path);
  }
  expect(refusedPersonal, `${type}: personal fields the current version refuses as null`).to.deep.equal([]);
  expect(accepts(current, type, erased(sample, declaration)), `${type}: every personal field null at once`).to.equal(true);
  const acceptedNotPersonal: string[] = [];
  for (const path of declaration.notPersonal) {
    const nulled = withNullAt(sample, holderOf(path));
    if (nulled !== null && !accepts(previous, type, nulled) && accepts(current, type, nulled)) acceptedNotPersonal.push(path);
  }
  expect(acceptedNotPersonal, `${type}: fields not personal that became nullable`).to.deep.equal([]);
};

/**
 * Through the versioning decorator over SQLite: an event stored in version
 * `stored` (recorded so) reads as the current version with its data unchanged;
 * one appended now records the current version and reads back as written, every
 * personal field null.
 */
export const expectReadThroughDecorator = async (spec: {
  readonly stream: string;
  readonly type: string;
  readonly stored: number;
  readonly data: unknown;
  readonly declaration: FieldsDeclaration;
}): Promise<void> => {
  const dir = tempDir('chronicle-nullable-versions-');
  const raw = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
  const store = new UpcastingEventStore(raw, { types: STORED_EVENT_TYPES });
  try {
    const current = STORED_EVENT_TYPES.get(spec.type)!.versions.length;
    const metadata = { source: 'api' as const, correlationId: 'c', companyId: 'co-1' };
    await raw.append(spec.stream, [{ id: newId(), type: spec.type, data: spec.data, metadata: { ...metadata, schemaVersion: spec.stored } }], 'no_stream');
    const written = erased(spec.data, spec.declaration);
    await store.append(spec.stream, [{ id: newId(), type: spec.type, data: written, metadata }], 0);
    const [old, now] = await store.readStream(spec.stream);
    expect(old!.data).to.deep.equal(spec.data);
    expect(old!.version).to.deep.equal({ current, stored: spec.stored, recorded: true });
    expect(now!.data).to.deep.equal(written);
    expect(now!.version).to.deep.equal({ current, stored: current, recorded: true });
    expect((await raw.readStream(spec.stream))[1]!.metadata.schemaVersion).to.equal(current);
  } finally {
    await store.close();
    dir.dispose();
  }
};
