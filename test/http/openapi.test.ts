import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { silentLogger } from '../../src/application/ports/Logger.js';
import { createApp } from '../../src/http/createApp.js';
import { apiDocument } from '../../src/features/index.js';
import type { JsonSchema, ResponseObject } from '../../src/http/openapi/types.js';
import { openApiRoutes } from '../../src/http/routes/openapi.js';
import { EVERY_PERMISSION } from '../../src/shared/permissions.js';
import { assertMatchesOpenApi, customerApi, openApi, pointer, resolvePointer, validatorAt } from '../support/openApi.js';
import { documentStructureChecks, operationsOf } from '../support/openApiStructure.js';

const operations = () => operationsOf(openApi);

describe('OpenAPI document', () => {
  it('is an OpenAPI 3.1 document whose server is the base path', () => {
    expect(openApi.openapi).to.equal('3.1.0');
    expect(openApi.info.title).to.be.a('string').and.not.equal('');
    expect(apiDocument('/api/external').servers).to.deep.equal([{ url: '/api/external', description: 'This server' }]);
    expect(apiDocument('').servers[0]?.url).to.equal('/');
    // Plain JSON: nothing is lost by serialising it.
    expect(JSON.parse(JSON.stringify(openApi))).to.deep.equal(openApi);
  });

  documentStructureChecks(customerApi);

  it('names the customer API\'s operations', () => {
    expect(operations().map(({ operation }) => operation.operationId)).to.include.members([
      'getHealth',
      'getOpenApiDocument',
      'getApiDocs',
      'testApiKey',
      'listContacts',
      'getContact',
      'createContact',
      'updateContact',
      'listDeals',
      'getDeal',
      'createDeal',
      'changeDealStatus',
      'listAgents',
      'getAgent',
    ]);
  });

  it('marks public operations and names the permission of the others (401, 403, 429, 500 listed)', () => {
    const schemes = Object.keys(openApi.components.securitySchemes);
    expect(openApi.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const security = operation.security ?? openApi.security;
      for (const requirement of security) for (const scheme of Object.keys(requirement)) expect(schemes, where).to.include(scheme);
      if (security.length === 0) {
        expect(['/health', '/ready', '/openapi.json', '/docs'], where).to.include(path);
        expect(operation.responses, where).not.to.have.property('401');
        continue;
      }
      if (path === '/metrics') {
        // No API key; the operator's token only when one is set.
        expect(security, where).to.deep.equal([{}, { metricsToken: [] }]);
        expect(operation.responses, where).to.have.property('401');
        continue;
      }
      expect(operation.responses, where).to.include.keys('401', '429', '500');
      const perItem = operation['x-required-permissions'];
      if (perItem !== undefined) {
        // The permission depends on what is asked for: each is named in the description, and 403 is listed.
        expect(operation['x-required-permission'], where).to.equal(undefined);
        expect(perItem, where).to.have.length.greaterThan(0);
        for (const each of perItem) {
          expect(EVERY_PERMISSION, where).to.include(each);
          expect(operation.description, where).to.contain(`\`${each}\``);
        }
        expect(operation.responses, where).to.have.property('403');
        continue;
      }
      const permission = operation['x-required-permission'];
      if (permission === undefined) {
        expect(operation.description, where).to.contain('no permission needed');
        continue;
      }
      expect(EVERY_PERMISSION, where).to.include(permission);
      expect(operation.responses, where).to.have.property('403');
      expect(operation.description, where).to.contain(`\`${permission}\``);
      // Reads need `:read`, writes `:write`; an erasure its own permission, which no other implies.
      const needed = method === 'get' ? ':read' : path.endsWith('/erase') ? ':erase' : ':write';
      expect(permission, where).to.match(new RegExp(`${needed}$`));
    }
  });

  it('documents X-Request-Id everywhere, rate-limit headers on authenticated answers, Retry-After on 429, X-Log-Position on writes', () => {
    const rateLimitHeaders = [
      'X-RateLimit-Hourly-Limit',
      'X-RateLimit-Hourly-Remaining',
      'X-RateLimit-Hourly-Reset',
      'X-RateLimit-Daily-Limit',
      'X-RateLimit-Daily-Remaining',
      'X-RateLimit-Daily-Reset',
    ];
    for (const { path, method, operation } of operations()) {
      const authenticated = (operation.security ?? openApi.security).some((requirement) => 'bearerAuth' in requirement);
      for (const [status, found] of Object.entries(operation.responses)) {
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const response = ('$ref' in found ? resolvePointer(found.$ref) : found) as ResponseObject;
        const headers = response.headers ?? {};
        expect(headers['X-Request-Id']?.required, where).to.equal(true);
        if (authenticated && status !== '401') {
          for (const name of rateLimitHeaders) {
            expect(headers[name]?.schema, `${where} ${name}`).to.deep.equal({ type: 'integer', minimum: headers[name]?.schema.minimum });
          }
        }
        if (authenticated && /^2/.test(status)) {
          for (const name of rateLimitHeaders) expect(headers[name]?.required, `${where} ${name}`).to.equal(true);
        }
        if (status === '429') expect(headers['Retry-After']?.required, where).to.equal(true);
        // Writes that append to the log say where (redelivery only requeues outbox rows: no log position).
        const appendsToLog = (method === 'post' || method === 'put') && !path.endsWith('/redeliver');
        if (appendsToLog && /^2/.test(status)) expect(headers, where).to.have.property('X-Log-Position');
      }
    }
  });

  it('describes contacts as the routes return them: every field present, optional strings nullable, nothing else', () => {
    const contact = openApi.components.schemas.Contact as JsonSchema;
    expect(contact.additionalProperties).to.equal(false);
    expect([...(contact.required ?? [])].sort()).to.deep.equal(Object.keys(contact.properties ?? {}).sort());
    const validate = validatorAt(pointer('components', 'schemas', 'Contact'));
    const sample = {
      id: '0190f3a4-0000-7000-8000-000000000001',
      name: 'Ada Lovelace',
      firstName: 'Ada',
      lastName: null,
      phoneNumber: '+441234567890',
      email: 'ada@example.com',
      position: null,
      currentCompany: null,
      industrySector: null,
      city: 'London',
      country: null,
      tags: ['vip'],
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    expect(validate(sample), JSON.stringify(validate.errors)).to.equal(true);
    expect(validate({ ...sample, companyId: 'c1' })).to.equal(false);
    expect(validate({ ...sample, createdAt: '2026-01-01T00:00:00Z' }), 'milliseconds required').to.equal(false);
    const { email: _email, ...withoutEmail } = sample;
    expect(validate(withoutEmail)).to.equal(false);
  });

  it('describes deals as the routes return them, and the status endpoint’s body as closed', () => {
    const deal = openApi.components.schemas.Deal as JsonSchema;
    expect(deal.additionalProperties).to.equal(false);
    expect([...(deal.required ?? [])].sort()).to.deep.equal(Object.keys(deal.properties ?? {}).sort());
    const validate = validatorAt(pointer('components', 'schemas', 'Deal'));
    const sample = {
      id: '0190f3a4-0000-7000-8000-000000000002',
      title: 'Website relaunch',
      description: null,
      value: 12500.5,
      currency: 'EUR',
      stage: 'Proposal',
      priority: 'medium',
      probability: 60,
      status: 'won',
      expectedCloseDate: '2026-03-01T00:00:00.000Z',
      actualCloseDate: '2026-02-20T10:00:00.000Z',
      source: null,
      contact: { id: 'c1', name: 'Ada Lovelace', email: null, phoneNumber: '+441234567890', currentCompany: 'Analytical Engines' },
      assignedTo: { id: 'u1', name: 'Grace Hopper', email: 'grace@example.com' },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-02-20T10:00:00.000Z',
    };
    const open = { ...sample, status: 'open', actualCloseDate: null, contact: null, assignedTo: null, stage: null, probability: null };
    for (const body of [sample, open]) expect(validate(body), JSON.stringify(validate.errors)).to.equal(true);
    for (const wrong of [
      { ...sample, companyId: 'c1' },
      { ...sample, currency: 'eur' },
      { ...sample, value: -1 },
      { ...sample, probability: 101 },
      { ...sample, status: 'archived' },
      { ...sample, priority: 'urgent' },
      { ...sample, contact: { ...sample.contact, companyId: 'x' } },
    ]) {
      expect(validate(wrong), JSON.stringify(wrong)).to.equal(false);
    }

    const change = validatorAt(pointer('components', 'schemas', 'DealStatusChange'));
    for (const body of [{ status: 'won' }, { stage: null }, { status: 'lost', actualCloseDate: '2026-10-01' }]) {
      expect(change(body), JSON.stringify(body)).to.equal(true);
    }
    for (const body of [{}, { probability: 90 }, { status: 'won', probability: 90 }, { status: 'archived' }]) {
      expect(change(body), JSON.stringify(body)).to.equal(false);
    }
    // A request that changes nothing writes nothing: X-Log-Position is optional on the status change only.
    const created = openApi.paths['/deals']!.post!.responses['201'] as ResponseObject;
    const changed = openApi.paths['/deals/{id}/status']!.put!.responses['200'] as ResponseObject;
    expect(created.headers?.['X-Log-Position']?.required).to.equal(true);
    expect(changed.headers?.['X-Log-Position']?.required).to.equal(false);
  });

  it('describes agents as the routes return them', () => {
    const agent = openApi.components.schemas.Agent as JsonSchema;
    expect(agent.additionalProperties).to.equal(false);
    expect([...(agent.required ?? [])].sort()).to.deep.equal(Object.keys(agent.properties ?? {}).sort());
    const validate = validatorAt(pointer('components', 'schemas', 'Agent'));
    const sample = {
      id: '0190f3a4-0000-7000-8000-000000000003',
      name: 'Support bot',
      description: null,
      status: 'active',
      channels: ['whatsapp', 'webchat'],
      language: 'de-DE',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    expect(validate(sample), JSON.stringify(validate.errors)).to.equal(true);
    for (const wrong of [
      { ...sample, channels: [] },
      { ...sample, channels: ['sms', 'sms'] },
      { ...sample, channels: ['fax'] },
      { ...sample, status: 'deleted' },
      { ...sample, companyId: 'c1' },
    ]) {
      expect(validate(wrong), JSON.stringify(wrong)).to.equal(false);
    }
    for (const operation of [openApi.paths['/agents']!.get!, openApi.paths['/agents/{id}']!.get!]) {
      expect(operation.description).to.contain('npm run chronicle -- agents create');
    }
  });
});

describe('assertMatchesOpenApi', () => {
  const timestamp = '2026-01-01T00:00:00.000Z';
  const health = { success: true, data: { status: 'ok', eventStore: 'sqlite', readModels: 'memory', lastPosition: '12', projections: null } };

  it('accepts a documented response', () => {
    assertMatchesOpenApi({ method: 'GET', path: '/health', status: 200, body: health });
    assertMatchesOpenApi({
      method: 'POST',
      path: '/contacts',
      status: 422,
      body: { success: false, error: 'Missing required fields', message: 'm', details: { missingFields: ['name'] }, timestamp },
    });
  });

  it('tells the error bodies of deals and agents apart', () => {
    const error = (message: string) => ({ success: false, error: message, message: 'm', timestamp });
    for (const message of ['Bad request', 'Contact not found or does not belong to your company', 'User not found or does not belong to your company']) {
      assertMatchesOpenApi({ method: 'POST', path: '/deals', status: 400, body: error(message) });
    }
    assertMatchesOpenApi({ method: 'GET', path: '/deals/d1', status: 404, body: error('Deal not found') });
    assertMatchesOpenApi({ method: 'PUT', path: '/deals/d1/status', status: 404, body: error('Deal not found') });
    assertMatchesOpenApi({ method: 'GET', path: '/agents/a1', status: 404, body: error('Agent not found') });
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/deals/d1', status: 404, body: error('Contact not found') })).to.throw(
      /OpenAPI mismatch/,
    );
    const foreignContact = error('Contact not found or does not belong to your company');
    expect(() => assertMatchesOpenApi({ method: 'PUT', path: '/deals/d1/status', status: 400, body: foreignContact })).to.throw(/OpenAPI mismatch/);
  });

  it('fails with the ajv errors and the body on a body that does not match', () => {
    expect(() =>
      assertMatchesOpenApi({ method: 'GET', path: '/health', status: 200, body: { ...health, extra: true } }),
    ).to.throw(/GET \/health → 200 \(getHealth\)[\s\S]*additional properties[\s\S]*"extra": true/);
  });

  it('fails on an unknown path (unless it is the app’s 404), an undocumented method (unless 405) or status', () => {
    const notFound = { success: false, error: 'Not found', message: 'No route for GET /nowhere', timestamp };
    assertMatchesOpenApi({ method: 'GET', path: '/nowhere', status: 404, body: notFound });
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/nowhere', status: 200, body: {} })).to.throw(/no documented path/);
    const notAllowed = { success: false, error: 'Method not allowed', message: 'DELETE is not allowed on /contacts', timestamp };
    assertMatchesOpenApi({ method: 'DELETE', path: '/contacts', status: 405, body: notAllowed });
    expect(() => assertMatchesOpenApi({ method: 'DELETE', path: '/contacts', status: 200, body: {} })).to.throw(/not documented/);
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/health', status: 418, body: {} })).to.throw(/status 418 is not documented/);
  });

  it('matches path templates, and checks headers when given', () => {
    const body = { success: false, error: 'Contact not found', message: 'm', timestamp };
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1' });
    // A 404 of an authenticated operation carries the rate-limit headers.
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/contacts/abc', status: 404, body, headers })).to.throw(
      /required header X-RateLimit-Hourly-Limit is missing/,
    );
    for (const [name, value] of [
      ['X-RateLimit-Hourly-Limit', '1000'],
      ['X-RateLimit-Hourly-Remaining', '999'],
      ['X-RateLimit-Hourly-Reset', '1767229200'],
      ['X-RateLimit-Daily-Limit', '10000'],
      ['X-RateLimit-Daily-Remaining', '9999'],
      ['X-RateLimit-Daily-Reset', '1767312000'],
    ] as const) {
      headers.set(name, value);
    }
    assertMatchesOpenApi({ method: 'GET', path: '/contacts/abc', status: 404, body, headers });
    headers.set('X-RateLimit-Daily-Reset', 'tomorrow');
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/contacts/abc', status: 404, body, headers })).to.throw(
      /header X-RateLimit-Daily-Reset/,
    );
  });
});

