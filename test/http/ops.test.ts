import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { silentLogger } from '../../src/application/ports/Logger.js';
import { createApp } from '../../src/http/createApp.js';
import { checkReadiness } from '../../src/ops/readiness.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { anEvent, eventually } from '../support/events.js';
import { startHarness, type Harness } from '../support/httpHarness.js';
import { assertMatchesOpenApi } from '../support/openApi.js';
import { tempDir } from '../support/tempStore.js';
import { startReceiver, type Receiver } from '../unit/webhooks/delivery/support/receiver.js';
import { valueOf } from '../support/prometheusText.js';

/** GET /metrics as Prometheus would, checked against the OpenAPI document. */
const scrape = async (baseUrl: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> => {
  const response = await fetch(`${baseUrl}/metrics`, { headers });
  const text = await response.text();
  const body = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text;
  assertMatchesOpenApi({ method: 'GET', path: '/metrics', status: response.status, body, headers: response.headers });
  return { status: response.status, headers: response.headers, text };
};

/** Every label value in a Prometheus text exposition. */
const labelValues = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .flatMap((line) => [...line.matchAll(/[a-z_]+="([^"]*)"/g)].map((m) => m[1]!));

/** The request log line of the request that sent `requestId`. */
const requestLine = (logs: string, requestId: string): Record<string, unknown> => {
  const line = logs
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === 'request' && l.requestId === requestId);
  if (!line) throw new Error(`no request line for ${requestId}`);
  return line;
};

describe('HTTP: readiness, metrics, CORS and client addresses', function () {
  this.timeout(20_000);
  let api: Harness;
  let receiver: Receiver;
  before(async () => {
    api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_DELAYS_MS: '50' });
    receiver = await startReceiver();
  });
  after(async () => {
    await api.close();
    await receiver.close();
  });

  it('GET /ready answers 200 without an API key when the stores answer and the read models are caught up', async () => {
    const res = await api.request('GET', '/ready', { key: null });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({
      status: 'ready',
      checks: { eventStore: { status: 'ok' }, readModels: { status: 'ok' }, projections: { status: 'ok', lagMs: 0 }, subscriptions: { status: 'ok' } },
    });
  });

  it('GET /metrics labels requests by route template and status, never by raw path, id, company or key', async () => {
    const created = await api.request('POST', '/contacts', { body: { name: 'Ada', phoneNumber: '+44 20 7946 0001' } });
    expect(created.status).to.equal(201);
    const id: string = created.body.data.id;
    for (let i = 0; i < 3; i++) expect((await api.request('GET', `/contacts/${id}`)).status).to.equal(200);
    expect((await api.request('GET', '/contacts/01900000-0000-7000-8000-000000000000')).status).to.equal(404);
    expect((await api.request('GET', `/contacts/${id}`, { key: null })).status).to.equal(401);
    expect((await api.request('GET', `/no/such/path/${id}`)).status).to.equal(404);

    const { status, headers, text } = await scrape(api.baseUrl);
    expect(status).to.equal(200);
    expect(headers.get('content-type')).to.equal('text/plain; version=0.0.4; charset=utf-8');
    expect(valueOf(text, 'chronicle_http_requests_total{method="GET",route="/contacts/:id",status="200"}')).to.equal(3);
    expect(valueOf(text, 'chronicle_http_requests_total{method="GET",route="/contacts/:id",status="404"}')).to.equal(1);
    expect(valueOf(text, 'chronicle_http_requests_total{method="GET",route="/contacts/:id",status="401"}')).to.equal(1);
    expect(valueOf(text, 'chronicle_http_requests_total{method="POST",route="/contacts",status="201"}')).to.equal(1);
    expect(valueOf(text, 'chronicle_http_requests_total{method="GET",route="unmatched",status="404"}')).to.be.at.least(1);
    expect(valueOf(text, 'chronicle_http_request_duration_seconds_count{method="GET",route="/contacts/:id",status="200"}')).to.equal(3);
    expect(text).to.match(/^chronicle_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/contacts\/:id",status="200"\} \d+$/m);

    for (const value of labelValues(text)) {
      expect(value).not.to.contain(id);
      expect(value).not.to.contain(api.companyId);
      expect(value).not.to.contain('/no/such/path');
    }
    expect(text).not.to.contain(api.key);
  });

  it('GET /metrics reports read-model and fan-out progress, outbox rows by state and delivery attempts by outcome', async () => {
    const subscribed = await api.request('POST', '/webhooks/subscribe', { body: { event: 'contact.created', target_url: `${receiver.url}/hook` } });
    expect(subscribed.status).to.equal(201);
    const before = valueOf((await scrape(api.baseUrl)).text, 'chronicle_webhook_attempts_total{outcome="delivered"}') ?? NaN;
    expect((await api.request('POST', '/contacts', { body: { name: 'Grace', phoneNumber: '+44 20 7946 0002' } })).status).to.equal(201);
    await eventually(() => receiver.requests.length === 1, 5000);

    let text = '';
    await eventually(async () => {
      text = (await scrape(api.baseUrl)).text;
      return valueOf(text, 'chronicle_webhook_attempts_total{outcome="delivered"}') === before + 1;
    }, 5000, 20);
    expect(valueOf(text, 'chronicle_webhook_outbox_rows{state="delivered"}')).to.equal(1);
    expect(valueOf(text, 'chronicle_webhook_outbox_rows{state="pending"}')).to.equal(0);
    expect(valueOf(text, 'chronicle_webhook_outbox_rows{state="failed"}')).to.equal(0);
    expect(valueOf(text, 'chronicle_webhook_attempt_duration_seconds_count{outcome="delivered"}')).to.equal(1);
    const head = valueOf(text, 'chronicle_log_head_position');
    expect(head).to.be.above(0);
    expect(valueOf(text, 'chronicle_projection_position{subscription="read-models"}')).to.equal(head);
    expect(valueOf(text, 'chronicle_projection_position{subscription="webhook-fan-out"}')).to.equal(head);
    expect(valueOf(text, 'chronicle_projection_lag_seconds{subscription="read-models"}')).to.equal(0);
    expect(valueOf(text, 'chronicle_projection_caught_up{subscription="read-models"}')).to.equal(1);
  });

  it('sends no CORS headers: keys must never live in browser code', async () => {
    const origin = { Origin: 'https://evil.example' };
    const read = await api.request('GET', '/contacts', { headers: origin });
    expect(read.status).to.equal(200);
    const preflight = await api.request('OPTIONS', '/contacts', {
      key: null,
      headers: { ...origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });
    expect(preflight.status).to.equal(405);
    for (const res of [read, preflight, await api.request('GET', '/health', { key: null, headers: origin })]) {
      expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).to.deep.equal([]);
    }
  });

  it('ignores X-Forwarded-For and X-Forwarded-Proto unless TRUST_PROXY is on', async () => {
    const res = await api.request('GET', '/health', {
      key: null,
      headers: { 'X-Request-Id': 'untrusted-proxy-1', 'X-Forwarded-For': '203.0.113.7', 'X-Forwarded-Proto': 'https' },
    });
    expect(res.status).to.equal(200);
    const line = requestLine(api.logs(), 'untrusted-proxy-1');
    expect(line.ip).to.match(/^(::ffff:)?127\.0\.0\.1$/);
    expect(line.protocol).to.equal('http');
  });
});

