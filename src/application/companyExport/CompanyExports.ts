import type { Clock } from '../../shared/Clock.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import type { CompanyExportProgress, CompanyExportRecord, CompanyExportStore } from '../ports/CompanyExportStore.js';
import type { EventStore, RecordedEvent } from '../ports/EventStore.js';
import type { Logger } from '../ports/Logger.js';
import type { ReadModelStore } from '../ports/ReadModelStore.js';
import { ChunkedArchive, type ArchivePart } from './ChunkedArchive.js';
import { eventCompany } from './eventCompany.js';
import type { ExportedRecords, SecretEventFields } from './ExportedRecords.js';

/** How long an export is kept once asked for: then the sweep deletes it, and reads no longer find it. */
export const EXPORT_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The name of the archive's events part, and of its manifest (its first entry). */
export const EVENTS_PART = 'events.ndjson';
export const MANIFEST_ENTRY = 'manifest.json';
/** What a manifest says it is; an import refuses another `format` or a newer `version`. */
export const EXPORT_FORMAT = 'chronicle-company-export';
export const EXPORT_FORMAT_VERSION = 1;

/** The manifest of an archive (`manifest.json`). */
export interface ExportManifest {
  readonly format: typeof EXPORT_FORMAT;
  readonly version: number;
  /** The company as the platform knows it (id, name, since when). */
  readonly company: { readonly id: string } & Record<string, unknown>;
  readonly exportId: string;
  readonly exportedAt: string;
  /** The log's head when the export began: its events are every one of the company's up to there. */
  readonly logPosition: Position | null;
  readonly parts: readonly ArchivePart[];
}

/** One line of `events.ndjson`: a stored event as the customer knows it (personal values unsealed, secrets removed). */
export interface ExportedEvent {
  readonly id: string;
  readonly type: string;
  readonly stream: string;
  readonly revision: number;
  readonly position: Position;
  readonly recordedAt: string;
  readonly data: unknown;
  readonly metadata: RecordedEvent['metadata'];
  /** Fields that read as null because their person was erased. */
  readonly erasedFields?: readonly string[];
  /** Secret fields written as null (a key's hash). */
  readonly removedFields?: readonly string[];
}

export interface CompanyExportsDeps {
  readonly store: CompanyExportStore;
  /** The log as reads see it: personal values unsealed, data in current shapes. */
  readonly eventStore: Pick<EventStore, 'readAll' | 'headPosition'>;
  readonly readModels: Pick<ReadModelStore, 'collection'>;
  readonly records: readonly ExportedRecords[];
  readonly secretFields: SecretEventFields;
  readonly newId: () => string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Bytes per stored chunk (default 256 KiB). */
  readonly chunkBytes?: number;
  /** Events read from the log per page (default 500). */
  readonly pageSize?: number;
}

/** The value at a dotted path of `data` set to null, in a copy; `data` itself is left as it is. */
const withNullAt = (data: unknown, path: readonly string[]): unknown => {
  if (typeof data !== 'object' || data === null || path.length === 0) return data;
  const [head, ...rest] = path;
  if (!(head! in data)) return data;
  const inner = (data as Record<string, unknown>)[head!];
  return { ...data, [head!]: rest.length === 0 ? null : withNullAt(inner, rest) };
};

/** The event as a line of `events.ndjson`. */
export const exportedEvent = (event: RecordedEvent, secretFields: SecretEventFields): ExportedEvent => {
  const secrets = secretFields[event.type] ?? [];
  const data = secrets.reduce((value, path) => withNullAt(value, path.split('.')), event.data);
  return {
    id: event.id,
    type: event.type,
    stream: event.stream,
    revision: event.revision,
    position: event.position,
    recordedAt: event.recordedAt,
    data,
    metadata: event.metadata,
    ...(event.erasedFields && event.erasedFields.length > 0 ? { erasedFields: event.erasedFields } : {}),
    ...(secrets.length > 0 ? { removedFields: secrets } : {}),
  };
};

/**
 * A company's exports: asked for (`start`, which answers at once and writes the
 * archive in the background), followed (`get`), downloaded (`download`). The
 * archive is one ustar tar: `manifest.json`, `records/<part>.ndjson` for each
 * read model a customer calls their data, `events.ndjson`; each part written as
 * it is read, page by page, so memory does not grow with the company.
 */
/** The process stops: the export being written stops too, and is marked failed. */
class ExportStoppedError extends Error {
  override readonly name = 'ExportStoppedError';
  constructor() {
    super('the process writing the export stopped');
  }
}

export class CompanyExports {
  private readonly running = new Set<Promise<void>>();
  /** The export this process is writing for each company: a second request while it runs is answered with it. */
  private readonly writing = new Map<string, CompanyExportRecord>();
  private stopping = false;

  constructor(private readonly deps: CompanyExportsDeps) {}

