import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import Router from '@koa/router';
import { createApp } from '../../src/http/createApp.js';
import { captureLogger } from '../support/captureLogger.js';

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

  it('carries a request id on every response, keeping a safe one the client sent', async () => {
    const own = await fetch(`${base}/health`, { headers: { 'X-Request-Id': 'abc-123' } });
    expect(own.headers.get('x-request-id')).to.equal('abc-123');
    const unsafe = await fetch(`${base}/health`, { headers: { 'X-Request-Id': 'bad id <script>' } });
    expect(unsafe.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    const none = await fetch(`${base}/nowhere`);
    expect(none.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
