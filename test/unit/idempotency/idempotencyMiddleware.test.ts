import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { SqliteIdempotencyStore } from '../../../src/adapters/sqlite/SqliteIdempotencyStore.js';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/openSqliteDatabase.js';
import { HttpError } from '../../../src/http/HttpError.js';
import { errorHandler } from '../../../src/http/middleware/errorHandler.js';
import { idempotency, parseIdempotencyKey, requestFingerprint } from '../../../src/http/middleware/idempotency.js';
import { createLogger } from '../../../src/logging.js';
import { canonicalJson } from '../../../src/shared/canonicalJson.js';
import type { Clock } from '../../../src/shared/Clock.js';

/** The middleware on a bare Koa app, with a handler each test controls and a clock it moves. */
describe('idempotency middleware', () => {
  let server: Server;
  let baseUrl: string;
  let store: SqliteIdempotencyStore;
  let now = new Date('2026-03-01T10:00:00.000Z');
  const clock: Clock = { now: () => now };
  let handler: (ctx: Koa.Context) => Promise<void>;
  let runs = 0;

  before(async () => {
    store = new SqliteIdempotencyStore(openSqliteDatabase(':memory:'), true);
    const app = new Koa();
    app.silent = true;
    app.use(errorHandler(createLogger('silent', new PassThrough()), clock));
    app.use(bodyParser());
    app.use(async (ctx, next) => {
      ctx.state.auth = { companyId: 'company-1', keyId: 'key-1', permissions: [] };
      await next();
    });
    app.use(
      idempotency(
        { store, clock, progress: { position: null, waitFor: async () => true }, readYourWritesTimeoutMs: 10, claimTtlMs: 1000, retentionMs: 10_000 },
        'POST /things',
      ),
    );
    app.use(async (ctx) => {
      runs++;
      await handler(ctx);
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  });
  beforeEach(() => {
    runs = 0;
    now = new Date(now.getTime() + 3_600_000);
  });

  const send = async (key: string, body: unknown = { a: 1 }) => {
    const res = await fetch(`${baseUrl}/things`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
    });
    return { status: res.status, replayed: res.headers.get('Idempotent-Replayed'), body: (await res.json()) as Record<string, unknown> };
  };

  it('does not store a 5xx: the key is released and the retry runs again', async () => {
    handler = async () => {
      throw new Error('database on fire');
    };
    expect((await send('k-500')).status).to.equal(500);
    handler = async (ctx) => {
      ctx.status = 201;
      ctx.body = { success: true, data: { id: 'made' } };
    };
    const retry = await send('k-500');
    expect(retry).to.include({ status: 201, replayed: null });
    expect(runs).to.equal(2);
  });

  it('does not store a 403 or a 422 thrown by the route', async () => {
    for (const status of [403, 422]) {
      runs = 0;
      handler = async () => {
        throw new HttpError(status, 'Refused');
      };
      expect((await send(`k-${status}`)).status).to.equal(status);
      expect((await send(`k-${status}`)).status).to.equal(status);
      expect(runs).to.equal(2);
    }
  });

  it('stores a 404 thrown by the route, with the spec\'s error body, and replays it without running again', async () => {
    handler = async () => {
      throw new HttpError(404, 'Deal not found', 'No deal.');
    };
    const first = await send('k-404');
    expect(first.status).to.equal(404);
    expect(first.body).to.include({ success: false, error: 'Deal not found', message: 'No deal.' });
    const again = await send('k-404');
    expect(again).to.deep.include({ status: 404, replayed: 'true', body: first.body });
    expect(runs).to.equal(1);
  });

  it('forgets a response after the retention time', async () => {
    handler = async (ctx) => {
      ctx.status = 201;
      ctx.body = { success: true, n: runs };
    };
    await send('k-old');
    now = new Date(now.getTime() + 9_999);
    expect((await send('k-old')).replayed).to.equal('true');
    now = new Date(now.getTime() + 2);
    const fresh = await send('k-old', { other: 'body' });
    expect(fresh).to.include({ status: 201, replayed: null });
    expect(runs).to.equal(2);
  });

  it('lets a request take over a key whose first request never answered within the claim time', async () => {
    const fingerprint = requestFingerprint('POST /things', { a: 1 });
    const crashed = await store.claim({ companyId: 'company-1', key: 'k-crash', fingerprint, now, claimTtlMs: 1000 });
    expect(crashed.kind).to.equal('claimed');
    handler = async (ctx) => {
      ctx.status = 201;
      ctx.body = { success: true };
    };
    expect((await send('k-crash')).status).to.equal(409);
    now = new Date(now.getTime() + 1001);
    expect(await send('k-crash')).to.include({ status: 201, replayed: null });
  });

  it('parses keys: printable ASCII 1–255, or the quoted form', () => {
    expect(parseIdempotencyKey('abc DEF-123_~')).to.equal('abc DEF-123_~');
    expect(parseIdempotencyKey('"quoted \\"inner\\" \\\\"')).to.equal('quoted "inner" \\');
    expect(parseIdempotencyKey('""')).to.equal(null);
    expect(parseIdempotencyKey('tab\there')).to.equal(null);
    expect(parseIdempotencyKey('ü')).to.equal(null);
  });

  it('fingerprints the canonical body: key order and spacing do not matter, values and routes do', () => {
    expect(canonicalJson({ b: [1, { d: 2, c: 3 }], a: null })).to.equal('{"a":null,"b":[1,{"c":3,"d":2}]}');
    expect(requestFingerprint('POST /a', { x: 1, y: 2 })).to.equal(requestFingerprint('POST /a', { y: 2, x: 1 }));
    expect(requestFingerprint('POST /a', { x: 1 })).to.not.equal(requestFingerprint('POST /a', { x: 2 }));
    expect(requestFingerprint('POST /a', { x: 1 })).to.not.equal(requestFingerprint('POST /b', { x: 1 }));
  });
});
