import { requestLineLogger } from '../logging.js';
import type Koa from 'koa';
import { READ_MODELS_CHECKPOINT } from '../application/subscriptions/ProjectionRunner.js';
import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import type { Logger } from '../application/ports/Logger.js';
import type { UsageRecorder } from '../application/usage/UsageRecorder.js';
import { consoleNotFound, consoleRoutes } from '../console/consoleRoutes.js';
import { companyNameReader, companySuspendedReader } from '../features/companies/index.js';
import { apiKeyDirectoryProjection, freshApiKeyVerifier } from '../features/apiKeys/index.js';
import { companiesProjection } from '../features/companies/index.js';
import type { ConsoleDeps } from '../console/ConsoleDeps.js';
import type { Config } from '../config.js';
import { rateLimit } from '../http/middleware/rateLimit.js';
import { createApp } from '../http/createApp.js';
import { openApiRoutes } from '../http/routes/openapi.js';
import { idempotency } from '../http/middleware/idempotency.js';
import type { ApiContext } from '../http/ApiResource.js';
import { API_RESOURCES, CONSOLE_PAGES, adminDocument, apiDocument } from '../features/index.js';
import { personErasureOf } from './erasures.js';
import type { ChronicleMetrics } from '../ops/ChronicleMetrics.js';
import { checkReadiness } from '../ops/readiness.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import { newId } from '../shared/ids.js';
import { lookupAllAddresses, type ResolveHost } from '../webhooks/targetUrlGuard.js';
import { credentialFreshness } from './credentialFreshness.js';
import type { ReadSide } from './readSide.js';
import { adminApi } from './adminApi.js';
import type { ChronicleWebhooks } from './webhooks.js';
import type { StartPlan } from './startPlan.js';
import type { Stores } from './Stores.js';
import type { CompanyExports } from '../application/companyExport/CompanyExports.js';
import { AnsweredWrites } from '../application/subscriptions/AnsweredWrites.js';
import { FailedCredentials } from '../application/credentials/FailedCredentials.js';

export interface AppParts {
  readonly config: Config;
  /** What this process runs (its roles), decided once at start (`startPlan`). */
  readonly plan: StartPlan;
  readonly stores: Stores;
  readonly readSide: ReadSide;
  readonly webhooks: ChronicleWebhooks | null;
  readonly metrics: ChronicleMetrics;
  readonly logger: Logger;
  /** True once a graceful stop began: /ready fails and responses carry `Connection: close`. */
  readonly stopping: () => boolean;
  /** True until the read side and the webhooks have started: resource routes answer 503 `STARTING`. */
  readonly starting: () => boolean;
  /** Resolves webhook target hosts at subscribe; default: the system resolver. */
  readonly resolveHost?: ResolveHost;
  /** The background loops meeting store errors right now, for /ready. */
  readonly health: LoopHealth;
  /** Where each API request is counted for its company (the console's usage). */
  readonly usage?: UsageRecorder;
  /** GET /metrics' text, when it is not this process's own (an API worker of API_WORKERS: every worker's, added up). */
  readonly renderMetrics?: () => Promise<string>;
  /** The time of requests, credentials, console sessions and commands; default the system's. */
  readonly clock?: Clock;
  /** The companies' exports this process writes (the admin API's). */
  readonly exports: CompanyExports;
}

/**
 * The Koa application: /health, /ready and /metrics in every process, whatever
 * its roles (so each can be probed and scraped); the resource routes of the
 * customer API and of the admin API (`/admin`) with RUN_API.
 */
export const buildApp = (parts: AppParts): Koa => {
  const { config, plan, stores, readSide, metrics, logger } = parts;
  const { eventStore, readModels } = stores;
  const lag = readSide.lag;
  if (lag) metrics.trackSubscription(READ_MODELS_CHECKPOINT, lag);
  if (readSide.replica) {
    metrics.trackSubscription('read-replica', readSide.replica.lag);
    metrics.countReplicaReads(readSide.replica.reads);
  }
  const readinessLogger = logger.child({ role: 'readiness' });
  // What each subscription this process runs is doing (connected, waiting for what, dropped), read as it is.
  const subscriptions = () => ({
    ...(readSide.projections ? { 'read-models': readSide.projections.status } : {}),
    ...(parts.webhooks ? { 'webhook-fan-out': parts.webhooks.fanOut.status } : {}),
  });
  const clock = parts.clock ?? systemClock;
  const ops = {
    clock,
    basePath: config.basePath,
    trustProxy: config.trustProxy,
    hsts: config.hsts,
    health: {
      eventStoreKind: eventStore.kind,
      readModelsKind: readModels.kind,
      headPosition: () => eventStore.headPosition(),
      ...(lag ? { projectionLag: lag } : {}),
      subscriptions,
    },
    ready: () =>
      checkReadiness({
        eventStore: () => eventStore.headPosition(),
        readModels: () => readModels.checkpoints.load(READ_MODELS_CHECKPOINT),
        // The lag bound applies where this process serves reads.
        ...(plan.roles.api && lag ? { projectionLag: lag } : {}),
        ...(readSide.replica ? { readReplica: readSide.replica.lag } : {}),
        maxLagMs: config.readyMaxLagMs,
        subscriptions,
        // A subscription stopped at an event this release cannot read fails /ready, naming the event.
        loops: () => parts.health.snapshot(),
        stoppedAt: {
          projections: () => readSide.projections?.failure ?? null,
          webhookFanOut: () => parts.webhooks?.fanOut.failure ?? null,
        },
        stopping: parts.stopping,
        // Not ready while the resource routes answer 503 STARTING, whatever the lag says.
        starting: parts.starting,
        logger: readinessLogger,
      }),
    metrics: {
      render: parts.renderMetrics ?? (() => metrics.render()),
      contentType: metrics.contentType,
      token: config.metricsToken,
      observe: (method: string, route: string, status: number, seconds: number) => metrics.observeRequest(method, route, status, seconds),
    },
    draining: parts.stopping,
  };
  const requestLines = (role: string) => {
    const child = logger.child({ role });
    return { logger: child, requestLogger: requestLineLogger(child) };
  };
  if (!plan.roles.api || !readSide.progress) return createApp({ ...ops, ...requestLines('ops') });
  const api = apiContext(parts, readSide.progress);
  // Refused API keys, admin tokens, console links and session cookies, counted together per client address.
  const failedCredentials = new FailedCredentials(config.failedCredentials, clock, (kind, throttled) =>
    metrics.countFailedCredential(kind, throttled),
  );
  const consolePages = consoleDeps(parts, api, failedCredentials);
  return createApp({
    ...ops,
    ...requestLines('api'),
    publicRouters: [
      openApiRoutes(config.basePath, apiDocument(config.basePath)),
      openApiRoutes(config.basePath, adminDocument(config.basePath), { prefix: '/admin', title: 'Chronicle admin API documentation' }),
    ],
    // The customer console beside the API, on the same stores, behind its own sessions.
    mounted: consoleRoutes(consolePages, CONSOLE_PAGES),
    unmatched: [consoleNotFound(consolePages)],
    api: { ...apiRoutes(parts, api, readSide.progress), failedCredentials },
    admin: adminApi(parts, readSide.progress, api.erasure, failedCredentials),
  });
};