  /**
   * Asks for an export of `company` (its id, and what the manifest shows of it); the
   * archive is written in the background. While this process writes one for the
   * company, that one is answered (as it stands): one at a time per company.
   */
  async start(company: ExportManifest['company']): Promise<CompanyExportRecord> {
    this.checkGoingOn();
    const current = this.writing.get(company.id);
    if (current) return (await this.deps.store.get(company.id, current.id)) ?? current;
    const now = this.deps.clock.now();
    const record: CompanyExportRecord = {
      id: this.deps.newId(),
      companyId: company.id,
      state: 'pending',
      progress: { events: 0, eventsTotal: null, records: 0, recordsTotal: null },
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + EXPORT_RETENTION_MS).toISOString(),
      finishedAt: null,
      size: null,
    };
    this.writing.set(company.id, record);
    try {
      await this.deps.store.create(record);
    } catch (error) {
      this.writing.delete(company.id);
      throw error;
    }
    const run = this.write(record, company).finally(() => {
      this.running.delete(run);
      this.writing.delete(company.id);
    });
    this.running.add(run);
    return record;
  }

  /** The export, or null: unknown, of another company, or expired. */
  async get(companyId: string, exportId: string): Promise<CompanyExportRecord | null> {
    const record = await this.deps.store.get(companyId, exportId);
    if (!record || Date.parse(record.expiresAt) <= this.deps.clock.now().getTime()) return null;
    return record;
  }

  /** The archive's bytes of a ready export, or null (see `get`; not ready). */
  async download(companyId: string, exportId: string): Promise<{ readonly record: CompanyExportRecord; readonly chunks: AsyncIterable<Uint8Array> } | null> {
    const record = await this.get(companyId, exportId);
    if (record?.state !== 'ready') return null;
    return { record, chunks: this.deps.store.readChunks(exportId) };
  }

  /** Deletes every export past its 24 hours, with its bytes (the sweep's run); answers how many. */
  sweep(): Promise<number> {
    return this.deps.store.deleteExpired(this.deps.clock.now());
  }

  /** Stops the exports being written (each marked `failed`, to ask for again) and waits for them; asks for no more. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.settled();
  }

  /** Throws between two pages once the process stops. */
  private checkGoingOn(): void {
    if (this.stopping) throw new ExportStoppedError();
  }

  /** Resolves once every export this process is writing has ended (a stop waits for them; tests too). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Writes the archive; an export that fails is marked `failed` (and logged, without any value of it). */
  private async write(record: CompanyExportRecord, company: ExportManifest['company']): Promise<void> {
    const { store, logger } = this.deps;
    const started = performance.now();
    try {
      await store.update(record.companyId, record.id, { state: 'running' });
      const size = await this.writeArchive(record, company);
      await store.update(record.companyId, record.id, { state: 'ready', size, finishedAt: this.deps.clock.now().toISOString() });
      logger.info({ exportId: record.id, companyId: record.companyId, size, ms: Math.round(performance.now() - started) }, 'company export ready');
    } catch (error) {
      if (error instanceof ExportStoppedError) logger.warn({ exportId: record.id, companyId: record.companyId }, 'company export stopped with the process: failed');
      else logger.error({ err: error, exportId: record.id, companyId: record.companyId }, 'company export failed');
      await store.update(record.companyId, record.id, { state: 'failed', finishedAt: this.deps.clock.now().toISOString() }).catch(() => undefined);
    }
  }

  private async writeArchive(record: CompanyExportRecord, company: ExportManifest['company']): Promise<number> {
    const { store, eventStore, readModels, records, secretFields } = this.deps;
    const companyId = record.companyId;
    const pageSize = this.deps.pageSize ?? 500;
    const head = await eventStore.headPosition();
    const progress: { -readonly [K in keyof CompanyExportProgress]: CompanyExportProgress[K] } = { events: 0, eventsTotal: null, records: 0, recordsTotal: null };
    const report = () => store.update(companyId, record.id, { progress: { ...progress } });

    // The totals first, so that progress says "of how many".
    let recordsTotal = 0;
    for (const part of records) {
      for await (const doc of readModels.collection(part.projection).scan()) if (doc.companyId === companyId) recordsTotal += 1;
    }
    progress.recordsTotal = recordsTotal;
    let eventsTotal = 0;
    for await (const event of this.companyEvents(companyId, head, pageSize)) {
      if (event) eventsTotal += 1;
      else this.checkGoingOn();
    }
    progress.eventsTotal = eventsTotal;
    await report();

    const archive = new ChunkedArchive(store, record.id, new Date(record.createdAt), this.deps.chunkBytes ?? 256 * 1024);
    const manifestSeq = await archive.reserve();
    const parts: ArchivePart[] = [];
    for (const part of records) {
      await archive.beginPart(`records/${part.part}.ndjson`);
      for await (const doc of readModels.collection(part.projection).scan()) {
        if (doc.companyId !== companyId) continue;
        await archive.line(part.record(doc));
        progress.records += 1;
        if (progress.records % pageSize === 0) {
          this.checkGoingOn();
          await report();
        }
      }
      parts.push(await archive.endPart());
    }
    await report();
    await archive.beginPart(EVENTS_PART);
    for await (const event of this.companyEvents(companyId, head, pageSize)) {
      if (event === null) {
        this.checkGoingOn();
        await report();
        continue;
      }
      await archive.line(exportedEvent(event, secretFields));
      progress.events += 1;
    }
    parts.push(await archive.endPart());
    await report();
    const manifest: ExportManifest = {
      format: EXPORT_FORMAT,
      version: EXPORT_FORMAT_VERSION,
      company,
      exportId: record.id,
      exportedAt: this.deps.clock.now().toISOString(),
      logPosition: head,
      parts,
    };
    await archive.writeEntryAt(manifestSeq, MANIFEST_ENTRY, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    return archive.end();
  }

  /** The company's events up to `head`, in log order, page by page; a null after each page (for the progress). */
  private async *companyEvents(companyId: string, head: Position | null, pageSize: number): AsyncIterable<RecordedEvent | null> {
    if (head === null) return;
    let after: Position | null = null;
    for (;;) {
      const page = await this.deps.eventStore.readAll({ after, maxCount: pageSize });
      for (const event of page) {
        if (comparePositions(event.position, head) > 0) return;
        if (eventCompany(event) === companyId) yield event;
      }
      yield null;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.position;
    }
  }
}
