import { expect } from 'chai';
import type { Middleware } from 'koa';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import { CheckpointProgress } from '../../src/application/subscriptions/ReadModelProgress.js';
import { ADMIN_RESOURCES, adminDocument } from '../../src/features/index.js';
import type { AdminContext } from '../../src/http/AdminResource.js';
import type { ResponseObject } from '../../src/http/openapi/types.js';
import { systemClock } from '../../src/shared/Clock.js';
import { newId } from '../../src/shared/ids.js';
import { adminApi, assertMatchesOpenApi, customerApi } from '../support/openApi.js';
import { documentStructureChecks, operationsOf } from '../support/openApiStructure.js';

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Hourly-Limit',
  'X-RateLimit-Hourly-Remaining',
  'X-RateLimit-Hourly-Reset',
  'X-RateLimit-Daily-Limit',
  'X-RateLimit-Daily-Remaining',
  'X-RateLimit-Daily-Reset',
];

/** The routes the admin resources declare, as `METHOD /path/{param}`, built with a context that is never called. */
const declaredRoutes = (): string[] => {
  const passThrough: Middleware = (_ctx, next) => next();
  const context: AdminContext = {
    commands: { eventStore: {} as AdminContext['commands']['eventStore'], newId, clock: systemClock },
    readModels: new MemoryReadModelStore(),
    readYourWrites: { progress: new CheckpointProgress(async () => null, 1000), readYourWritesTimeoutMs: 1 },
    idempotency: () => passThrough,
    erasure: {} as AdminContext['erasure'],
    companyDeletion: { data: {} as AdminContext['companyDeletion']['data'], retentionMs: 1 },
    exports: {} as AdminContext['exports'],
    webhookSecrets: {} as AdminContext['webhookSecrets'],
    console: { publicUrl: undefined, basePath: '', sessions: { endAll: async () => 0 } },
  };
  return ADMIN_RESOURCES.flatMap((resource) => resource.routes(context)).flatMap((router) =>
    router.stack.flatMap((layer) =>
      layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${String(layer.path).replace(/:([A-Za-z]+)/g, '{$1}')}`),
    ),
  );
};

describe('The admin API\'s OpenAPI document', () => {
  const document = adminApi.document;
  const operations = operationsOf(document);

  documentStructureChecks(adminApi);

  it('is its own document: its paths under /admin, none of the customer API\'s, the server the base path', () => {
    expect(document.info.title).to.equal('Chronicle admin API');
    for (const path of Object.keys(document.paths)) expect(path).to.match(/^\/admin\//);
    const customerPaths = new Set(Object.keys(customerApi.document.paths));
    expect(Object.keys(document.paths).filter((path) => customerPaths.has(path))).to.deep.equal([]);
    expect(adminDocument('/api/external').servers).to.deep.equal([{ url: '/api/external', description: 'This server' }]);
    expect(Object.keys(document.components.securitySchemes)).to.deep.equal(['adminToken']);
  });

  it('documents every route the admin resources declare, and no other', () => {
    const documented = operations
      .filter(({ path }) => path !== '/admin/openapi.json' && path !== '/admin/docs')
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(declaredRoutes().sort()).to.deep.equal(documented.sort());
    expect(documented).to.include.members([
      'POST /admin/companies',
      'GET /admin/companies',
      'GET /admin/companies/{id}',
      'POST /admin/companies/{id}/suspend',
      'POST /admin/companies/{id}/resume',
      'POST /admin/companies/{id}/keys',
      'GET /admin/companies/{id}/keys',
      'DELETE /admin/companies/{id}/keys/{keyId}',
      'POST /admin/companies/{id}/users',
      'GET /admin/companies/{id}/users',
      'POST /admin/companies/{id}/agents',
      'GET /admin/companies/{id}/agents',
      'GET /admin/companies/{id}/agents/{agentId}',
      'PATCH /admin/companies/{id}/agents/{agentId}',
      'POST /admin/companies/{id}/console-sessions',
    ]);
  });

  it('needs an admin token everywhere but on the document and its page: 401, 429, 500 and 503 listed; Idempotency-Key on every creating POST (an erase, a suspension and a resumption are idempotent by themselves; a secret’s rotation is repeated safely, see decision 206)', () => {
    for (const { path, method, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      const security = operation.security ?? document.security;
      if (path === '/admin/openapi.json' || path === '/admin/docs') {
        expect(security, where).to.deep.equal([]);
        continue;
      }
      expect(security, where).to.deep.equal([{ adminToken: [] }]);
      expect(operation.responses, where).to.include.keys('401', '429', '500', '503');
      expect(operation['x-required-permission'], where).to.equal(undefined);
      const parameters = (operation.parameters ?? []).map((parameter) => ('name' in parameter ? parameter.name : ''));
      expect(parameters.includes('Idempotency-Key'), where).to.equal(method === 'post' && !/\/(erase|suspend|resume|rotate-secret)$/.test(path));
    }
  });

  it('documents X-Request-Id everywhere, rate-limit headers on answers after the token, Retry-After on 429, X-Log-Position on creations', () => {
    for (const { path, method, operation } of operations) {
      const authenticated = (operation.security ?? document.security).length > 0;
      for (const [status, found] of Object.entries(operation.responses)) {
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const response = ('$ref' in found ? adminApi.resolvePointer(found.$ref) : found) as ResponseObject;
        const headers = response.headers ?? {};
        expect(headers['X-Request-Id']?.required, where).to.equal(true);
        if (authenticated && /^2/.test(status)) {
          for (const name of RATE_LIMIT_HEADERS) expect(headers[name]?.required, `${where} ${name}`).to.equal(true);
          expect(headers['X-RateLimit-Hourly-Limit']?.description, where).to.contain('admin token');
        }
        if (status === '429') expect(headers['Retry-After']?.required, where).to.equal(true);
        if (method === 'post' && status === '201') expect(headers['X-Log-Position']?.required, where).to.equal(true);
      }
    }
  });

  it('is the document the HTTP tests check answers under /admin against', () => {
    const company = { id: 'c-1', name: 'Acme', createdAt: '2026-01-01T00:00:00.000Z', status: 'active', suspendedAt: null, suspensionReason: null, eraseAfter: null };
    assertMatchesOpenApi({ method: 'GET', path: '/admin/companies/c-1', status: 200, body: { success: true, data: company } });
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/admin/companies/c-1', status: 200, body: { success: true, data: { ...company, extra: 1 } } })).to.throw(
      /OpenAPI mismatch/,
    );
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/admin/companies/c-1', status: 403, body: {} })).to.throw(/status 403 is not documented/);
    const refused = { success: false, error: 'Invalid API key', timestamp: '2026-01-01T00:00:00.000Z' };
    expect(() => assertMatchesOpenApi({ method: 'GET', path: '/admin/companies', status: 401, body: refused })).to.throw(/OpenAPI mismatch/);
    assertMatchesOpenApi({ method: 'GET', path: '/admin/companies', status: 401, body: { ...refused, error: 'Invalid admin token' } });
  });
});
