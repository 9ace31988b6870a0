import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Clock } from '../../shared/Clock.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import type { EventStore, EventToAppend, ExpectedRevision } from '../ports/EventStore.js';
import type { ErasableKeys } from '../ports/Stores.js';
import { EVENTS_PART, EXPORT_FORMAT, EXPORT_FORMAT_VERSION, MANIFEST_ENTRY, type ExportedEvent, type ExportManifest } from './CompanyExports.js';
import { eventCompany } from './eventCompany.js';
import { BLOCK, parseUstarHeader } from './ustar.js';

/** An archive this release will not import, and why (nothing was imported). */
export class ImportRefusedError extends Error {
  override readonly name = 'ImportRefusedError';
}

/** Where one entry's content is in the archive's file. */
interface EntryAt {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
}

/** Every entry of the tar file, read from its headers alone (the contents are not read). */
const entriesOf = async (file: string): Promise<EntryAt[]> => {
  const handle = await open(file, 'r');
  try {
    const { size: fileSize } = await handle.stat();
    const entries: EntryAt[] = [];
    const header = Buffer.alloc(BLOCK);
    for (let offset = 0; ; ) {
      if (offset + BLOCK > fileSize) throw new ImportRefusedError('the archive is cut short: it ends without the end of a tar archive');
      await handle.read(header, 0, BLOCK, offset);
      let entry;
      try {
        entry = parseUstarHeader(header);
      } catch (error) {
        throw new ImportRefusedError(`the archive is not a tar archive Chronicle wrote (${(error as Error).message})`);
      }
      if (entry === null) return entries;
      const start = offset + BLOCK;
      if (start + entry.size > fileSize) throw new ImportRefusedError(`the archive is cut short in ${entry.name}`);
      entries.push({ name: entry.name, offset: start, size: entry.size });
      offset = start + Math.ceil(entry.size / BLOCK) * BLOCK;
    }
  } finally {
    await handle.close();
  }
};

const contentOf = (file: string, entry: EntryAt) => createReadStream(file, { start: entry.offset, end: entry.offset + entry.size - 1 });

const sha256Of = async (file: string, entry: EntryAt): Promise<string> => {
  const hash = createHash('sha256');
  if (entry.size > 0) for await (const chunk of contentOf(file, entry)) hash.update(chunk as Buffer);
  return hash.digest('hex');
};

/** The parsed lines of an NDJSON entry, one at a time. */
async function* linesOf(file: string, entry: EntryAt): AsyncIterable<unknown> {
  if (entry.size === 0) return;
  for await (const line of createInterface({ input: contentOf(file, entry), crlfDelay: Infinity })) {
    if (line !== '') yield JSON.parse(line) as unknown;
  }
}

/**
 * The archive's manifest and entries, once every part the manifest lists is there
 * with its size and SHA-256, and nothing else is: refused (`ImportRefusedError`) otherwise.
 */
export const readCheckedArchive = async (file: string): Promise<{ readonly manifest: ExportManifest; readonly entries: ReadonlyMap<string, EntryAt> }> => {
  const entries = await entriesOf(file);
  const manifestEntry = entries[0];
  if (manifestEntry?.name !== MANIFEST_ENTRY) throw new ImportRefusedError(`the archive does not begin with ${MANIFEST_ENTRY}`);
  let manifest: ExportManifest;
  try {
    manifest = JSON.parse(await readWhole(file, manifestEntry)) as ExportManifest;
  } catch {
    throw new ImportRefusedError(`${MANIFEST_ENTRY} is not JSON`);
  }
  if (manifest.format !== EXPORT_FORMAT) throw new ImportRefusedError(`${MANIFEST_ENTRY} is not the manifest of a Chronicle company export`);
  if (manifest.version !== EXPORT_FORMAT_VERSION) throw new ImportRefusedError(`the export is of format version ${String(manifest.version)}; this release imports version ${EXPORT_FORMAT_VERSION}`);
  if (typeof manifest.company?.id !== 'string' || !Array.isArray(manifest.parts)) throw new ImportRefusedError(`${MANIFEST_ENTRY} names no company or no parts`);
  const byName = new Map(entries.slice(1).map((entry) => [entry.name, entry]));
  if (byName.size !== entries.length - 1) throw new ImportRefusedError('the archive holds an entry twice');
  const listed = new Set(manifest.parts.map((part) => part.name));
  const unlisted = [...byName.keys()].filter((name) => !listed.has(name));
  if (unlisted.length > 0) throw new ImportRefusedError(`the archive holds ${unlisted.join(', ')}, which its manifest does not list`);
  if (!listed.has(EVENTS_PART)) throw new ImportRefusedError(`the manifest lists no ${EVENTS_PART}`);
  for (const part of manifest.parts) {
    const entry = byName.get(part.name);
    if (!entry) throw new ImportRefusedError(`${part.name} is in the manifest but not in the archive`);
    if (entry.size !== part.bytes) throw new ImportRefusedError(`${part.name} has ${entry.size} bytes; the manifest says ${part.bytes}`);
    if ((await sha256Of(file, entry)) !== part.sha256) throw new ImportRefusedError(`the SHA-256 of ${part.name} does not match the manifest's: the archive was changed or damaged`);
  }
  return { manifest, entries: byName };
};

