import type { ConsoleSessionStore } from './ConsoleSessionStore.js';
import type { EventStore } from './EventStore.js';
import type { IdempotencyStore } from './IdempotencyStore.js';
import type { RateLimitCounters } from './RateLimitCounters.js';
import type { UsageCounters } from './UsageCounters.js';
import type { ReadModelStore } from './ReadModelStore.js';
import type { SubjectKeyStore } from './SubjectKeyStore.js';
import type { ErasureCompaction } from './ErasureCompaction.js';
import type { ErasureJournal } from './ErasureJournal.js';
import type { CompanyExportStore } from './CompanyExportStore.js';
import type { ReadReplica } from './ReadReplica.js';

/** The keys the log seals people's values with, as erasure uses them (`SubjectKeys`). */
export interface ErasableKeys {
  /** Destroys the subject's key: every value sealed with it is unreadable from then on. */
  erase(subject: string, at: Date): Promise<void>;
}
import type { WebhookOutbox } from './WebhookOutbox.js';
import type { WebhookSecretStore } from './WebhookSecretStore.js';

/** Every store a process uses, picked by `openStores` (src/startup/adapters.ts) from the environment (`openPostgresStores` with POSTGRES_URL). */
export interface Stores {
  readonly eventStore: EventStore;
  readonly readModels: ReadModelStore;
  /** Shared by every API process: in DATA_DIR's `rate-limits.sqlite`, or in MongoDB beside the read models, or in PostgreSQL. */
  readonly rateLimits: RateLimitCounters;
  /** Webhook signing secrets: in the SQLite file (on the event store's connection when it is SQLite), in MongoDB, or in PostgreSQL. */
  readonly webhookSecrets: WebhookSecretStore;
  /** Deliveries waiting or done: in the SQLite file, in MongoDB beside the read models, or in PostgreSQL beside the log. */
  readonly webhookOutbox: WebhookOutbox;
  /** Idempotency keys of creating requests: in the SQLite file, in MongoDB or in PostgreSQL, shared by every process. */
  readonly idempotency: IdempotencyStore;
  /** Customer-console sessions: in DATA_DIR's `console.sqlite`, in MongoDB or in PostgreSQL, shared by every process. */
  readonly consoleSessions: ConsoleSessionStore;
  /** Per-company usage by hour (requests, 429s, deliveries) for the console: beside the console's sessions. */
  readonly usage: UsageCounters;
  /** The data keys of personal fields, per subject: in the SQLite file (on the event store's connection when it is SQLite), in MongoDB, or in PostgreSQL. */
  readonly subjectKeys: SubjectKeyStore;
  /** Companies' exports and their archives, for 24 hours: in DATA_DIR's `exports.sqlite`, in MongoDB or in PostgreSQL, shared by every process. */
  readonly companyExports: CompanyExportStore;
  /**
   * The keys the log seals personal fields with (over `subjectKeys`), shared with
   * erasure, which destroys them: set by `openStores`. Absent where the log seals
   * nothing (stores a test puts together by hand).
   */
  readonly sealingKeys?: ErasableKeys;
  /** `chronicle erasures compact` on this engine (absent: the engine has none; see docs/operators/erasure.md). */
  readonly compaction?: ErasureCompaction;
  /** A replica of the read models' database that this API process reads from (POSTGRES_READ_URL); absent without one. */
  readonly readReplica?: ReadReplica;
  /** Where every erasure is written down, outside the data and its backups (ERASURE_JOURNAL); absent when it is not set. */
  readonly erasureJournal?: ErasureJournal;
}
