import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Router from '@koa/router';
import { createApp } from '../../src/http/createApp.js';
import { captureLogger } from '../support/captureLogger.js';
import { handleCommand } from '../../src/application/commands/handleCommand.js';
import { WrongExpectedRevisionError, type EventStore } from '../../src/application/ports/EventStore.js';
import { newId } from '../../src/shared/ids.js';
import { CounterEvent, counterDecider } from '../support/counterDecider.js';

describe('HTTP errors and request ids', () => {
  let server: Server;
  let base: string;
  const logger = captureLogger();

  before(async () => {
    // A route that fails unexpectedly, mounted only for this test.
    const boom = new Router();
    boom.get('/boom', () => {
      throw new Error('database password is hunter2');
    });
    // A write whose stream changes under it on every attempt (another writer always wins).
    boom.post('/busy', async (ctx) => {
      const alwaysConflicting = {
        readStream: async () => [],
        append: async (stream: string) => {
          throw new WrongExpectedRevisionError(stream, 'no_stream', 0);
        },
      } as unknown as EventStore;
      await handleCommand(
        { eventStore: alwaysConflicting, newId },
        {
          decider: counterDecider,
          eventCodec: CounterEvent,
          stream: 'counter-1',
          command: { type: 'increment', by: 1, max: 10 },
          metadata: { source: 'api', correlationId: 'c' },
        },
      );
      ctx.body = { success: true };
    });
    const app = createApp({
      publicRouters: [boom],
      logger,
      clock: { now: () => new Date('2026-01-01T00:00:00.000Z') },
      basePath: '',
      trustProxy: false,
      health: { eventStoreKind: 'sqlite', readModelsKind: 'memory', headPosition: async () => null },
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers an unknown route with 404 in the error body format', async () => {
    const response = await fetch(`${base}/nowhere`);
    expect(response.status).to.equal(404);
    expect(await response.json()).to.deep.equal({
      success: false,
      error: 'Not found',
      message: 'No route for GET /nowhere',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
  });

  it('answers a known path with a wrong method with 405 and Allow', async () => {
    const response = await fetch(`${base}/health`, { method: 'DELETE' });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.contain('GET');
    expect(await response.json()).to.include({ success: false, error: 'Method not allowed' });
  });

  it('answers an unexpected failure with 500, no internals, and logs it with the request id', async () => {
    const response = await fetch(`${base}/boom`, { headers: { 'X-Request-Id': 'req-42' } });
    expect(response.status).to.equal(500);
    const text = await response.text();
    expect(text).not.to.contain('hunter2');
    expect(text).not.to.contain('at ');
    expect(JSON.parse(text)).to.include({ success: false, error: 'Internal server error', requestId: 'req-42' });
    const logged = logger.lines.find((l) => l.msg === 'request failed');
    expect(logged?.obj).to.include({ requestId: 'req-42', path: '/boom' });
  });

  it('answers a write that met too many concurrent changes with 503, Retry-After and the error body', async () => {
    const response = await fetch(`${base}/busy`, { method: 'POST' });
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('1');
    expect(await response.json()).to.deep.equal({
      success: false,
      error: 'Service unavailable',
      message: 'This record is being changed by other requests right now. Nothing was changed; retry in a moment.',
      code: 'CONCURRENT_CHANGES',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    expect(logger.lines.some((l) => l.msg === 'temporary failure; the client may retry')).to.equal(true);
  });

  it('carries a request id on every response, keeping a safe one the client sent', async () => {
    const own = await fetch(`${base}/health`, { headers: { 'X-Request-Id': 'abc-123' } });
    expect(own.headers.get('x-request-id')).to.equal('abc-123');
    const unsafe = await fetch(`${base}/health`, { headers: { 'X-Request-Id': 'bad id <script>' } });
    expect(unsafe.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const none = await fetch(`${base}/nowhere`);
    expect(none.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
