import { expect } from 'chai';
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { assertMatchesOpenApi, openApi } from '../support/openApi.js';
import { startHarness, type Harness } from '../support/httpHarness.js';
import { fuzzedValueFor, junk, textFor, type Named } from '../support/schemaArbitrary.js';
import type { HttpMethod, OperationObject, ParameterObject, ReferenceObject } from '../../src/http/openapi/types.js';
import { WEBHOOK_EVENT_TYPES } from '../support/webhookEvents.js';

/**
 * Property-based tests over every operation of the OpenAPI document: random
 * bodies, query strings, headers and path ids. Whatever is sent, the answer is
 * never a 5xx, every error has the spec's body, and every response (2xx
 * included) validates against the document (status, body, documented headers).
 *
 * Bounded: RUNS requests per operation (default 40) from a fixed seed
 * (PROPERTY_SEED, default below; fast-check prints the seed and the shrunk
 * counterexample of a failure, so it can be replayed with PROPERTY_SEED=<seed>).
 * Webhook deliveries are off (RUN_WEBHOOKS=false) and target hosts resolve to a
 * public address without any lookup (never contacted: no dispatcher runs): nothing leaves 127.0.0.1.
 */
const SEED = Number(process.env.PROPERTY_SEED ?? 20_261_123);
const RUNS = Number(process.env.PROPERTY_RUNS ?? 40);

const METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch'];

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

const isReference = (p: ParameterObject | ReferenceObject): p is ReferenceObject => '$ref' in p;

/** A path segment as a client sends it; a lone surrogate (no UTF-8 form) as the invalid bytes a broken client sends. */
const encodeSegment = (value: string): string => {
  try {
    return encodeURIComponent(value);
  } catch {
    return `${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, ''))}%ED%A0%80`;
  }
};

