import type { ConsoleSessionSettings } from '../application/consoleSessions/ConsoleSessionSettings.js';
import type { FailedCredentials } from '../application/credentials/FailedCredentials.js';
import type { CommandDeps } from '../application/commands/CommandDeps.js';
import type { ConsoleSessionStore } from '../application/ports/ConsoleSessionStore.js';
import type { Logger } from '../application/ports/Logger.js';
import type { RateLimits } from '../application/ports/RateLimitCounters.js';
import type { ReadModelStore } from '../application/ports/ReadModelStore.js';
import type { UsageCounters } from '../application/ports/UsageCounters.js';
import type { WebhookOutbox } from '../application/ports/WebhookOutbox.js';
import type { WebhookSecretStore } from '../application/ports/WebhookSecretStore.js';
import type { ReadModelProgress } from '../application/subscriptions/ReadModelProgress.js';
import type { Position } from '../shared/Position.js';
import type { ResolveHost } from '../webhooks/targetUrlGuard.js';

/** Everything the console's pages use, built once by the start-up (beside the API's context, from the same stores). */
export interface ConsoleDeps {
  /** Every console path starts with it, then `/console`. */
  readonly basePath: string;
  /** The log, new ids and the time: what the application's commands need. */
  readonly commands: CommandDeps;
  readonly readModels: Pick<ReadModelStore, 'collection'>;
  /** A company's name as the pages show it (its id while the read models do not have it yet). */
  readonly companyName: (companyId: string) => Promise<string>;
  /** Whether the platform has suspended the company (as the read models have it): its sessions are signed out. */
  readonly companySuspended: (companyId: string) => Promise<boolean>;
  /** A change answers once its read models applied it (at most this long), so the next page shows it. */
  readonly readYourWrites: { readonly progress: ReadModelProgress; readonly readYourWritesTimeoutMs: number };
  /** How far the read models this process serves have applied the log (the event feed is served up to it). */
  readonly appliedPosition: () => Promise<Position | null>;
  readonly sessions: ConsoleSessionStore;
  readonly usage: Pick<UsageCounters, 'read'>;
  readonly webhooks: {
    readonly outbox: WebhookOutbox;
    readonly secrets: WebhookSecretStore;
    readonly targetUrls: { readonly allowPrivate: boolean; readonly resolve: ResolveHost };
    readonly wake?: () => void;
    /** Subscriptions a company may have at once (paused and disabled ones count), as on the API. */
    readonly maxSubscriptionsPerCompany: number;
  };
  /** The API's per-key limits, shown beside each key's use. */
  readonly rateLimits: RateLimits;
  readonly settings: {
    readonly session: ConsoleSessionSettings;
    /** CSP `frame-ancestors` sources: `'none'` unless the platform embeds the console. */
    readonly frameAncestors: readonly string[];
    /**
     * The origin of CONSOLE_PUBLIC_URL (`https://api.example.com`), which a change's `Origin` must be when it
     * is set (behind a proxy, the Host the server sees may be the proxy's upstream); null: the request's host.
     */
    readonly publicOrigin: string | null;
  };
  /** Refused links and session cookies, counted per client address with the API's keys (429 past the limit). */
  readonly failedCredentials?: FailedCredentials;
  readonly logger: Logger;
}