const readWhole = async (file: string, entry: EntryAt): Promise<string> => {
  const chunks: Buffer[] = [];
  if (entry.size > 0) for await (const chunk of contentOf(file, entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export interface ImportDeps {
  /** The log the company's events are appended to (sealing and versioning decorators included). */
  readonly eventStore: Pick<EventStore, 'append'>;
  /** Whether the company is in this store already (its stream has events). */
  companyExists(companyId: string): Promise<boolean>;
  /**
   * The streams imported after every other one (a webhook subscription's): so that
   * nothing imported before them reaches their receivers; then `endLast` ends each
   * (a subscription without its secret receives nothing).
   */
  importedLast(stream: string): boolean;
  endLast(streams: readonly string[], companyId: string, at: Date): Promise<void>;
  /**
   * The people whose values an event's `erasedFields` say were erased: each subject
   * (`contact:<id>`), erased here again, and a path of one of its text fields, where
   * a stand-in value is sealed under the subject's key (so that, the key destroyed,
   * the event reads as erased, as it did).
   */
  erasedPeople(event: ExportedEvent): readonly { readonly subject: string; readonly path: string }[];
  /**
   * Streams whose names the source store keyed with a secret of its own (a phone
   * number's reservation: its number hashed under the source's key), which would
   * reserve nothing here: left out, and claimed again from the records of `part`
   * once every event is in (`reclaim`, one record at a time).
   */
  readonly keyedStreams?: {
    matches(stream: string): boolean;
    readonly part: string;
    reclaim(record: unknown, companyId: string, at: Date): Promise<void>;
  };
  /** The log's keys, to erase those subjects again; absent where the log seals nothing. */
  readonly keys?: ErasableKeys;
  readonly clock: Clock;
  /** Told how many events were appended, now and then. */
  readonly onProgress?: (events: number) => void;
}

export interface ImportOutcome {
  readonly companyId: string;
  readonly events: number;
  readonly streamsEnded: number;
  readonly erasedSubjects: number;
}

/** The value at a dotted path of `data` set to `value`, in a copy (missing paths are left out). */
const withValueAt = (data: unknown, path: readonly string[], value: unknown): unknown => {
  if (typeof data !== 'object' || data === null || path.length === 0) return data;
  const [head, ...rest] = path;
  if (!(head! in data)) return data;
  const inner = (data as Record<string, unknown>)[head!];
  return { ...data, [head!]: rest.length === 0 ? value : withValueAt(inner, rest, value) };
};

/**
 * What an import stores for a secret the export left out (a key's hash): unique
 * to the event and the field, as a hash is (a directory keyed by it keeps one
 * entry per key), and never a hash (hex), so no key or token presented finds it.
 */
export const removedSecret = (eventId: string, path: string): string => `removed-by-export:${eventId}:${path}`;

/** What is sealed in an erased person's field on import: never readable (the key is destroyed after). */
const ERASED_STAND_IN = 'erased';

/** Appends each run of consecutive events of one stream at once (at most `max`), at the revisions they had. */
class StreamRuns {
  private stream: string | null = null;
  private first = 0;
  private events: EventToAppend[] = [];
  appended = 0;

  constructor(
    private readonly eventStore: Pick<EventStore, 'append'>,
    private readonly max: number,
    private readonly onProgress?: (events: number) => void,
  ) {}

  async add(stream: string, revision: number, event: EventToAppend): Promise<void> {
    if (stream !== this.stream || revision !== this.first + this.events.length || this.events.length >= this.max) await this.flush();
    if (this.events.length === 0) [this.stream, this.first] = [stream, revision];
    this.events.push(event);
  }

  async flush(): Promise<void> {
    if (this.stream === null || this.events.length === 0) return;
    const expected: ExpectedRevision = this.first === 0 ? 'no_stream' : this.first - 1;
    await this.eventStore.append(this.stream, this.events, expected);
    this.appended += this.events.length;
    this.events = [];
    this.onProgress?.(this.appended);
  }
}

/**
 * Imports a company's export into this store (an event's `removedFields`, the
 * secrets an export leaves out, are stored as `removedSecret`): refused (`ImportRefusedError`,
 * nothing imported) when the archive is not one Chronicle wrote, a part's SHA-256
 * is not the manifest's, an event is of another company, or the company is here
 * already. Every event is appended with its id, stream, revision, type, data,
 * metadata and the time it was first recorded, in log order, except the streams
 * imported last (webhook subscriptions, ended after them: they hold no secret)
 * and those named with the source's secret (phone numbers' reservations, claimed
 * again from the records); then the people erased before the export are erased here too. Read models are
 * built from the log as always.
 */
export const importCompany = async (file: string, deps: ImportDeps): Promise<ImportOutcome> => {
  const { manifest, entries } = await readCheckedArchive(file);
  const companyId = manifest.company.id;
  const events = entries.get(EVENTS_PART)!;
  for await (const line of linesOf(file, events)) {
    const event = line as ExportedEvent;
    if (typeof event?.id !== 'string' || typeof event.stream !== 'string' || typeof event.type !== 'string' || !Number.isInteger(event.revision)) {
      throw new ImportRefusedError(`${EVENTS_PART} holds a line that is not an event`);
    }
    if (eventCompany(event) !== companyId) throw new ImportRefusedError(`${EVENTS_PART} holds event ${event.id} of another company`);
  }
  if (await deps.companyExists(companyId)) throw new ImportRefusedError(`company ${companyId} exists in this store already`);

  const runs = new StreamRuns(deps.eventStore, 500, deps.onProgress);
  const erased = new Set<string>();
  const last = new Set<string>();
  const toAppend = (event: ExportedEvent): EventToAppend => {
    let data = (event.removedFields ?? []).reduce((value, path) => withValueAt(value, path.split('.'), removedSecret(event.id, path)), event.data);
    for (const { subject, path } of event.erasedFields && event.erasedFields.length > 0 ? deps.erasedPeople(event) : []) {
      erased.add(subject);
      data = withValueAt(data, path.split('.'), ERASED_STAND_IN);
    }
    return { id: event.id, type: event.type, data, metadata: event.metadata as EventMetadata, recordedAt: event.recordedAt };
  };
  for (const lastPass of [false, true]) {
    for await (const line of linesOf(file, events)) {
      const event = line as ExportedEvent;
      if (deps.importedLast(event.stream) !== lastPass || deps.keyedStreams?.matches(event.stream)) continue;
      if (lastPass) last.add(event.stream);
      await runs.add(event.stream, event.revision, toAppend(event));
    }
    await runs.flush();
  }
  const at = deps.clock.now();
  const reclaimFrom = deps.keyedStreams ? entries.get(deps.keyedStreams.part) : undefined;
  if (deps.keyedStreams && reclaimFrom) for await (const record of linesOf(file, reclaimFrom)) await deps.keyedStreams.reclaim(record, companyId, at);
  await deps.endLast([...last], companyId, at);
  for (const subject of erased) await deps.keys?.erase(subject, at);
  return { companyId, events: runs.appended, streamsEnded: last.size, erasedSubjects: erased.size };
};
