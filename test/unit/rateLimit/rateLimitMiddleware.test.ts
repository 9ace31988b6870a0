import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { MemoryRateLimitCounters } from '../../../src/adapters/memory/MemoryRateLimitCounters.js';
import { SupervisedRateLimitCounters, serveRateLimits } from '../../../src/adapters/ipc/SupervisedRateLimitCounters.js';
import { ipcPair } from '../../support/ipcPair.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import type { RateLimitCounters, RateLimits } from '../../../src/application/ports/RateLimitCounters.js';
import type { AuthContext } from '../../../src/application/callers/AuthContext.js';
import { errorHandler } from '../../../src/http/middleware/errorHandler.js';
import { LEASES_LOOP, RATE_LIMIT_HEADERS, rateLimit } from '../../../src/http/middleware/rateLimit.js';
import { LoopHealth } from '../../../src/application/subscriptions/LoopHealth.js';
import { captureLogger } from '../../support/captureLogger.js';
import { requestEnvelope } from '../../../src/http/middleware/requestEnvelope.js';
import { pointer, validatorAt } from '../../support/openApi.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const epoch = (iso: string) => String(Date.parse(iso) / 1000);

/** A Koa app as createApp builds it, with a stub authentication reading `X-Test-Key`. */
const startApp = async (counters: RateLimitCounters, clock: { now: () => Date }) => {
  let inside = 0;
  let openGate: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (openGate = resolve));

  const router = new Router();
  router.get('/ok', (ctx) => {
    ctx.body = { success: true };
  });
  router.get('/slow', async (ctx) => {
    inside += 1;
    await gate;
    inside -= 1;
    ctx.body = { success: true };
  });
  router.get('/boom', () => {
    throw new Error('unexpected');
  });

  const app = new Koa();
  app.silent = true;
  app.use(requestEnvelope({ logger: silentLogger }));
  app.use(errorHandler(silentLogger, clock));
  app.use(async (ctx, next) => {
    const keyId = ctx.get('X-Test-Key');
    if (keyId !== '') ctx.state.auth = { keyId, companyId: 'company-1', permissions: [] } satisfies AuthContext;
    await next();
  });
  app.use(rateLimit(counters, clock));
  app.use(router.routes());

  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    get: (path: string, key: string | null = 'key-a') => fetch(`${base}${path}`, { headers: key ? { 'X-Test-Key': key } : {} }),
    inside: () => inside,
    release: () => {
      openGate();
      gate = new Promise<void>((resolve) => (openGate = resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

type App = Awaited<ReturnType<typeof startApp>>;

const rateHeaders = (response: Response) =>
  Object.fromEntries(RATE_LIMIT_HEADERS.map((name) => [name, response.headers.get(name)]));

/** The same counts, offered only through the promises of a shared store (no `take`). */
const behindPromises = (counters: MemoryRateLimitCounters): RateLimitCounters => ({
  limits: counters.limits,
  consume: (keyId, now) => counters.consume(keyId, now),
  acquire: (keyId) => counters.acquire(keyId),
  withLimits: (limits) => behindPromises(counters.withLimits(limits)),
});

const kinds: [string, (limits: RateLimits) => RateLimitCounters][] = [
  ['counters in memory, taken at once', (limits) => new MemoryRateLimitCounters(limits)],
  ['counters asked with promises, as a shared store is', (limits) => behindPromises(new MemoryRateLimitCounters(limits))],
  [
    "API_WORKERS' counters: the supervisor's, asked over IPC",
    (limits) => {
      const { worker, supervisor } = ipcPair();
      serveRateLimits(new MemoryRateLimitCounters(limits), supervisor);
      return new SupervisedRateLimitCounters(limits, worker);
    },
  ],
];

for (const [kind, countersFor] of kinds) {
  describe(`rateLimit middleware (${kind})`, () => {
    let now = new Date('2026-03-04T10:20:30.000Z');
    const clock = { now: () => now };
    let app: App;
    const start = async (limits: Partial<RateLimits> = {}) => {
      app = await startApp(countersFor({ hourly: 3, daily: 100, concurrent: 10, ...limits }), clock);
    };
    afterEach(async () => {
      app.release();
      await app.close();
      now = new Date('2026-03-04T10:20:30.000Z');
    });

    it('sets the six headers as integers, resets in Unix epoch seconds of the windows’ ends', async () => {
      await start();
      const response = await app.get('/ok');
      expect(response.status).to.equal(200);
      expect(rateHeaders(response)).to.deep.equal({
        'X-RateLimit-Hourly-Limit': '3',
        'X-RateLimit-Hourly-Remaining': '2',
        'X-RateLimit-Hourly-Reset': epoch('2026-03-04T11:00:00.000Z'),
        'X-RateLimit-Daily-Limit': '100',
        'X-RateLimit-Daily-Remaining': '99',
        'X-RateLimit-Daily-Reset': epoch('2026-03-05T00:00:00.000Z'),
      });
      // The same headers as the OpenAPI document describes them.
      for (const name of RATE_LIMIT_HEADERS) {
        const validate = validatorAt(pointer('paths', '/test', 'get', 'responses', '200', 'headers', name, 'schema'));
        expect(validate(Number(response.headers.get(name))), name).to.equal(true);
      }
    });

    it('counts remaining requests down, and refuses the N+1st with 429, the spec’s body and Retry-After', async () => {
      await start({ hourly: 3 });
      const remaining: (string | null)[] = [];
      for (let i = 0; i < 3; i += 1) {
        const response = await app.get('/ok');
        expect(response.status).to.equal(200);
        remaining.push(response.headers.get('X-RateLimit-Hourly-Remaining'));
      }
      expect(remaining).to.deep.equal(['2', '1', '0']);

      const refused = await app.get('/ok');
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('Retry-After')).to.equal(String(39 * 60 + 30));
      expect(refused.headers.get('X-RateLimit-Hourly-Remaining')).to.equal('0');
      expect(refused.headers.get('X-RateLimit-Daily-Remaining')).to.equal('96');
      expect(refused.headers.get('X-Request-Id')).to.match(/^[0-9a-f-]{36}$/);
      const body = (await refused.json()) as Record<string, unknown>;
      expect(body).to.deep.equal({
        success: false,
        error: 'Rate limit exceeded',
        message:
          'Hourly limit of 3 requests exceeded; it resets at 2026-03-04T11:00:00.000Z. Retry after 2370 seconds.',
        retryAfter: 2370,
        limits: { hourly: 3, daily: 100 },
        timestamp: '2026-03-04T10:20:30.000Z',
      });
      const validate = validatorAt(pointer('components', 'schemas', 'RateLimitError'));
      expect(validate(body), JSON.stringify(validate.errors)).to.equal(true);
    });

    it('at 23:59:30 over the daily limit: retry after 30 s, the message names the daily limit', async () => {
      await start({ hourly: 100, daily: 1 });
      now = new Date('2026-03-04T23:59:30.000Z');
      expect((await app.get('/ok')).status).to.equal(200);
      const refused = await app.get('/ok');
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('Retry-After')).to.equal('30');
      expect(refused.headers.get('X-RateLimit-Daily-Reset')).to.equal(epoch('2026-03-05T00:00:00.000Z'));
      const body = (await refused.json()) as { retryAfter: number; message: string };
      expect(body.retryAfter).to.equal(30);
      expect(body.message).to.equal(
        'Daily limit of 1 request exceeded; it resets at 2026-03-05T00:00:00.000Z. Retry after 30 seconds.',
      );
      now = new Date('2026-03-05T00:00:00.000Z');
      expect((await app.get('/ok')).status).to.equal(200);
    });

    it('counts keys apart', async () => {
      await start({ hourly: 1 });
      expect((await app.get('/ok', 'key-a')).status).to.equal(200);
      expect((await app.get('/ok', 'key-a')).status).to.equal(429);
      const other = await app.get('/ok', 'key-b');
      expect(other.status).to.equal(200);
      expect(other.headers.get('X-RateLimit-Hourly-Remaining')).to.equal('0');
    });

    it('leaves unauthenticated requests alone (no headers, not counted)', async () => {
      await start({ hourly: 1 });
      for (let i = 0; i < 3; i += 1) {
        const response = await app.get('/ok', null);
        expect(response.status).to.equal(200);
        expect(response.headers.get('X-RateLimit-Hourly-Limit')).to.equal(null);
      }
    });

    it('keeps the headers on error responses, and gives the slot back after a failure', async () => {
      await start({ concurrent: 1 });
      const failed = await app.get('/boom');
      expect(failed.status).to.equal(500);
      expect(failed.headers.get('X-RateLimit-Hourly-Remaining')).to.equal('2');
      const after = await app.get('/ok');
      expect(after.status).to.equal(200);
    });

    it('refuses the 11th simultaneous request with 429 (retryAfter 1), and frees the slots afterwards', async () => {
      await start({ hourly: 1000, daily: 1000, concurrent: 10 });
      const slow = Array.from({ length: 10 }, () => app.get('/slow'));
      for (let i = 0; i < 500 && app.inside() < 10; i += 1) await sleep(10);
      expect(app.inside()).to.equal(10);

      const eleventh = await app.get('/slow');
      expect(eleventh.status).to.equal(429);
      expect(eleventh.headers.get('Retry-After')).to.equal('1');
      expect(eleventh.headers.get('X-RateLimit-Hourly-Limit')).to.equal('1000');
      const body = (await eleventh.json()) as Record<string, unknown>;
      expect(body).to.include({ success: false, error: 'Rate limit exceeded', retryAfter: 1 });
      expect(body.message).to.match(/at most 10 at a time/);
      expect(body.limits).to.deep.equal({ hourly: 1000, daily: 1000 });

      app.release();
      const statuses = await Promise.all(slow.map(async (response) => (await response).status));
      expect(statuses).to.deep.equal(Array(10).fill(200));

      // Every slot is back: ten at once again.
      const again = Array.from({ length: 10 }, () => app.get('/slow'));
      for (let i = 0; i < 500 && app.inside() < 10; i += 1) await sleep(10);
      expect(app.inside()).to.equal(10);
      app.release();
      expect(await Promise.all(again.map(async (response) => (await response).status))).to.deep.equal(Array(10).fill(200));
    });
  });
}

describe('rateLimit middleware, given a store that cannot release a concurrency lease', () => {
  it('answers as usual, logs it, and shows the leases loop failing until a release succeeds', async () => {
    const counters = new MemoryRateLimitCounters({ hourly: 100, daily: 100, concurrent: 10 });
    let failRelease = true;
    const flaky = Object.assign(behindPromises(counters), {
      acquire: async (keyId: string) => {
        const release = await counters.acquire(keyId);
        return release && (async () => (failRelease ? Promise.reject(new Error('connection reset')) : release()));
      },
    });
    const health = new LoopHealth();
    const logger = captureLogger();
    const app = new Koa();
    app.silent = true;
    app.use(async (ctx, next) => {
      ctx.state.auth = { keyId: 'key-a', companyId: 'company-1', permissions: [] } satisfies AuthContext;
      await next();
    });
    app.use(rateLimit(flaky, { now: () => new Date() }, { health, logger }));
    app.use((ctx) => {
      ctx.body = { success: true };
    });
    const server: Server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      expect((await fetch(url)).status).to.equal(200);
      expect(health.snapshot()[LEASES_LOOP]?.failures).to.equal(1);
      expect(logger.lines.some((line) => /lease could not be released/.test(line.msg ?? ''))).to.equal(true);
      failRelease = false;
      expect((await fetch(url)).status).to.equal(200);
      expect(health.snapshot()).to.deep.equal({});
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
