import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { MemoryCompanyExportStore } from '../../../src/adapters/memory/MemoryCompanyExportStore.js';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { CompanyExports, EXPORT_RETENTION_MS } from '../../../src/application/companyExport/CompanyExports.js';
import { exportedRecords } from '../../../src/application/companyExport/ExportedRecords.js';
import type { RecordedEvent, EventStore } from '../../../src/application/ports/EventStore.js';
import { silentLogger, type Logger } from '../../../src/application/ports/Logger.js';
import type { Projection, ReadModelDocument } from '../../../src/application/ports/ReadModelStore.js';
import { captureLogger } from '../../support/captureLogger.js';
import { manualClock } from '../../support/clocks.js';
import { ndjson, sha256, tarEntries } from '../../support/tarArchive.js';
import { tempDir } from '../../support/tempStore.js';

const run = promisify(execFile);

interface NoteDoc extends ReadModelDocument {
  readonly text: string;
}

/** A read model of notes, one per `NoteWritten`. */
const notes: Projection<NoteDoc> = {
  name: 'notes',
  eventTypes: new Set(['NoteWritten']),
  indexes: [],
  targets: (event) => [{ kind: 'id', companyId: event.metadata.companyId!, id: (event.data as { noteId: string }).noteId }],
  evolve: (_doc, event) => ({ id: (event.data as { noteId: string }).noteId, companyId: event.metadata.companyId!, position: event.position, text: (event.data as { text: string }).text }),
};

const recorded = (position: number, companyId: string, type: string, data: Record<string, unknown>, extra: Partial<RecordedEvent> = {}): RecordedEvent => ({
  id: `event-${position}`,
  stream: `note-${String(data.noteId ?? 'x')}`,
  revision: 0,
  position: String(position),
  type,
  data,
  metadata: { source: 'api', correlationId: `c-${position}`, companyId },
  recordedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, position)).toISOString(),
  ...extra,
});

/** A log held in an array, read as the port reads (a page after a position). */
const logOf = (events: readonly RecordedEvent[]): Pick<EventStore, 'readAll' | 'headPosition'> => ({
  readAll: async ({ after = null, maxCount = 1000 } = {}) => events.filter((event) => after === null || Number(event.position) > Number(after)).slice(0, maxCount),
  headPosition: async () => events.at(-1)?.position ?? null,
});

const LOG: RecordedEvent[] = [
  recorded(1, 'acme', 'NoteWritten', { noteId: 'n1', text: 'first' }),
  recorded(2, 'other', 'NoteWritten', { noteId: 'n2', text: 'not acme' }),
  recorded(3, 'acme', 'KeyIssued', { keyId: 'k1', keyHash: 'hash-of-the-key', nested: { tokenHash: 'another hash' } }),
  recorded(4, 'acme', 'NoteWritten', { noteId: 'n3', text: null }, { erasedFields: ['text'] }),
  ...Array.from({ length: 7 }, (_, i) => recorded(5 + i, 'acme', 'NoteWritten', { noteId: `m${i}`, text: `more ${i}` })),
];

const exportsOn = async (options: { readonly chunkBytes?: number; readonly pageSize?: number; readonly log?: Pick<EventStore, 'readAll' | 'headPosition'>; readonly logger?: Logger } = {}) => {
  const readModels = new MemoryReadModelStore();
  await readModels.collection(notes).apply(LOG);
  const store = new MemoryCompanyExportStore();
  const clock = manualClock(Date.parse('2026-05-01T00:00:00.000Z'));
  let ids = 0;
  const exports = new CompanyExports({
    store,
    eventStore: options.log ?? logOf(LOG),
    readModels,
    records: [exportedRecords('notes', notes, (doc) => ({ id: doc.id, text: doc.text }))],
    secretFields: { KeyIssued: ['keyHash', 'nested.tokenHash'] },
    newId: () => `export-${++ids}`,
    clock,
    logger: options.logger ?? silentLogger,
    ...(options.chunkBytes !== undefined ? { chunkBytes: options.chunkBytes } : {}),
    ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
  });
  return { exports, store, clock };
};

const archiveOf = async (exports: CompanyExports, companyId: string, exportId: string): Promise<Buffer> => {
  const download = await exports.download(companyId, exportId);
  if (!download) throw new Error('no download');
  const chunks: Buffer[] = [];
  for await (const chunk of download.chunks) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
};