describe('GET /openapi.json and GET /docs', () => {
  const basePath = '/api/external';
  let server: Server;
  let origin: string;
  const get = (path: string, init?: RequestInit) => fetch(`${origin}${basePath}${path}`, init);

  before(async () => {
    const app = createApp({
      logger: silentLogger,
      clock: { now: () => new Date('2026-01-01T00:00:00.000Z') },
      basePath,
      trustProxy: false,
      health: { eventStoreKind: 'sqlite', readModelsKind: 'memory', headPosition: async () => null },
      publicRouters: [openApiRoutes(basePath, apiDocument(basePath))],
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the document for this base path', async () => {
    const response = await get('/openapi.json');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^application\/json/);
    const body = await response.json();
    expect(body).to.deep.equal(JSON.parse(JSON.stringify(apiDocument(basePath))));
    assertMatchesOpenApi({ method: 'GET', path: '/openapi.json', status: response.status, body, headers: response.headers });
  });

  it('answers /health as documented', async () => {
    const response = await get('/health');
    assertMatchesOpenApi({ method: 'GET', path: '/health', status: response.status, body: await response.json(), headers: response.headers });
  });

  it('serves a Swagger UI page that loads everything from this server, under the base path', async () => {
    const response = await get('/docs');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    const html = await response.text();
    assertMatchesOpenApi({ method: 'GET', path: '/docs', status: response.status, body: html, headers: response.headers });
    expect(html).not.to.match(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(html).to.contain(`data-openapi-url="${basePath}/openapi.json"`);
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    const assets = urls.filter((url) => url !== `${basePath}/openapi.json`);
    expect(assets).to.have.length(5);
    for (const url of assets) expect(url).to.match(new RegExp(`^${basePath}/docs/assets/[a-z0-9.-]+\\?v=\\d+\\.\\d+\\.\\d+$`));
  });

  it('serves the page’s assets: swagger-ui-dist’s own files, gzipped when accepted, and its start-up script', async () => {
    const html = await (await get('/docs')).text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /^application\/javascript/, png: /^image\/png/ };
    for (const url of assets) {
      const response = await fetch(`${origin}${url}`, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(response.status, url).to.equal(200);
      const name = new URL(url, origin).pathname.split('/').pop()!;
      expect(response.headers.get('content-type'), url).to.match(types[name.split('.').pop()!]!);
      expect(response.headers.get('content-encoding'), url).to.equal('gzip');
      expect(response.headers.get('cache-control'), url).to.contain('max-age');
      const bytes = Buffer.from(await response.arrayBuffer()); // fetch has gunzipped it
      if (name === 'docs-init.js') {
        expect(bytes.toString('utf8')).to.contain('SwaggerUIBundle(').and.contain('validatorUrl: null');
      } else {
        expect(bytes.equals(readFileSync(join(dist, name))), `${name} is swagger-ui-dist's file`).to.equal(true);
      }
    }
    const plain = await fetch(`${origin}${basePath}/docs/assets/favicon-16x16.png`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).to.equal(null);
    expect(Buffer.from(await plain.arrayBuffer()).equals(readFileSync(join(dist, 'favicon-16x16.png')))).to.equal(true);
  });

  it('serves nothing else from the package or the disk', async () => {
    for (const path of ['/docs/assets/index.html', '/docs/assets/package.json', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/toString']) {
      const response = await get(path);
      expect(response.status, path).to.equal(404);
      const body = await response.json();
      expect(body).to.include({ success: false, error: 'Not found' });
    }
  });

  it('without a base path, the page points at the root', async () => {
    const page = openApiRoutes('', apiDocument(''));
    expect(page).to.be.an('object');
    const app = createApp({
      logger: silentLogger,
      clock: { now: () => new Date('2026-01-01T00:00:00.000Z') },
      basePath: '',
      trustProxy: false,
      health: { eventStoreKind: 'sqlite', readModelsKind: 'memory', headPosition: async () => null },
      publicRouters: [page],
    });
    const rootServer = createServer(app.callback());
    await new Promise<void>((resolve) => rootServer.listen(0, '127.0.0.1', resolve));
    try {
      const rootOrigin = `http://127.0.0.1:${(rootServer.address() as AddressInfo).port}`;
      const html = await (await fetch(`${rootOrigin}/docs`)).text();
      expect(html).to.contain('data-openapi-url="/openapi.json"');
      expect(html).to.contain('src="/docs/assets/swagger-ui-bundle.js?v=');
      const document = (await (await fetch(`${rootOrigin}/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(document.servers[0]?.url).to.equal('/');
    } finally {
      await new Promise<void>((resolve) => rootServer.close(() => resolve()));
    }
  });
});