describe('HTTP: /ready when the read models fall behind (READY_MAX_LAG_MS)', function () {
  this.timeout(20_000);
  let api: Harness;
  before(async () => (api = await startHarness({ READY_MAX_LAG_MS: '0' })));
  after(() => api.close());

  it('answers 503 in the spec’s error shape, naming the failing check', async () => {
    expect((await api.request('GET', '/ready', { key: null })).status).to.equal(200);
    // The projections stop; an event appended now stays unapplied and ages past the bound.
    await api.chronicle.projections!.stop();
    await api.chronicle.stores.eventStore.append('ops-lag-test', [anEvent('SomethingHappened')], 'no_stream');
    let res = await api.request('GET', '/ready', { key: null });
    await eventually(async () => (res = await api.request('GET', '/ready', { key: null })).status === 503, 2000, 10);
    expect(res.body).to.include({ success: false, error: 'Service unavailable' });
    expect(res.body.message).to.match(/^Not ready: projections lagging\.$/);
    expect(res.body.details.checks.projections.status).to.equal('lagging');
    expect(res.body.details.checks.projections.lagMs).to.be.above(0);
    expect(res.body.details.checks.eventStore).to.deep.equal({ status: 'ok' });
    // Liveness is another question: the process is up.
    expect((await api.request('GET', '/health', { key: null })).status).to.equal(200);
  });
});

