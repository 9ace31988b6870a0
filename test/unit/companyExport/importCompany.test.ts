import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { importCompany, ImportRefusedError, type ImportDeps } from '../../../src/application/companyExport/importCompany.js';
import { BLOCK, END_OF_ARCHIVE, paddingOf, ustarHeader } from '../../../src/application/companyExport/ustar.js';
import type { EventToAppend, ExpectedRevision } from '../../../src/application/ports/EventStore.js';
import { manualClock } from '../../support/clocks.js';
import { sha256 } from '../../support/tarArchive.js';
import { tempDir } from '../../support/tempStore.js';

const entry = (name: string, content: Buffer): Buffer => Buffer.concat([ustarHeader(name, content.length, new Date(0)), content, paddingOf(content.length)]);

/** An archive as an export writes it, from its parts; `manifestOf` may change the manifest the parts make. */
const archiveOf = (parts: Record<string, string>, manifestOf: (manifest: any) => unknown = (manifest) => manifest): Buffer => {
  const contents = Object.entries(parts).map(([name, text]) => [name, Buffer.from(text)] as const);
  const manifest = {
    format: 'chronicle-company-export',
    version: 1,
    company: { id: 'acme', name: 'Acme' },
    exportId: 'e1',
    exportedAt: '2026-05-01T00:00:00.000Z',
    logPosition: '9',
    parts: contents.map(([name, content]) => ({ name, count: content.toString().split('\n').filter(Boolean).length, bytes: content.length, sha256: sha256(content) })),
  };
  return Buffer.concat([entry('manifest.json', Buffer.from(JSON.stringify(manifestOf(manifest)))), ...contents.map(([name, content]) => entry(name, content)), END_OF_ARCHIVE]);
};

const line = (event: Record<string, unknown>): string =>
  `${JSON.stringify({ type: 'Happened', recordedAt: '2020-01-01T00:00:00.000Z', metadata: { source: 'api', correlationId: 'c', companyId: 'acme' }, position: '1', ...event })}\n`;

const EVENTS = [
  line({ id: 'a0', stream: 'note-a', revision: 0, data: {} }),
  line({ id: 'h0', stream: 'hook-1', revision: 0, data: {} }),
  line({ id: 'k0', stream: 'key-1', revision: 0, type: 'KeyIssued', data: { keyHash: null }, removedFields: ['keyHash'] }),
  line({ id: 'a1', stream: 'note-a', revision: 1, data: { name: null, contactId: 'p1' }, erasedFields: ['name'], recordedAt: '2020-01-02T00:00:00.000Z' }),
  line({ id: 'h1', stream: 'hook-1', revision: 1, data: {} }),
  line({ id: 'a2', stream: 'note-a', revision: 2, data: {} }),
].join('');

/** A store that records each append, and whether the company is there. */
const importer = (exists = false) => {
  const appends: { stream: string; events: EventToAppend[]; expected: ExpectedRevision }[] = [];
  const ended: string[][] = [];
  const erased: string[] = [];
  const deps: ImportDeps = {
    eventStore: {
      append: async (stream, events, expected) => {
        appends.push({ stream, events: [...events], expected });
        return { nextRevision: 0, position: '1' };
      },
    },
    companyExists: async () => exists,
    importedLast: (stream) => stream.startsWith('hook-'),
    endLast: async (streams) => void ended.push([...streams]),
    erasedPeople: (event) => (event.erasedFields?.includes('name') ? [{ subject: `contact:${(event.data as { contactId: string }).contactId}`, path: 'name' }] : []),
    keys: { erase: async (subject) => void erased.push(subject) },
    clock: manualClock(0),
  };
  return { deps, appends, ended, erased };
};

