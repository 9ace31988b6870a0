'use strict';

const assert = require('node:assert/strict');
const { evaluate, template, render, pathsIn, ImlError } = require('../lib/iml');
const { createRuntime, prepareParameters, MakeError } = require('../lib/runtime');

/**
 * The evaluator of the IML subset the app uses, on the examples of Make's own documentation:
 * the help centre's general functions (written there with `;` between arguments and `=` for
 * equality, letters standing for text values), and the Custom Apps documentation's examples of
 * communication (attached webhooks, action and search modules, empty values).
 */
describe('IML evaluator, on Make\'s documented examples', () => {
  describe('general functions (help centre: if, ifempty, switch)', () => {
    // In these examples a, b, c and x are text values: each letter holds itself; `unknown` holds nothing.
    const letters = { a: 'a', b: 'b', c: 'c', x: 'x' };
    const examples = [
      ['if(1=1;a;b)', 'a'],
      ['if(1=2;a;b)', 'b'],
      ['ifempty(a;b)', 'a'],
      ['ifempty(unknown;b)', 'b'],
      ['ifempty("";b)', 'b'],
      ['switch(b;a;1;b;2;c;3)', 2],
      ['switch(c;a;1;b;2;c;3)', 3],
      ['switch(x;a;1;b;2;c;3;4)', 4],
    ];
    for (const [expression, expected] of examples) {
      it(`${expression} = ${expected}`, () => assert.equal(evaluate(expression, letters), expected));
    }
  });

  describe('omit, pick, get and distinct (help centre: what each returns)', () => {
    const contact = { name: 'Jane', email: 'jane@example.com', tags: ['vip'], address: { city: 'Leipzig' } };
    it('omit removes the given keys from a collection, pick keeps only them', () => {
      assert.deepEqual(evaluate("omit(c, 'email', 'tags')", { c: contact }), { name: 'Jane', address: { city: 'Leipzig' } });
      assert.deepEqual(evaluate("pick(c; 'name'; 'email')", { c: contact }), { name: 'Jane', email: 'jane@example.com' });
    });
    it('get reads a path with dot notation; the first item of an array is index 1', () => {
      assert.equal(evaluate("get(c, 'address.city')", { c: contact }), 'Leipzig');
      assert.equal(evaluate('get(array;1+1)', { array: ['first', 'second', 'third'] }), 'second');
    });
    it('distinct removes duplicates, comparing a nested property named with dot notation', () => {
      const deals = [{ owner: { id: 1 } }, { owner: { id: 2 } }, { owner: { id: 1 } }];
      assert.deepEqual(evaluate("distinct(deals, 'owner.id')", { deals }), [{ owner: { id: 1 } }, { owner: { id: 2 } }]);
    });
  });

  describe('templates', () => {
    it('one expression alone keeps its type; mixed with text it becomes text, nothing as empty', () => {
      const context = { body: { data: { companyId: 'c1', count: 3, list: [1] } } };
      assert.deepEqual(template('{{body.data}}', context), context.body.data);
      assert.equal(template('{{body.data.count}}', context), 3);
      assert.equal(template('Company {{body.data.companyId}}', context), 'Company c1');
      assert.equal(template('[{{statusCode}}] {{body.missing}}', { ...context, statusCode: 404 }), '[404] ');
    });
    it('renders every string of a directive and leaves keys as written', () => {
      assert.deepEqual(render({ url: '/deals/{{parameters.id}}/status', qs: { limit: 5 } }, { parameters: { id: 'd1' } }), { url: '/deals/d1/status', qs: { limit: 5 } });
    });
    it('refuses what it does not know instead of guessing', () => {
      assert.throws(() => evaluate('sha256(body)', {}), (e) => e instanceof ImlError && /unknown function sha256/.test(e.message));
      assert.throws(() => evaluate('a ? b : c', {}), ImlError);
    });
    it('names the variables an expression reads (for the reference check)', () => {
      assert.deepEqual(pathsIn("ifempty(body.message, parameters.name + ' ' + temp.x)"), [['body', 'message'], ['parameters', 'name'], ['temp', 'x']]);
    });
  });

  describe('communication examples of the Custom Apps documentation', () => {
    /** A fetch that records each request and answers with the next canned response. */
    const fakeFetch = (answers) => {
      const requests = [];
      const fn = async (url, init) => {
        requests.push({ url: String(url), method: init.method, headers: init.headers, body: init.body === undefined ? undefined : JSON.parse(init.body) });
        const { status = 200, body } = answers.shift();
        return new Response(body === undefined ? '' : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
      };
      fn.requests = requests;
      return fn;
    };
    const appWith = (components, base = { baseUrl: 'https://www.example.com/api' }) => ({
      general: { base, common: {} },
      components: { connection: {}, module: {}, webhook: {}, rpc: {}, ...components },
    });

    it('attach keeps response.data, which detach reads as `webhook` (attached webhooks)', async () => {
      const attach = {
        url: 'https://www.example.com/api/webhook',
        method: 'POST',
        body: { url: '{{webhook.url}}' },
        response: { data: { externalHookId: '{{body.id}}', token: '{{body.token}}' } },
      };
      const detach = { url: 'https://www.example.com/api/webhook/{{webhook.externalHookId}}', method: 'DELETE' };
      const fetchImpl = fakeFetch([{ body: { id: 'hook-7', token: 't0k' } }, { body: {} }]);
      const runtime = createRuntime({ app: appWith({ webhook: { hook: { id: 'hook', codes: { attach, detach, params: [] } } } }, {}), fetchImpl });
      const kept = await runtime.attach('hook', {}, { id: 1, url: 'https://hook.make.com/abc' });
      assert.deepEqual(kept, { externalHookId: 'hook-7', token: 't0k' });
      await runtime.detach('hook', {}, kept);
      assert.deepEqual(fetchImpl.requests.map((r) => [r.method, r.url, r.body]), [
        ['POST', 'https://www.example.com/api/webhook', { url: 'https://hook.make.com/abc' }],
        ['DELETE', 'https://www.example.com/api/webhook/hook-7', undefined],
      ]);
    });

    it('an instant trigger: the webhook maps the payload, and the module fetches more for each bundle with `payload`', async () => {
      const webhookCommunication = { respond: { status: 200 }, iterate: '{{body.items}}', output: { id: '{{item.id}}' } };
      const moduleCommunication = { url: 'http://example.com/api/item/{{payload.id}}', response: { output: { id: '{{payload.id}}', data: '{{body}}' } } };
      const fetchImpl = fakeFetch([{ body: { name: 'first' } }, { body: { name: 'second' } }]);
      const runtime = createRuntime({
        app: appWith({
          webhook: { hook: { id: 'hook', codes: { communication: webhookCommunication, params: [] } } },
          module: { watch: { id: 'watch', meta: { webhook: 'hook' }, codes: { communication: moduleCommunication } } },
        }),
        fetchImpl,
      });
      const bundles = await runtime.instant('watch', {}, {}, { body: { items: [{ id: 1 }, { id: 2 }] } });
      assert.deepEqual(bundles, [{ id: 1, data: { name: 'first' } }, { id: 2, data: { name: 'second' } }]);
      assert.deepEqual(fetchImpl.requests.map((r) => r.url), ['http://example.com/api/item/1', 'http://example.com/api/item/2']);
    });

    it('an action creating a user sends `{{parameters}}` as the body and outputs `{{body}}`; getting one puts the id in the path', async () => {
      const create = { url: '/users', method: 'POST', body: '{{parameters}}', response: { output: '{{body}}' } };
      const get = { url: '/users/{{parameters.userId}}', method: 'GET', response: { output: '{{body}}' } };
      const mappable = [{ name: 'name', type: 'text' }, { name: 'email', type: 'email' }, { name: 'userId', type: 'uinteger' }];
      const fetchImpl = fakeFetch([{ status: 201, body: { id: 1, name: 'Jane' } }, { body: { id: 1, name: 'Jane' } }]);
      const runtime = createRuntime({
        app: appWith({ module: { createUser: { id: 'createUser', codes: { communication: create, mappableParams: mappable.slice(0, 2) } }, getUser: { id: 'getUser', codes: { communication: get, mappableParams: mappable.slice(2) } } } }),
        fetchImpl,
      });
      assert.deepEqual(await runtime.run('createUser', {}, { name: 'Jane', email: '' }), [{ id: 1, name: 'Jane' }]);
      assert.deepEqual(await runtime.run('getUser', {}, { userId: '1' }), [{ id: 1, name: 'Jane' }]);
      assert.deepEqual(fetchImpl.requests.map((r) => [r.method, r.url, r.body]), [
        ['POST', 'https://www.example.com/api/users', { name: 'Jane' }],
        ['GET', 'https://www.example.com/api/users/1', undefined],
      ]);
    });

    it('a search iterates `{{body}}` and outputs each `{{item}}`', async () => {
      const search = { url: '/clients', method: 'GET', response: { iterate: '{{body}}', output: '{{item}}' } };
      const runtime = createRuntime({ app: appWith({ module: { list: { id: 'list', codes: { communication: search } } } }), fetchImpl: fakeFetch([{ body: [{ id: 1 }, { id: 2 }] }]) });
      assert.deepEqual(await runtime.run('list', {}, {}), [{ id: 1 }, { id: 2 }]);
    });

    it('an error response raises the error directive\'s message, its per-status entry first', async () => {
      const base = {
        baseUrl: 'https://www.example.com/api',
        response: { error: { message: '[{{statusCode}}] {{body.error}}', 429: { message: 'Slow down', type: 'RateLimitError' } } },
      };
      const module = { id: 'm', codes: { communication: { url: '/x', response: { output: '{{body}}' } } } };
      const runtime = createRuntime({ app: appWith({ module: { m: module } }, base), fetchImpl: fakeFetch([{ status: 404, body: { error: 'Not found' } }, { status: 429, body: {} }]) });
      await assert.rejects(runtime.run('m', {}, {}), (e) => e instanceof MakeError && e.message === '[404] Not found' && e.statusCode === 404);
      await assert.rejects(runtime.run('m', {}, {}), (e) => e.message === 'Slow down' && e.type === 'RateLimitError');
    });

    it('empty values: an unfilled text, number or array parameter is left out (apps platform 2), a filled one typed', () => {
      const declared = [{ name: 'text', type: 'text' }, { name: 'number', type: 'number' }, { name: 'array', type: 'array' }, { name: 'date', type: 'date' }, { name: 'limit', type: 'uinteger', default: 10 }];
      assert.deepEqual(prepareParameters(declared, { text: '', number: null, array: [], undeclared: 'x' }), { limit: 10 });
      assert.deepEqual(prepareParameters(declared, { text: 'a', number: '1.5', array: ['x'], date: '2026-12-31', limit: '3' }), {
        text: 'a',
        number: 1.5,
        array: ['x'],
        date: '2026-12-31T00:00:00.000Z',
        limit: 3,
      });
    });
  });
});
