import { expect } from 'chai';
import { KEY_REUSE_MS } from '../../src/features/apiKeys/readModels/freshApiKeyVerifier.js';
import { clockAhead } from '../support/clocks.js';
import { startHarness, type Harness } from '../support/httpHarness.js';

const RATE_HEADERS = [
  'x-ratelimit-hourly-limit',
  'x-ratelimit-hourly-remaining',
  'x-ratelimit-hourly-reset',
  'x-ratelimit-daily-limit',
  'x-ratelimit-daily-remaining',
  'x-ratelimit-daily-reset',
];

describe('HTTP: authentication, permissions, GET /test', function () {
  this.timeout(20_000);
  let api: Harness;
  // The server's time, put ahead by the tests that need time to pass.
  const time = clockAhead();
  before(async () => (api = await startHarness({}, undefined, { clock: time })));
  after(() => api.close());

  describe('given no Authorization header', () => {
    it('answers 401 "API key required in Authorization header"', async () => {
      const res = await api.request('GET', '/test', { key: null });
      expect(res.status).to.equal(401);
      expect(res.body).to.include({ success: false, error: 'API key required in Authorization header' });
      expect(res.body.message).to.be.a('string');
    });
  });

  describe('given a malformed key', () => {
    for (const [what, header] of [
      ['another scheme', 'Basic dXNlcjpwYXNz'],
      ['a short key', 'Bearer abc'],
      ['a wrong prefix', 'Bearer sk_live_0123456789012345678901234567890123456'],
      ['no key after Bearer', 'Bearer '],
    ] as const) {
      it(`answers 401 "Invalid API key format" for ${what}`, async () => {
        const res = await api.request('GET', '/test', { key: null, headers: { Authorization: header } });
        expect(res.status).to.equal(401);
        expect(res.body).to.include({ success: false, error: 'Invalid API key format' });
      });
    }

    it('refuses a key with one character changed by its checksum, without a lookup', async () => {
      const last = api.key.at(-1) === 'a' ? 'b' : 'a';
      const res = await api.request('GET', '/test', { key: `${api.key.slice(0, -1)}${last}` });
      expect(res.body.error).to.equal('Invalid API key format');
    });
  });

  describe('given a well-formed key that is not valid', () => {
    it('answers 401 "Invalid API key" for an unknown key', async () => {
      const { generateApiKey } = await import('../../src/shared/apiKeyFormat.js');
      const res = await api.request('GET', '/test', { key: generateApiKey() });
      expect(res.status).to.equal(401);
      expect(res.body).to.include({ success: false, error: 'Invalid API key' });
    });

    it('answers 401 "Invalid API key" for an expired key', async () => {
      const expiresAt = new Date(time.now().getTime() + 60_000);
      const { key } = await api.issueKey(api.companyId, ['contacts:read'], expiresAt);
      expect((await api.request('GET', '/test', { key })).status).to.equal(200);
      time.advance(60_000);
      const res = await api.request('GET', '/test', { key });
      expect(res.status).to.equal(401);
      expect(res.body.error).to.equal('Invalid API key');
    });

    it('answers 401 "Invalid API key" once a key is revoked, at the latest when a key found active stops being answered from memory', async () => {
      const { key, keyId } = await api.issueKey(api.companyId, ['contacts:read']);
      expect((await api.request('GET', '/test', { key })).status).to.equal(200);
      // Revoked, and applied to the read models (how soon a revocation is refused: `npm run bench:timings`).
      await api.revokeKey(keyId);
      // A key found active a moment ago may be answered from memory for KEY_REUSE_MS, part of the revocation bound.
      time.advance(KEY_REUSE_MS);
      const res = await api.request('GET', '/test', { key });
      expect(res.status).to.equal(401);
      expect(res.body.error).to.equal('Invalid API key');
    });
  });

  describe('given a valid key', () => {
    it('GET /test answers the company, the permissions and a timestamp', async () => {
      const { key } = await api.issueKey(api.companyId, ['contacts:read', 'deals:write']);
      const res = await api.request('GET', '/test', { key });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ success: true });
      expect(res.body.message).to.be.a('string');
      expect(res.body.data).to.deep.include({ companyId: api.companyId, permissions: ['contacts:read', 'deals:write'] });
      expect(new Date(res.body.data.timestamp).toISOString()).to.equal(res.body.data.timestamp);
    });

    it('answers 403 naming the required and the available permissions', async () => {
      const { key } = await api.issueKey(api.companyId, ['contacts:read']);
      const res = await api.request('POST', '/contacts', { key, body: { name: 'A', phoneNumber: '+100200300' } });
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.include({
        success: false,
        error: 'Permission denied: contacts:write required',
        requiredPermission: 'contacts:write',
        availablePermissions: ['contacts:read'],
      });
    });

    it('needs contacts:read to read contacts', async () => {
      const { key } = await api.issueKey(api.companyId, ['contacts:write']);
      const res = await api.request('GET', '/contacts', { key });
      expect(res.status).to.equal(403);
      expect(res.body.requiredPermission).to.equal('contacts:read');
    });

    it('puts the six rate-limit headers, as integers, on every authenticated response, errors included', async () => {
      for (const [method, path, status] of [
        ['GET', '/test', 200],
        ['GET', '/contacts/nope', 404],
        ['GET', '/contacts?page=0', 422],
      ] as const) {
        const res = await api.request(method, path);
        expect(res.status).to.equal(status);
        for (const name of RATE_HEADERS) expect(res.headers.get(name), `${name} on ${path}`).to.match(/^\d+$/);
      }
    });

    it('never writes a key to the logs', async () => {
      const { key } = await api.issueKey(api.companyId, ['contacts:read']);
      await api.request('GET', '/test', { key });
      await api.request('GET', '/test', { key: `${key.slice(0, -1)}x` });
      expect(api.logs()).to.contain('"msg":"request"');
      expect(api.logs()).not.to.contain(key.slice(4, 30));
      expect(api.logs()).not.to.contain(api.key.slice(4, 30));
    });
  });
});

describe('HTTP: rate limits through the whole app', function () {
  this.timeout(20_000);
  let api: Harness;
  before(async () => (api = await startHarness({ RATE_LIMIT_HOURLY: '3', RATE_LIMIT_DAILY: '100' })));
  after(() => api.close());

  it('counts down, then answers 429 with retryAfter, the limits and Retry-After', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.request('GET', '/test');
      expect(res.status).to.equal(200);
      remaining.push(res.headers.get('x-ratelimit-hourly-remaining')!);
    }
    expect(remaining).to.deep.equal(['2', '1', '0']);
    const res = await api.request('GET', '/test');
    expect(res.status).to.equal(429);
    expect(res.body).to.deep.include({ success: false, error: 'Rate limit exceeded', limits: { hourly: 3, daily: 100 } });
    expect(res.body.retryAfter).to.be.a('number').within(1, 3600);
    expect(res.headers.get('retry-after')).to.equal(String(res.body.retryAfter));
    const reset = Number(res.headers.get('x-ratelimit-hourly-reset'));
    expect(reset % 3600).to.equal(0);
    expect(reset * 1000).to.be.greaterThan(Date.now());
  });

  it('counts each key apart', async () => {
    const other = await api.newCompany();
    expect((await api.request('GET', '/test', { key: other.key })).status).to.equal(200);
  });
});