describe('importCompany: an export into a store', () => {
  const dir = tempDir('chronicle-import-');
  after(() => dir.dispose());
  let n = 0;
  const fileOf = (archive: Buffer): string => {
    const file = join(dir.path, `archive-${++n}.tar`);
    writeFileSync(file, archive);
    return file;
  };

  it('appends each stream at its revisions with the ids and times it had; subscriptions\' streams last, then ended; erased people erased again', async () => {
    const { deps, appends, ended, erased } = importer();
    const outcome = await importCompany(fileOf(archiveOf({ 'records/notes.ndjson': '', 'events.ndjson': EVENTS })), deps);
    expect(outcome).to.deep.equal({ companyId: 'acme', events: 6, streamsEnded: 1, erasedSubjects: 1 });
    expect(appends.map(({ stream, events, expected }) => [stream, events.map((event) => event.id), expected])).to.deep.equal([
      ['note-a', ['a0'], 'no_stream'],
      ['key-1', ['k0'], 'no_stream'],
      ['note-a', ['a1', 'a2'], 0],
      ['hook-1', ['h0', 'h1'], 'no_stream'],
    ]);
    const a1 = appends[2]!.events[0]!;
    expect(a1.recordedAt).to.equal('2020-01-02T00:00:00.000Z');
    // The erased field holds a stand-in, sealed under the person's key, which is destroyed after.
    expect((a1.data as { name: unknown }).name).to.be.a('string');
    expect(appends[1]!.events[0]!.data).to.deep.equal({ keyHash: 'removed-by-export:k0:keyHash' });
    expect(ended).to.deep.equal([['hook-1']]);
    expect(erased).to.deep.equal(['contact:p1']);
  });

  const refusals: [string, Buffer, RegExp][] = [
    ['a part whose SHA-256 is not the manifest\'s', archiveOf({ 'events.ndjson': EVENTS }, (m) => ({ ...m, parts: m.parts.map((p: any) => ({ ...p, sha256: '0'.repeat(64) })) })), /SHA-256 of events.ndjson does not match/],
    ['a part whose size is not the manifest\'s', archiveOf({ 'events.ndjson': EVENTS }, (m) => ({ ...m, parts: m.parts.map((p: any) => ({ ...p, bytes: p.bytes + 1 })) })), /events.ndjson has \d+ bytes/],
    ['an entry the manifest does not list', archiveOf({ 'events.ndjson': EVENTS, 'extra.txt': 'x' }, (m) => ({ ...m, parts: m.parts.filter((p: any) => p.name !== 'extra.txt') })), /extra.txt, which its manifest does not list/],
    ['a part the archive lacks', archiveOf({ 'events.ndjson': EVENTS }, (m) => ({ ...m, parts: [...m.parts, { name: 'records/x.ndjson', count: 0, bytes: 0, sha256: sha256(Buffer.alloc(0)) }] })), /records\/x.ndjson is in the manifest but not in the archive/],
    ['another format', archiveOf({ 'events.ndjson': EVENTS }, (m) => ({ ...m, format: 'something else' })), /not the manifest of a Chronicle company export/],
    ['a newer version', archiveOf({ 'events.ndjson': EVENTS }, (m) => ({ ...m, version: 2 })), /format version 2/],
    ['an event of another company', archiveOf({ 'events.ndjson': line({ id: 'x', stream: 's', revision: 0, data: {}, metadata: { source: 'api', correlationId: 'c', companyId: 'other' } }) }), /event x of another company/],
    ['a file that is not a tar', Buffer.from('not a tar archive at all'.padEnd(2 * BLOCK, '!')), /not a tar archive Chronicle wrote/],
    ['an archive cut short', archiveOf({ 'events.ndjson': EVENTS }).subarray(0, BLOCK * 3), /cut short/],
  ];
  for (const [what, archive, message] of refusals) {
    it(`refuses ${what}, appending nothing`, async () => {
      const { deps, appends } = importer();
      const error = await importCompany(fileOf(archive), deps).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(ImportRefusedError);
      expect((error as Error).message).to.match(message);
      expect(appends).to.deep.equal([]);
    });
  }

  it('refuses a company the store has already, appending nothing', async () => {
    const { deps, appends } = importer(true);
    const error = await importCompany(fileOf(archiveOf({ 'events.ndjson': EVENTS })), deps).catch((failure: unknown) => failure);
    expect((error as Error).message).to.equal('company acme exists in this store already');
    expect(appends).to.deep.equal([]);
  });
});
