'use strict';

const assert = require('node:assert/strict');
const http = require('node:http');
const { loadApp } = require('../lib/app');
const { createRuntime } = require('../lib/runtime');

/**
 * For the same inputs, the Make app and the Zapier app send the same requests: both are run
 * (Zapier's through zapier-platform-core's app tester, Make's through the evaluator) against one
 * recorder that keeps every request and answers as Chronicle would, and their requests are
 * compared: method, path, query, JSON body, the key and the Idempotency-Key. The one difference
 * by design is unsubscribing (see the last test).
 */
describe('Make app and Zapier app: the same requests for the same inputs', function () {
  this.timeout(30_000);
  // The Zapier app and its runtime live in their own package (installed beside this one by .ci/run).
  const zapier = require('../../zapier/node_modules/zapier-platform-core');
  const ZapierApp = require('../../zapier');
  const { EVENTS, triggerKey } = require('../../zapier/lib/triggers');
  const appTester = zapier.createAppTester(ZapierApp);
  const app = loadApp();
  const runtime = createRuntime({ app });

  let server;
  let baseUrl;
  let recorded = [];
  const KEY = 'chr_parityparityparityparityparityparity';

  before(async () => {
    server = http.createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const url = new URL(req.url, 'http://recorder');
        recorded.push({
          method: req.method,
          path: url.pathname,
          query: Object.fromEntries(url.searchParams.entries()),
          body: raw === '' ? undefined : JSON.parse(raw),
          authorization: req.headers.authorization,
          idempotencyKey: req.headers['idempotency-key'],
          json: raw === '' || /^application\/json/.test(req.headers['content-type'] || ''),
        });
        const body = url.pathname.startsWith('/triggers/')
          ? []
          : url.pathname === '/test'
            ? { success: true, message: 'ok', data: { companyId: 'c1', permissions: [], timestamp: new Date().toISOString() } }
            : { success: true, message: 'ok', data: { id: 'rec-1', subscription_id: 'rec-1', secret: 'whsec_cmVj' } };
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${server.address().port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const authData = () => ({ baseUrl, apiKey: KEY });
  const connection = () => ({ baseUrl, apiKey: KEY });

  /** The requests each side sends for one step. */
  const requestsOf = async (step) => {
    recorded = [];
    await step();
    const requests = recorded;
    recorded = [];
    return requests;
  };
  const same = async (what, zapierStep, makeStep) => {
    const fromZapier = await requestsOf(zapierStep);
    const fromMake = await requestsOf(makeStep);
    assert.ok(fromZapier.length > 0, what);
    assert.deepEqual(fromMake, fromZapier, what);
    for (const request of fromMake) assert.equal(request.authorization, `Bearer ${KEY}`, what);
    return fromMake;
  };

  it('checks the connection with GET /test', async () => {
    await same('the connection test', () => appTester(ZapierApp.authentication.test, { authData: authData() }), () => runtime.connect(connection()));
  });

  it('creates a contact: the filled fields, empty ones left out, the Idempotency-Key header', async () => {
    const input = { name: 'Same Request', phoneNumber: '+49 170 1234', email: 'same@example.com', tags: ['a', 'b'], city: '', country: 'DE', idempotencyKey: 'key-1' };
    const [request] = await same(
      'create contact',
      () => appTester(ZapierApp.creates.create_contact.operation.perform, { authData: authData(), inputData: input }),
      () => runtime.run('createContact', connection(), input),
    );
    assert.equal(request.idempotencyKey, 'key-1');
    assert.deepEqual(request.body, { name: 'Same Request', phoneNumber: '+49 170 1234', email: 'same@example.com', tags: ['a', 'b'], country: 'DE' });
    const [plain] = await same(
      'create contact without a key',
      () => appTester(ZapierApp.creates.create_contact.operation.perform, { authData: authData(), inputData: { name: 'N', phoneNumber: '1' } }),
      () => runtime.run('createContact', connection(), { name: 'N', phoneNumber: '1' }),
    );
    assert.equal(plain.idempotencyKey, undefined);
  });

  it('creates a deal: numbers as numbers, the date, the contact', async () => {
    const input = {
      title: 'Same deal',
      value: '1500.5',
      probability: '60',
      priority: 'high',
      currency: '',
      expectedCloseDate: '2026-12-31T00:00:00.000Z',
      contactId: '01a2526e-dad7-75bf-bf46-49575f30516f',
      assignedToId: '01a2526e-dad7-75bf-bf46-49575f305170',
      idempotencyKey: 'deal-1',
    };
    const [request] = await same(
      'create deal',
      () => appTester(ZapierApp.creates.create_deal.operation.perform, { authData: authData(), inputData: input }),
      () => runtime.run('createDeal', connection(), input),
    );
    assert.equal(request.body.value, 1500.5);
    assert.equal(request.body.probability, 60);
  });

  it('changes a deal\'s status: PUT /deals/:id/status with the fields given', async () => {
    const input = { dealId: '01a2526e-db21-76e7-8a91-99ed6d7d3cf9', status: 'won', stage: 'Closed', actualCloseDate: '2026-12-01T00:00:00.000Z' };
    const [request] = await same(
      'change deal status',
      () => appTester(ZapierApp.creates.change_deal_status.operation.perform, { authData: authData(), inputData: input }),
      () => runtime.run('changeDealStatus', connection(), input),
    );
    assert.equal(request.path, `/deals/${input.dealId}/status`);
  });

  for (const { type } of EVENTS) {
    const name = type.split(/[._]/).map((part) => part[0].toUpperCase() + part.slice(1)).join('');
    it(`${type}: subscribes with the same body and polls the same list`, async () => {
      const targetUrl = `https://hook.eu1.make.com/${name}`;
      const operation = ZapierApp.triggers[triggerKey(type)].operation;
      const webhook = app.components.module[`instant${name}`].meta.webhook;
      const [subscribe] = await same(
        `${type} subscribe`,
        () => appTester(operation.performSubscribe, { authData: authData(), targetUrl }),
        () => runtime.attach(webhook, connection(), { id: 1, url: targetUrl }),
      );
      assert.deepEqual(subscribe.body, { event: type, target_url: targetUrl });
      const [poll] = await same(`${type} poll`, () => appTester(operation.performList, { authData: authData() }), () => runtime.poll(`watch${name}`, connection(), {}));
      assert.equal(poll.path, `/triggers/${type}/recent`);
    });
  }

  it('unsubscribes the same subscription, by the specification\'s endpoint (Zapier uses the DELETE /webhooks/:id alias)', async () => {
    const subscription = { id: 'sub-1', subscription_id: 'sub-1' };
    const [fromZapier] = await requestsOf(() => appTester(ZapierApp.triggers.deal_won.operation.performUnsubscribe, { authData: authData(), subscribeData: subscription }));
    const [fromMake] = await requestsOf(() => runtime.detach('dealWonHook', connection(), { subscriptionId: 'sub-1' }));
    assert.deepEqual([fromZapier.method, fromZapier.path], ['DELETE', '/webhooks/sub-1']);
    assert.deepEqual([fromMake.method, fromMake.path, fromMake.body], ['DELETE', '/webhooks/unsubscribe', { subscription_id: 'sub-1' }]);
  });
});