describe('every route under random input (property-based)', function () {
  this.timeout(120_000);
  let api: Harness;
  let named: Named;
  let readOnlyKey: string;
  let otherCompanyKey: string;

  before(async () => {
    api = await startHarness(
      {
        RATE_LIMIT_HOURLY: '1000000',
        RATE_LIMIT_DAILY: '1000000',
        RATE_LIMIT_CONCURRENT: '1000',
        READ_YOUR_WRITES_TIMEOUT_MS: '20',
        RUN_WEBHOOKS: 'false',
      },
      undefined,
      { resolveHost: async () => ['93.184.216.34'] },
    );
    // Real records, so that random requests hit them as well as miss.
    const contact = await api.request('POST', '/contacts', { body: { name: 'Ada', phoneNumber: '+44 20 7946 0000', tags: ['vip'] } });
    const deal = await api.request('POST', '/deals', { body: { title: 'First deal', value: 100, contactId: contact.body.data.id } });
    const hook = await api.request('POST', '/webhooks/subscribe', {
      body: { event: 'contact.created', target_url: 'https://hooks.example.com/chronicle' },
    });
    if (hook.status !== 201) throw new Error(`subscribe: ${hook.status} ${JSON.stringify(hook.body)}`);
    const userId = await api.createUser(api.companyId, 'Grace Hopper', 'grace@example.com');
    ({ key: readOnlyKey } = await api.issueKey(api.companyId, ['contacts:read']));
    ({ key: otherCompanyKey } = await api.newCompany('Another company'));
    const ids = fc.constantFrom(contact.body.data.id as string, deal.body.data.id as string, hook.body.data.id as string, userId);
    named = {
      id: ids,
      contactId: ids,
      assignedToId: ids,
      subscription_id: ids,
      eventId: fc.string({ maxLength: 40 }),
    };
  });
  after(async () => api?.close());

  /** Sends with node:http (which, unlike fetch, also sends a body on GET and DELETE); parses JSON bodies only. */
  const send = (request: Sent): Promise<{ status: number; headers: Headers; body: unknown }> =>
    new Promise((resolve, reject) => {
      // Host, port and path apart: a URL string would be normalised (dot segments resolved) before sending.
      const base = new URL(api.baseUrl);
      const outgoing = httpRequest(
        {
          host: base.hostname,
          port: base.port,
          path: `${base.pathname.replace(/\/$/, '')}${request.path}${request.query}`,
          method: request.method,
          headers: { ...request.headers, ...(request.body !== undefined ? { 'Content-Length': String(Buffer.byteLength(request.body)) } : {}) },
          timeout: 10_000,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const headers = new Headers();
            for (const [name, value] of Object.entries(response.headers)) {
              if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
            }
            const json = (headers.get('content-type') ?? '').includes('json');
            resolve({ status: response.statusCode ?? 0, headers, body: json && text !== '' ? (JSON.parse(text) as unknown) : text });
          });
          response.on('error', reject);
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 10 s')));
      outgoing.on('error', reject);
      outgoing.end(request.body);
    });

  const headerArbitrary = (operation: OperationObject) =>
    fc.record(
      {
        authorization: fc.oneof(
          { weight: 8, arbitrary: fc.constant('demo') },
          { weight: 1, arbitrary: fc.constantFrom('read-only', 'other-company', 'none', 'Bearer chr_nonsense', 'Basic dXNlcjpwdw==', 'Bearer ') },
        ),
        contentType: fc.oneof(
          { weight: 8, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: fc.constantFrom('none', 'text/plain', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded', 'application/JSON') },
        ),
        requestId: fc.option(fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 140 }), { nil: undefined }),
        minLogPosition: fc.option(
          fc.oneof(
            fc.nat({ max: 50 }).map(String),
            fc.constantFrom('99999999999999999999999999', '-1', '1.5', 'abc', ''),
          ),
          { nil: undefined },
        ),
      },
      { requiredKeys: ['authorization', 'contentType'] },
    ).map((h) => ({ ...h, operationSecurity: (operation.security ?? []).length > 0 }));

  const requestArbitrary = (template: string, method: HttpMethod, operation: OperationObject): fc.Arbitrary<Sent> => {
    const parameters = (operation.parameters ?? []).filter((p): p is ParameterObject => !isReference(p));
    const pathParameters = parameters.filter((p) => p.in === 'path');
    const queryParameters = parameters.filter((p) => p.in === 'query');

    const pathValues = fc.record(
      Object.fromEntries(
        pathParameters.map((p) => [
          p.name,
          p.name === 'event_type'
            ? fc.oneof(fc.constantFrom(...WEBHOOK_EVENT_TYPES), textFor({ type: 'string' }))
            : fc.oneof(named.id!.map(String), textFor({ type: 'string', minLength: 1 })),
        ]),
      ),
    );
    const query = fc.tuple(
      fc.record(
        Object.fromEntries(queryParameters.map((p) => [p.name, fc.array(textFor((p.schema ?? {}) as Record<string, unknown>, named), { minLength: 1, maxLength: 2 })])),
        { requiredKeys: [] },
      ),
      fc.option(fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })), { nil: undefined }),
      fc.option(fc.constantFrom('?page=%zz', '?limit=1&limit=2', '?&&=', '?%00=%00'), { freq: 10, nil: undefined }),
    );
    const content = operation.requestBody && !('$ref' in operation.requestBody) ? operation.requestBody.content['application/json'] : undefined;
    const body: fc.Arbitrary<string | undefined> = content?.schema
      ? fc.oneof(
          { weight: 12, arbitrary: fuzzedValueFor(content.schema as Record<string, unknown>, named).map((v) => JSON.stringify(v) ?? 'null') },
          { weight: 1, arbitrary: fc.constantFrom('{', '', 'null', '[]', '"text"', '{"a":', '\u0000') },
          { weight: 1, arbitrary: fc.constant(JSON.stringify({ name: 'x'.repeat(1_100_000) })) },
          { weight: 1, arbitrary: fc.constant(undefined) },
        )
      : fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: junk.map((v) => JSON.stringify(v) ?? 'null') });

    return fc.tuple(pathValues, query, body, headerArbitrary(operation)).map(([pathValue, [params, extra, raw], payload, h]) => {
      const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeSegment(String(pathValue[name] ?? 'x')));
      const search = new URLSearchParams();
      for (const [name, values] of Object.entries(params)) for (const value of values as string[]) search.append(name, value);
      if (extra) search.append(extra[0], extra[1]);
      const queryText = raw ?? (search.size > 0 ? `?${search.toString()}` : '');
      const headers: Record<string, string> = {};
      const keys: Record<string, string | null> = { demo: api.key, 'read-only': readOnlyKey, 'other-company': otherCompanyKey, none: null };
      const key = Object.hasOwn(keys, h.authorization) ? keys[h.authorization] : undefined;
      if (key === undefined) headers.Authorization = h.authorization;
      else if (key !== null) headers.Authorization = `Bearer ${key}`;
      if (payload !== undefined && h.contentType !== 'none') headers['Content-Type'] = h.contentType;
      if (h.requestId !== undefined) headers['X-Request-Id'] = h.requestId;
      if (h.minLogPosition !== undefined) headers['X-Min-Log-Position'] = h.minLogPosition;
      return { method: method.toUpperCase(), path, query: queryText, headers, body: payload };
    });
  };

  const operations = Object.entries(openApi.paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ template, method, operation: item[method]! })),
  );

  it('covers every operation of the document', () => {
    expect(operations.length).to.be.at.least(27);
  });

  for (const { template, method, operation } of operations) {
    it(`${method.toUpperCase()} ${template}: never a 5xx; errors in the spec's shape; every answer as documented`, async () => {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(template, method, operation), async (request) => {
          const response = await send(request);
          const where = `${request.method} ${request.path}${request.query} → ${response.status}`;
          expect(response.status, `${where}\n${JSON.stringify(response.body)}`).to.be.below(500);
          if (response.status >= 400) {
            const body = response.body as Record<string, unknown>;
            expect(body, where).to.be.an('object');
            expect(body.success, where).to.equal(false);
            expect(body.error, where).to.be.a('string');
            expect(Number.isNaN(Date.parse(String(body.timestamp))), where).to.equal(false);
          }
          assertMatchesOpenApi({ method: request.method, path: request.path, status: response.status, body: response.body, headers: response.headers });
        }),
        { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 20_000, markInterruptAsFailure: false },
      );
    });
  }
});
