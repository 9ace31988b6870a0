import { expect } from 'chai';
import { loadConfig } from '../../../src/config.js';
import { startPlan } from '../../../src/startup/startPlan.js';

const POSTGRES_URL = 'postgres://chronicle@db.internal:5432/chronicle';

describe('the start-up plan (startPlan): the configuration turned into what a start starts', () => {
  it('every role in one process (npm start): embedded stores, the read models on their thread, rate limits in memory', () => {
    expect(startPlan(loadConfig({}))).to.deep.equal({
      roles: { api: true, projections: true, webhooks: true },
      supervisor: null,
      stores: { log: 'sqlite', readModels: 'sqlite-thread', rateLimits: 'memory' },
      unreadReadModels: false,
      webhookDeliveryThreads: 2,
    });
  });

  it('the API alone beside a separate projector: read models committed alone, rate limits in the shared file, no webhooks', () => {
    expect(startPlan(loadConfig({ RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' }))).to.deep.equal({
      roles: { api: true, projections: false, webhooks: false },
      supervisor: null,
      stores: { log: 'sqlite', readModels: 'sqlite', rateLimits: 'sqlite-file' },
      unreadReadModels: false,
      webhookDeliveryThreads: null,
    });
  });

  it('the projector alone: no API, no webhooks, read models committed alone', () => {
    expect(startPlan(loadConfig({ RUN_API: 'false', RUN_WEBHOOKS: 'false' }))).to.deep.equal({
      roles: { api: false, projections: true, webhooks: false },
      supervisor: null,
      stores: { log: 'sqlite', readModels: 'sqlite', rateLimits: 'memory' },
      unreadReadModels: false,
      webhookDeliveryThreads: null,
    });
  });

  it('the projector alone on in-memory read models (a configuration built by hand: config.ts refuses it): nothing reads them', () => {
    const projector = { ...loadConfig({ READ_MODELS: 'memory' }), roles: { api: false, projections: true, webhooks: false } };
    expect(startPlan(projector)).to.deep.equal({
      roles: { api: false, projections: true, webhooks: false },
      supervisor: null,
      stores: { log: 'sqlite', readModels: 'memory', rateLimits: 'memory' },
      unreadReadModels: true,
      webhookDeliveryThreads: null,
    });
  });

  it('PostgreSQL with four API workers: a supervisor of four workers and a background process; every store in PostgreSQL', () => {
    expect(startPlan(loadConfig({ POSTGRES_URL, API_WORKERS: '4' }))).to.deep.equal({
      roles: { api: true, projections: true, webhooks: true },
      supervisor: { apiWorkers: 4, background: true, rateLimits: null },
      stores: { log: 'postgres', readModels: 'postgres', rateLimits: 'postgres' },
      unreadReadModels: false,
      webhookDeliveryThreads: null,
    });
  });

  it("an API worker its supervisor started (embedded): it asks the supervisor's counters", () => {
    const worker = loadConfig({ API_WORKERS: '1', RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' });
    expect(startPlan(worker, { supervised: 'api' })).to.deep.equal({
      roles: { api: true, projections: false, webhooks: false },
      supervisor: null,
      stores: { log: 'sqlite', readModels: 'sqlite', rateLimits: 'supervisor' },
      unreadReadModels: false,
      webhookDeliveryThreads: null,
    });
  });

  it('embedded with two API workers: the supervisor counts the workers in its memory; no thread, no delivery thread, memory read models', () => {
    expect(startPlan(loadConfig({ API_WORKERS: '2', READ_MODEL_THREAD: 'false', WEBHOOK_DELIVERY_THREAD: 'false' }))).to.deep.equal({
      roles: { api: true, projections: true, webhooks: true },
      supervisor: { apiWorkers: 2, background: true, rateLimits: 'memory' },
      stores: { log: 'sqlite', readModels: 'sqlite-shared-commit', rateLimits: 'memory' },
      unreadReadModels: false,
      webhookDeliveryThreads: null,
    });
    expect(startPlan(loadConfig({ READ_MODELS: 'memory', WEBHOOK_DELIVERY_THREAD: 'false' }))).to.deep.include({
      stores: { log: 'sqlite', readModels: 'memory', rateLimits: 'memory' },
      unreadReadModels: false,
      webhookDeliveryThreads: 0,
    });
  });
});