describe('CompanyExports: the archive of a company', () => {
  it('holds the company\'s records and events alone, each part as the manifest says, secrets removed, erased values null', async () => {
    const { exports } = await exportsOn();
    const asked = await exports.start({ id: 'acme', name: 'Acme' });
    expect(asked).to.deep.include({ state: 'pending', companyId: 'acme', size: null });
    await exports.settled();
    const done = (await exports.get('acme', asked.id))!;
    expect(done.state).to.equal('ready');
    expect(done.progress).to.deep.equal({ events: 10, eventsTotal: 10, records: 9, recordsTotal: 9 });
    const archive = await archiveOf(exports, 'acme', asked.id);
    expect(archive.length).to.equal(done.size);
    const [manifest, records, events] = tarEntries(archive);
    expect([manifest!.name, records!.name, events!.name]).to.deep.equal(['manifest.json', 'records/notes.ndjson', 'events.ndjson']);
    const parsed = JSON.parse(manifest!.content.toString());
    expect(parsed).to.deep.include({ format: 'chronicle-company-export', version: 1, company: { id: 'acme', name: 'Acme' }, exportId: asked.id, logPosition: '11' });
    expect(parsed.parts).to.deep.equal(
      [records!, events!].map((entry) => ({ name: entry.name, count: ndjson(entry.content).length, bytes: entry.content.length, sha256: sha256(entry.content) })),
    );
    expect(ndjson(records!.content).map((note) => note.id)).to.deep.equal(['n1', 'n3', ...Array.from({ length: 7 }, (_, i) => `m${i}`)]);
    const lines = ndjson(events!.content);
    expect(lines.map((event) => event.id)).to.deep.equal(LOG.filter((event) => event.metadata.companyId === 'acme').map((event) => event.id));
    expect(lines[1]).to.deep.include({ type: 'KeyIssued', removedFields: ['keyHash', 'nested.tokenHash'] });
    expect(lines[1].data).to.deep.equal({ keyId: 'k1', keyHash: null, nested: { tokenHash: null } });
    expect(lines[2]).to.deep.include({ erasedFields: ['text'], data: { noteId: 'n3', text: null } });
    expect(lines[0]).to.deep.equal({ ...LOG[0], data: LOG[0]!.data });
    expect(archive.toString('latin1')).to.not.contain('hash-of-the-key').and.not.contain('not acme');
  });

  it('writes the same parts in chunks of any size and pages of any size; GNU tar reads the archive as it is', async () => {
    const small = await exportsOn({ chunkBytes: 100, pageSize: 2 });
    const big = await exportsOn();
    const [a, b] = [await small.exports.start({ id: 'acme' }), await big.exports.start({ id: 'acme' })];
    await Promise.all([small.exports.settled(), big.exports.settled()]);
    const [smallArchive, bigArchive] = [await archiveOf(small.exports, 'acme', a.id), await archiveOf(big.exports, 'acme', b.id)];
    const parts = (archive: Buffer) => tarEntries(archive).slice(1).map((entry) => [entry.name, entry.content.toString()]);
    expect(parts(smallArchive)).to.deep.equal(parts(bigArchive));

    const dir = tempDir('chronicle-export-tar-');
    try {
      const file = join(dir.path, 'export.tar');
      writeFileSync(file, smallArchive);
      const listed = await run('tar', ['-tf', file]);
      expect(listed.stdout.trim().split('\n')).to.deep.equal(['manifest.json', 'records/notes.ndjson', 'events.ndjson']);
      const extracted = await run('tar', ['-xOf', file, 'events.ndjson'], { maxBuffer: 1 << 20 });
      expect(extracted.stdout).to.equal(tarEntries(smallArchive)[2]!.content.toString());
    } finally {
      dir.dispose();
    }
  });

  it('marks an export failed when the log cannot be read, logging no value of it; it has no download', async () => {
    const logger = captureLogger();
    const failing = { ...logOf(LOG), readAll: async () => Promise.reject(new Error('the log is gone')) };
    const { exports } = await exportsOn({ log: failing, logger });
    const asked = await exports.start({ id: 'acme' });
    await exports.settled();
    expect((await exports.get('acme', asked.id))?.state).to.equal('failed');
    expect(await exports.download('acme', asked.id)).to.equal(null);
    expect(logger.lines.filter((line) => line.msg === 'company export failed').map((line) => line.level)).to.deep.equal(['error']);
  });

  it('stops with the process: the export being written is marked failed, and no other is asked for', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const log = logOf(LOG);
    // The log's second page waits until the test lets it go: the export is running then.
    let pages = 0;
    const slow = { ...log, readAll: async (options?: Parameters<EventStore['readAll']>[0]) => (++pages === 2 ? held.then(() => log.readAll(options)) : log.readAll(options)) };
    const { exports } = await exportsOn({ log: slow, pageSize: 2 });
    const asked = await exports.start({ id: 'acme' });
    while (pages < 2) await new Promise((resolve) => setImmediate(resolve));
    const stopped = exports.stop();
    release();
    await stopped;
    expect((await exports.get('acme', asked.id))?.state).to.equal('failed');
    const refused = await exports.start({ id: 'acme' }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(Error);
  });

  it('answers the export being written to a second request for the company: one at a time per company', async () => {
    const { exports } = await exportsOn();
    const first = await exports.start({ id: 'acme' });
    const again = await exports.start({ id: 'acme' });
    const other = await exports.start({ id: 'other' });
    expect(again.id).to.equal(first.id);
    expect(other.id).to.not.equal(first.id);
    await exports.settled();
    const after = await exports.start({ id: 'acme' });
    expect(after.id).to.not.equal(first.id);
    await exports.settled();
  });

  it('answers an export to its company alone, and none after its 24 hours; the sweep deletes it then', async () => {
    const { exports, store, clock } = await exportsOn();
    const asked = await exports.start({ id: 'acme' });
    await exports.settled();
    expect(await exports.get('other', asked.id)).to.equal(null);
    expect(await exports.download('other', asked.id)).to.equal(null);
    clock.advance(EXPORT_RETENTION_MS - 1);
    expect(await exports.sweep()).to.equal(0);
    expect((await exports.get('acme', asked.id))?.state).to.equal('ready');
    clock.advance(1);
    expect(await exports.get('acme', asked.id)).to.equal(null);
    expect(await exports.download('acme', asked.id)).to.equal(null);
    expect(await store.get('acme', asked.id)).to.not.equal(null);
    expect(await exports.sweep()).to.equal(1);
    expect(await store.get('acme', asked.id)).to.equal(null);
  });
});