describe('HTTP: /health and /ready when a store does not answer', function () {
  this.timeout(20_000);
  let server: Server;
  let origin: string;
  before(async () => {
    const never = (): Promise<never> => new Promise(() => undefined);
    const app = createApp({
      logger: silentLogger,
      clock: { now: () => new Date('2026-01-01T00:00:00.000Z') },
      basePath: '',
      trustProxy: false,
      health: { eventStoreKind: 'eventstoredb', readModelsKind: 'mongodb', headPosition: never, projectionLag: never },
      ready: () =>
        checkReadiness({
          eventStore: never,
          readModels: async () => null,
          projectionLag: never,
          maxLagMs: 5000,
          checkTimeoutMs: 100,
          stopping: () => false,
          logger: silentLogger,
        }),
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (path: string) => {
    const response = await fetch(`${origin}${path}`);
    const body = (await response.json()) as any;
    assertMatchesOpenApi({ method: 'GET', path, status: response.status, body, headers: response.headers });
    return { status: response.status, body };
  };

  it('GET /health still answers 200 (alive), without the figures it could not read', async () => {
    const { status, body } = await get('/health');
    expect(status).to.equal(200);
    expect(body.data).to.deep.include({ status: 'ok', lastPosition: null, projections: null });
  });

  it('GET /ready answers 503 within its bound, naming the checks that timed out', async () => {
    const { status, body } = await get('/ready');
    expect(status).to.equal(503);
    expect(body.message).to.equal('Not ready: eventStore timeout, projections timeout.');
    expect(body.details.checks).to.deep.equal({
      eventStore: { status: 'timeout' },
      readModels: { status: 'ok' },
      projections: { status: 'timeout' },
    });
  });
});

describe('HTTP: METRICS_TOKEN', function () {
  this.timeout(20_000);
  const token = 'scrape-4f1d0c9a8b7e6d5c';
  let api: Harness;
  before(async () => (api = await startHarness({ METRICS_TOKEN: token })));
  after(() => api.close());

  it('answers /metrics only to the bearer of the token (401 otherwise), and never logs it', async () => {
    const wrong: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${token}x` },
      { Authorization: `Basic ${token}` },
      { Authorization: `Bearer ${api.key}` },
    ];
    for (const headers of wrong) {
      const res = await scrape(api.baseUrl, headers);
      expect(res.status, JSON.stringify(headers)).to.equal(401);
      expect(JSON.parse(res.text)).to.include({ success: false, error: 'Invalid metrics token' });
      expect(res.headers.get('www-authenticate')).to.equal('Bearer realm="metrics"');
      expect(res.text).not.to.contain('chronicle_');
    }
    const ok = await scrape(api.baseUrl, { Authorization: `Bearer ${token}` });
    expect(ok.status).to.equal(200);
    expect(ok.text).to.contain('chronicle_http_requests_total{method="GET",route="/metrics",status="401"} 4');
    // The other operational routes stay open.
    expect((await api.request('GET', '/ready', { key: null })).status).to.equal(200);
    expect(api.logs()).not.to.contain(token);
  });
});

describe('HTTP: TRUST_PROXY=true', function () {
  this.timeout(20_000);
  let api: Harness;
  before(async () => (api = await startHarness({ TRUST_PROXY: 'true' })));
  after(() => api.close());

  it('logs the client address the proxy added to X-Forwarded-For, and the protocol from X-Forwarded-Proto', async () => {
    await api.request('GET', '/health', {
      key: null,
      headers: { 'X-Request-Id': 'proxied-1', 'X-Forwarded-For': '203.0.113.7', 'X-Forwarded-Proto': 'https' },
    });
    expect(requestLine(api.logs(), 'proxied-1')).to.include({ ip: '203.0.113.7', protocol: 'https' });
  });

  it('takes the last X-Forwarded-For entry, the one the proxy added: entries before it come from the client', async () => {
    await api.request('GET', '/health', {
      key: null,
      headers: { 'X-Request-Id': 'proxied-2', 'X-Forwarded-For': '198.51.100.1, 203.0.113.9', 'X-Forwarded-Proto': 'https' },
    });
    expect(requestLine(api.logs(), 'proxied-2')).to.include({ ip: '203.0.113.9' });
  });
});

describe('roles (RUN_API, RUN_PROJECTIONS, RUN_WEBHOOKS)', function () {
  this.timeout(30_000);

  it('RUN_WEBHOOKS=false runs no fan-out and no dispatcher, and reports no webhook metrics; the API works', async () => {
    const api = await startHarness({ RUN_WEBHOOKS: 'false' });
    try {
      expect(api.chronicle.webhooks).to.equal(null);
      expect((await api.request('POST', '/contacts', { body: { name: 'Ada', phoneNumber: '+44 20 7946 0003' } })).status).to.equal(201);
      const { text } = await scrape(api.baseUrl);
      expect(text).not.to.contain('chronicle_webhook_');
      expect(text).not.to.contain('subscription="webhook-fan-out"');
      expect(text).to.contain('chronicle_projection_position{subscription="read-models"}');
    } finally {
      await api.close();
    }
  });

  describe('RUN_API=false', () => {
    const dir = tempDir('chronicle-ops-');
    let chronicle: Chronicle;
    let logs = '';
    let baseUrl: string;
    before(async () => {
      const logStream = new PassThrough();
      logStream.on('data', (chunk: Buffer) => (logs += chunk.toString()));
      const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', RUN_API: 'false', BASE_PATH: '/api/external' });
      chronicle = await startChronicle(config, createLogger('info', logStream));
      baseUrl = `http://127.0.0.1:${chronicle.port}/api/external`;
    });
    after(async () => {
      await chronicle.close();
      dir.dispose();
    });
    const get = async (path: string) => {
      const response = await fetch(`${baseUrl}${path}`);
      const text = await response.text();
      return { status: response.status, headers: response.headers, text };
    };

    it('serves /health, /ready and /metrics on PORT, under BASE_PATH, with no lag bound (it serves no reads)', async () => {
      const health = await get('/health');
      expect(health.status).to.equal(200);
      assertMatchesOpenApi({ method: 'GET', path: '/health', status: 200, body: JSON.parse(health.text), headers: health.headers });
      const ready = await get('/ready');
      expect(ready.status).to.equal(200);
      const readyBody = JSON.parse(ready.text);
      assertMatchesOpenApi({ method: 'GET', path: '/ready', status: 200, body: readyBody, headers: ready.headers });
      expect(Object.keys(readyBody.data.checks)).to.deep.equal(['eventStore', 'readModels', 'subscriptions']);
      const { status, text } = await scrape(baseUrl);
      expect(status).to.equal(200);
      expect(text).to.contain('chronicle_projection_caught_up{subscription="read-models"} 1');
      expect(text).to.contain('chronicle_webhook_outbox_rows{state="pending"} 0');
      expect(logs).to.contain('listening (health, readiness and metrics only)');
    });

    it('serves no resource route, no documentation, and creates no demo key', async () => {
      expect(chronicle.demo).to.equal(null);
      for (const path of ['/contacts', '/test', '/openapi.json', '/docs']) {
        const res = await get(path);
        expect(res.status, path).to.equal(404);
        expect(JSON.parse(res.text)).to.include({ success: false, error: 'Not found' });
      }
    });
  });

  it('RUN_API=false RUN_PROJECTIONS=false on the embedded store: a dispatcher-only process beside the API', async () => {
    const dir = tempDir('chronicle-ops-');
    const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', RUN_API: 'false', RUN_PROJECTIONS: 'false' });
    const chronicle = await startChronicle(config, createLogger('silent'));
    try {
      expect(chronicle.projections).to.equal(null);
      expect(chronicle.webhooks).not.to.equal(null);
      const health = await (await fetch(`http://127.0.0.1:${chronicle.port}/health`)).json();
      expect((health as { data: { projections: unknown } }).data.projections).to.equal(null);
      expect((await fetch(`http://127.0.0.1:${chronicle.port}/ready`)).status).to.equal(200);
    } finally {
      await chronicle.close();
      dir.dispose();
    }
  });

  it('RUN_PROJECTIONS=false on the embedded store: an API process that follows the projector beside it', async () => {
    const dir = tempDir('chronicle-ops-');
    const projector = await startChronicle(
      loadConfig({ DATA_DIR: dir.path, PORT: '0', RUN_API: 'false', RUN_WEBHOOKS: 'false' }),
      createLogger('silent'),
    );
    try {
      const api = await startChronicle(
        loadConfig({ DATA_DIR: dir.path, PORT: '0', RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' }),
        createLogger('silent'),
      );
      try {
        expect(api.projections).to.equal(null);
        expect(api.demo, 'the API process bootstraps the demo on an empty log').not.to.equal(null);
        const auth = { authorization: `Bearer ${api.demo!.key}` };
        // The key is known once the projector has applied its issue (the API process follows, it does not project).
        await eventually(async () => (await fetch(`http://127.0.0.1:${api.port}/test`, { headers: auth })).status === 200, 5000, 20);
        const res = await fetch(`http://127.0.0.1:${api.port}/contacts`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Ada', phoneNumber: '+44 20 7946 0000' }),
        });
        expect(res.status).to.equal(201);
        const { data } = (await res.json()) as { data: { id: string } };
        const read = await fetch(`http://127.0.0.1:${api.port}/contacts/${data.id}`, { headers: auth });
        expect(read.status, 'read-your-writes through the projector').to.equal(200);
      } finally {
        await api.close();
      }
    } finally {
      await projector.close();
      dir.dispose();
    }
  });
});