/** What every resource's routes use: the stores and settings, built once. */
const apiContext = (parts: AppParts, progress: NonNullable<ReadSide['progress']>): ApiContext => {
  const { config, stores, readSide, webhooks } = parts;
  const { eventStore, readModels } = stores;
  const clock = parts.clock ?? systemClock;
  const readYourWrites = {
    progress,
    readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
    answeredWrites: new AnsweredWrites(() => progress.position),
  };
  const keys = { store: stores.idempotency, clock, ...readYourWrites };
  return {
    commands: { eventStore, newId, clock },
    readModels,
    readYourWrites,
    idempotency: (route, codec) => idempotency(keys, route, codec),
    appliedPosition: () => readSide.appliedPosition(),
    deletedRecordsRetentionMs: config.deletedRecordsRetentionDays * 24 * 60 * 60 * 1000,
    erasure: personErasureOf(stores, parts.logger.child({ role: 'erasure' })),
    webhooks: {
      outbox: stores.webhookOutbox,
      secrets: stores.webhookSecrets,
      targetUrls: { allowPrivate: config.webhooks.allowPrivateTargets, resolve: parts.resolveHost ?? lookupAllAddresses },
      ...(webhooks ? { wake: () => webhooks.dispatcher.wake() } : {}),
      maxSubscriptionsPerCompany: config.webhooks.maxSubscriptionsPerCompany,
    },
  };
};

/** The console's pages: the API's context, its sessions and usage, and its settings. */
const consoleDeps = (parts: AppParts, api: ApiContext, failedCredentials: FailedCredentials): ConsoleDeps => ({
  basePath: parts.config.basePath,
  commands: api.commands,
  readModels: api.readModels,
  companyName: companyNameReader(api.readModels),
  companySuspended: companySuspendedReader(api.readModels),
  readYourWrites: api.readYourWrites,
  appliedPosition: api.appliedPosition,
  sessions: parts.stores.consoleSessions,
  usage: parts.stores.usage,
  webhooks: api.webhooks,
  rateLimits: parts.config.rateLimit,
  settings: {
    session: parts.config.console.session,
    frameAncestors: parts.config.console.frameAncestors,
    publicOrigin: parts.config.console.publicUrl === undefined ? null : new URL(parts.config.console.publicUrl).origin,
  },
  failedCredentials,
  logger: parts.logger.child({ role: 'console' }),
});

/** The resource routes, each with the stores and settings it needs. */
const apiRoutes = (parts: AppParts, api: ApiContext, progress: NonNullable<ReadSide['progress']>) => {
  const { stores } = parts;
  const { readModels } = stores;
  const readYourWrites = api.readYourWrites;
  // A key issued or revoked a moment ago (by the CLI, in another process) is answered as the log has it.
  const verifyApiKey = freshApiKeyVerifier({
    directory: readModels.collection(apiKeyDirectoryProjection),
    companies: readModels.collection(companiesProjection),
    ...credentialFreshness(parts, progress),
  });
  return {
    verifyApiKey,
    starting: parts.starting,
    rateLimit: rateLimit(stores.rateLimits, parts.clock ?? systemClock, {
      health: parts.health,
      logger: parts.logger.child({ role: 'rate-limits' }),
      ...(parts.usage ? { counted: parts.usage.request.bind(parts.usage) } : {}),
    }),
    ...readYourWrites,
    ...(parts.readSide.replica ? { replica: parts.readSide.replica.reads } : {}),
    findsFirst: new Set(API_RESOURCES.flatMap((resource) => resource.findsFirst ?? [])),
    routers: API_RESOURCES.flatMap((resource) => resource.routes(api)),
  };
};
