import { Worker } from 'node:worker_threads';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type {
  DocumentCollection,
  Projection,
  ReadModelDocument,
  ReadModelStore,
  StagingReadModels,
} from '../../application/ports/ReadModelStore.js';
import type { SqliteCheckpointStore } from './SqliteCheckpointStore.js';
import type { SqliteLeaseStore } from './SqliteLeaseStore.js';
import type { SqliteReadModelStore } from './SqliteReadModelStore.js';

/** A batch for the thread: the read models it goes to (by name), its events, and the checkpoint to save. */
export interface ToReadModelThread {
  readonly id: number;
  readonly names: readonly string[];
  readonly events: readonly RecordedEvent[];
  readonly checkpoint: string;
}

/** Or the compaction after an erasure (`SqliteReadModelStore.compact`), by the connection that writes. */
export interface CompactInReadModelThread {
  readonly id: number;
  readonly compact: true;
}

/** The thread's answer: the batch committed (the compaction done, and whether the WAL was emptied), or why not. */
export interface FromReadModelThread {
  readonly id: number;
  readonly error?: string;
  readonly walTruncated?: boolean;
}

/** What the thread opens: the read models' file, with the projections of every name it may be sent. */
export interface ReadModelThreadData {
  readonly file: string;
}

export interface ThreadedReadModelStoreOptions {
  /** The read models' file (the thread opens its own connection to it). */
  readonly file: string;
  /** The thread's script: it opens `file` with the release's projections and applies what it is sent (`readModelThreadMain`). */
  readonly entry: URL;
}

interface InFlight {
  readonly resolve: (answer: FromReadModelThread) => void;
  readonly reject: (error: Error) => void;
}

/**
 * The SQLite read models with their batches applied on a worker thread
 * (`READ_MODEL_THREAD`, decision 87): the projector's `applyBatch` posts the batch
 * (the read models' names, the events, the checkpoint) to a thread that holds its
 * own connection to the file and commits the documents and the checkpoint together,
 * then answers. Everything else (the reads, the checkpoints' and leases' reads, a
 * rebuild's staging) runs on the connection of `local`, the store on the event loop:
 * once the thread answered, that connection sees the batch, as another process's
 * reader would. The event loop keeps the HTTP work, and the second core takes the
 * read models' writes.
 *
 * A thread that stops (a crash, an error it could not answer) fails the batches it
 * held: the projector applies them again (each document skips what it already
 * applied), on a thread started again with the next batch.
 */
export class ThreadedReadModelStore implements ReadModelStore {
  readonly kind = 'sqlite' as const;
  readonly durable = true;
  private worker: Worker | null = null;
  private readonly inFlight = new Map<number, InFlight>();
  /** Told once no batch is in flight (close waits for them). */
  private readonly whenSettled: (() => void)[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly local: SqliteReadModelStore,
    private readonly options: ThreadedReadModelStoreOptions,
  ) {}

  get checkpoints(): SqliteCheckpointStore {
    return this.local.checkpoints;
  }

  get leases(): SqliteLeaseStore {
    return this.local.leases;
  }

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    return this.local.collection(projection);
  }

  init(): Promise<void> {
    return this.local.init();
  }

  readModelsToBuild(): Promise<readonly string[]> {
    return this.local.readModelsToBuild();
  }

  staging(): Promise<StagingReadModels> {
    return this.local.staging();
  }

  applyBatch(
    collections: readonly DocumentCollection<ReadModelDocument>[],
    events: readonly RecordedEvent[],
    checkpoint: string,
  ): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The read models are closed'));
    for (const collection of collections) {
      if (this.local.collection(collection.projection) !== collection) {
        return Promise.reject(new Error(`Collection ${collection.projection.name} does not belong to this store`));
      }
    }
    if (events.length === 0) return Promise.resolve();
    const id = this.nextId++;
    const message: ToReadModelThread = { id, names: collections.map((collection) => collection.projection.name), events, checkpoint };
    return this.post(message).then(() => undefined);
  }

  /** The compaction after an erasure, run by the thread (its connection is the one that writes the read models). */
  async compact(): Promise<{ readonly walTruncated: boolean }> {
    if (this.closed) throw new Error('The read models are closed');
    const answer = await this.post({ id: this.nextId++, compact: true });
    return { walTruncated: answer.walTruncated === true };
  }

  /** `SqliteReadModelStore.vacuum` on the event loop's connection (an operator's command: writers wait meanwhile). */
  vacuum(): Promise<{ readonly walTruncated: boolean }> {
    return this.local.vacuum();
  }

  private post(message: ToReadModelThread | CompactInReadModelThread): Promise<FromReadModelThread> {
    return new Promise<FromReadModelThread>((resolve, reject) => {
      // Posted before it is kept: a thread that cannot start throws here, holding nothing.
      const worker = this.thread();
      worker.postMessage(message);
      // A batch in flight keeps the process alive (a CLI that brings the read models up to the log waits for it).
      if (this.inFlight.size === 0) worker.ref();
      this.inFlight.set(message.id, { resolve, reject });
    });
  }

  /** Waits for the batches in flight, ends the thread, then closes the event loop's connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Settled by the thread's answers, or by its end.
    if (this.inFlight.size > 0) await new Promise<void>((done) => this.whenSettled.push(done));
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    await this.local.close();
  }

  private settle(id: number, error: Error | null, answer: FromReadModelThread = { id }): void {
    const batch = this.inFlight.get(id);
    if (!batch) return;
    this.inFlight.delete(id);
    if (error) batch.reject(error);
    else batch.resolve(answer);
    if (this.inFlight.size > 0) return;
    this.worker?.unref();
    for (const done of this.whenSettled.splice(0)) done();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const started = new Worker(this.options.entry, { workerData: { file: this.options.file } satisfies ReadModelThreadData });
    started.on('message', (answer: FromReadModelThread) => this.settle(answer.id, answer.error === undefined ? null : new Error(answer.error), answer));
    const gone = (error: Error): void => {
      if (this.worker !== started) return;
      this.worker = null;
      for (const id of [...this.inFlight.keys()]) this.settle(id, error);
    };
    started.on('error', gone);
    started.on('exit', (code) => gone(new Error(`The read-model thread exited with code ${code}`)));
    // Idle, it keeps no process alive: the process lives as long as its server and its projector, which close the store.
    started.unref();
    this.worker = started;
    return started;
  }
}
