import { expect } from 'chai';
import { adminDocument } from '../../src/features/index.js';
import { KEY_REUSE_MS } from '../../src/application/credentials/freshCredentialVerifier.js';
import { generateAdminToken } from '../../src/shared/adminTokenFormat.js';
import { clockAhead } from '../support/clocks.js';
import { startHarness, type Harness } from '../support/httpHarness.js';

/**
 * The admin API's door: admin tokens only (a customer's API key is refused there,
 * and an admin token on the customer API), in the spec's error bodies; its own
 * rate limit per token; its own OpenAPI document and page; under BASE_PATH.
 */
describe('HTTP admin API: authentication', function () {
  this.timeout(30_000);
  let api: Harness;
  let token: string;
  // The server's time, put ahead by the tests that need time to pass.
  const time = clockAhead();
  before(async () => {
    api = await startHarness({}, undefined, { clock: time });
    token = (await api.issueAdminToken()).token;
  });
  after(() => api.close());

  it('accepts an admin token', async () => {
    const res = await api.request('GET', '/admin/companies', { key: token });
    expect(res.status).to.equal(200);
    expect(res.body.data.map((company: { name: string }) => company.name)).to.include('Demo company');
  });

  it('refuses no token: 401 in the spec\'s error body', async () => {
    const res = await api.request('GET', '/admin/companies', { key: null });
    expect(res.status).to.equal(401);
    expect(res.body).to.include({ success: false, error: 'Admin token required in Authorization header' });
    expect(res.body.message).to.be.a('string');
    expect(res.body.timestamp).to.match(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('refuses a customer API key on the admin API (401, saying it is an API key), even with every permission', async () => {
    const res = await api.request('POST', '/admin/companies', { key: api.key, body: { name: 'Nope' } });
    expect(res.status).to.equal(401);
    expect(res.body).to.include({ success: false, error: 'Invalid admin token format' });
    expect(res.body.message).to.match(/customer API key/);
    expect((await api.request('GET', '/admin/companies?search=Nope', { key: token })).body.data).to.deep.equal([]);
  });

  it('refuses an admin token on the customer API (401, the spec\'s body), and counts nothing against it', async () => {
    for (const [method, path] of [
      ['GET', '/contacts'],
      ['GET', '/test'],
      ['POST', '/contacts'],
    ] as const) {
      const res = await api.request(method, path, { key: token, ...(method === 'POST' ? { body: { name: 'x', phoneNumber: '+4915100000000' } } : {}) });
      expect(res.status, `${method} ${path}`).to.equal(401);
      expect(res.body).to.include({ success: false, error: 'Invalid API key format' });
      expect(res.headers.get('X-RateLimit-Hourly-Limit')).to.equal(null);
    }
  });

  it('refuses a malformed token and an unknown well-formed one', async () => {
    const malformed = await api.request('GET', '/admin/companies', { key: `${token}x` });
    expect([malformed.status, malformed.body.error]).to.deep.equal([401, 'Invalid admin token format']);
    const unknown = await api.request('GET', '/admin/companies', { key: generateAdminToken() });
    expect([unknown.status, unknown.body.error]).to.deep.equal([401, 'Invalid admin token']);
    const scheme = await api.request('GET', '/admin/companies', { key: null, headers: { Authorization: `Basic ${token}` } });
    expect([scheme.status, scheme.body.error]).to.deep.equal([401, 'Invalid admin token format']);
  });

  it('refuses a revoked token, at the latest when a token found active stops being answered from memory', async () => {
    const { token: doomed, tokenId } = await api.issueAdminToken('doomed');
    expect((await api.request('GET', '/admin/companies', { key: doomed })).status).to.equal(200);
    // Revoked, and applied to the read models (how soon a revocation is refused: `npm run bench:timings`).
    await api.revokeAdminToken(tokenId);
    // Found active a moment ago: it may be answered from memory for KEY_REUSE_MS, part of the revocation bound.
    time.advance(KEY_REUSE_MS);
    const res = await api.request('GET', '/admin/companies', { key: doomed });
    expect([res.status, res.body.error]).to.deep.equal([401, 'Invalid admin token']);
  });

  it('answers an unknown admin path with the 404 body, for anyone', async () => {
    const res = await api.request('GET', '/admin/nothing-here', { key: null });
    expect([res.status, res.body.error]).to.deep.equal([404, 'Not found']);
  });

  it('serves its own OpenAPI document and a docs page without a token', async () => {
    const doc = await api.request('GET', '/admin/openapi.json', { key: null });
    expect(doc.status).to.equal(200);
    expect(doc.body).to.deep.equal(JSON.parse(JSON.stringify(adminDocument(''))));
    expect(Object.keys(doc.body.paths)).to.include.members(['/admin/companies', '/admin/companies/{id}/keys/{keyId}']);
    expect(Object.keys(doc.body.paths).some((path: string) => path.startsWith('/contacts'))).to.equal(false);
    const page = await fetch(`${api.baseUrl}/admin/docs`);
    const html = await page.text();
    expect(page.status).to.equal(200);
    expect(html).to.contain('data-openapi-url="/admin/openapi.json"').and.contain('/admin/docs/assets/swagger-ui-bundle.js');
    const asset = /src="([^"]*docs-init\.js[^"]*)"/.exec(html)![1]!;
    expect((await fetch(new URL(asset, api.baseUrl))).status).to.equal(200);
    // The customer API's document stays its own.
    const customer = await api.request('GET', '/openapi.json', { key: null });
    expect(Object.keys(customer.body.paths).some((path: string) => path.startsWith('/admin'))).to.equal(false);
  });
});

describe('HTTP admin API: rate limit per admin token', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness({ ADMIN_RATE_LIMIT_HOURLY: '3', ADMIN_RATE_LIMIT_DAILY: '100' })));
  after(() => api.close());

  it('counts each token apart from the others and from API keys, then answers 429 in the spec\'s body', async () => {
    const [first, second] = [await api.issueAdminToken('first'), await api.issueAdminToken('second')];
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.request('GET', '/admin/companies', { key: first.token });
      expect(res.status).to.equal(200);
      expect(res.headers.get('X-RateLimit-Hourly-Limit')).to.equal('3');
      remaining.push(res.headers.get('X-RateLimit-Hourly-Remaining')!);
    }
    expect(remaining).to.deep.equal(['2', '1', '0']);
    const refused = await api.request('GET', '/admin/companies', { key: first.token });
    expect(refused.status).to.equal(429);
    expect(refused.body).to.include({ success: false, error: 'Rate limit exceeded' });
    expect(refused.body.limits).to.deep.equal({ hourly: 3, daily: 100 });
    expect(refused.body.retryAfter).to.be.a('number').above(0);
    expect(refused.headers.get('Retry-After')).to.equal(String(refused.body.retryAfter));
    // Another token, and the customer API's keys, have their own counts and limits.
    expect((await api.request('GET', '/admin/companies', { key: second.token })).headers.get('X-RateLimit-Hourly-Remaining')).to.equal('2');
    const customer = await api.request('GET', '/test');
    expect([customer.status, customer.headers.get('X-RateLimit-Hourly-Limit')]).to.deep.equal([200, '1000']);
  });
});

describe('HTTP admin API under BASE_PATH', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness({ BASE_PATH: '/api/external' })));
  after(() => api.close());

  it('serves /admin under the base path, its document naming it as the server', async () => {
    const { token } = await api.issueAdminToken();
    const created = await api.request('POST', '/admin/companies', { key: token, body: { name: 'Under a prefix' } });
    expect(created.status).to.equal(201);
    const doc = await api.request('GET', '/admin/openapi.json', { key: null });
    expect(doc.body.servers).to.deep.equal([{ url: '/api/external', description: 'This server' }]);
    const page = await (await fetch(`${api.baseUrl}/admin/docs`)).text();
    expect(page).to.contain('data-openapi-url="/api/external/admin/openapi.json"');
    expect((await fetch(`${api.baseUrl.replace('/api/external', '')}/admin/companies`, { headers: { Authorization: `Bearer ${token}` } })).status).to.equal(404);
  });
});
