import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { CommandDeps } from '../application/commands/CommandDeps.js';
import type { ReadModelProgress } from '../application/subscriptions/ReadModelProgress.js';
import type { AnsweredWrites } from '../application/subscriptions/AnsweredWrites.js';
import type { ReadModelStore } from '../application/ports/ReadModelStore.js';
import type { WebhookOutbox } from '../application/ports/WebhookOutbox.js';
import type { WebhookSecretStore } from '../application/ports/WebhookSecretStore.js';
import type { Position } from '../shared/Position.js';
import type { PersonErasure } from '../application/personalData/PersonErasure.js';
import type { ResolveHost } from '../webhooks/targetUrlGuard.js';
import type { StoredBodyCodec } from './middleware/idempotency.js';
import type { ApiModule } from './openapi/common.js';

/** Everything a resource's routes may use, built once by the start-up and handed to every resource. */
export interface ApiContext {
  /** The log, new ids and the time: what the application's commands need. */
  readonly commands: CommandDeps;
  /** The read models' collections (each resource takes those of its own projections). */
  readonly readModels: Pick<ReadModelStore, 'collection'>;
  /**
   * A write answers once its read models applied it, waiting at most this long; a
   * create answers once durable, and the company's next reads here wait for it (`answeredWrites`).
   */
  readonly readYourWrites: {
    readonly progress: ReadModelProgress;
    readonly readYourWritesTimeoutMs: number;
    readonly answeredWrites: AnsweredWrites;
  };
  /** `Idempotency-Key` on the creating route `route` (`POST /contacts`), its body kept through `codec` when given. */
  idempotency(route: string, codec?: StoredBodyCodec): Middleware;
  /** How far the read models this process serves have applied the log. */
  readonly appliedPosition: () => Promise<Position | null>;
  /** How long a deleted contact or deal stays restorable (DELETED_RECORDS_RETENTION_DAYS), in milliseconds. */
  readonly deletedRecordsRetentionMs: number;
  /** What erasing a person does besides its event (see `PersonErasure`). */
  readonly erasure: PersonErasure;
  readonly webhooks: {
    readonly outbox: WebhookOutbox;
    readonly secrets: WebhookSecretStore;
    /** The target-URL guard's settings: private targets allowed or not, and the resolver (DNS in production). */
    readonly targetUrls: { readonly allowPrivate: boolean; readonly resolve: ResolveHost };
    /** Wakes this process's dispatcher (absent: none runs here; it finds new work at its next look). */
    readonly wake?: () => void;
    /** Subscriptions a company may hold at once (WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY). */
    readonly maxSubscriptionsPerCompany: number;
  };
}

/**
 * One resource of the API (the customer API; the admin API's take an
 * `AdminContext`), declared in one place: its part of the OpenAPI document and its routes. The registry of features (src/features) lists them;
 * the application's routes and its OpenAPI document are both derived from that
 * one list, so they cannot drift apart.
 */
export interface ApiResource<Context = ApiContext> {
  readonly openapi: ApiModule;
  routes(api: Context): readonly Router[];
  /**
   * GET routes (templates) that do not wait up front for the company's creates
   * this instance answered (decision 88): each reads one document that no create
   * changes once it exists, found first and waited for only on a miss
   * (`findAfterCreates`), or reads the log itself.
   */
  readonly findsFirst?: readonly string[];
}
