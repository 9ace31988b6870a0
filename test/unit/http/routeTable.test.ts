import { expect } from 'chai';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { RouteTable } from '../../../src/http/routeTable.js';
import { routeTemplate, UNMATCHED_ROUTE } from '../../../src/http/middleware/requestEnvelope.js';
import { createApp } from '../../../src/http/createApp.js';
import { captureLogger } from '../../support/captureLogger.js';

const answer =
  (name: string): Middleware =>
  (ctx) => {
    ctx.body = name;
  };

/** A table of the shapes this API declares, under a base path. */
const table = (prefix = '/api/external'): RouteTable => {
  const contacts = new Router();
  contacts.get('/contacts', answer('list'));
  contacts.post('/contacts', answer('create'));
  contacts.get('/contacts/:id', answer('get'));
  contacts.put('/contacts/:id', answer('update'));
  contacts.get('/contacts/:id/history', answer('history'));
  const webhooks = new Router();
  webhooks.delete('/webhooks/unsubscribe', answer('unsubscribe'));
  webhooks.delete('/webhooks/:id', answer('delete'));
  webhooks.get('/triggers/:event_type/recent', answer('recent'));
  const health = new Router();
  health.get('/health', answer('health'));
  const routes = new RouteTable(prefix);
  routes.add(health);
  routes.add(contacts);
  routes.add(webhooks);
  return routes;
};

/** What a request reaches: the route's name, template and parameters, or null. */
const reach = async (routes: RouteTable, method: string, path: string) => {
  const ctx = { method, path, state: {} as Record<string, unknown>, params: {} as Record<string, string>, body: undefined as unknown };
  let passed = false;
  await routes.routes()(ctx as never, async () => {
    passed = true;
  });
  return passed ? null : { name: ctx.body, template: ctx.state.route, params: { ...ctx.params } };
};

describe('RouteTable (routes declared with @koa/router, found by find-my-way)', () => {
  it('finds each route by method and path, with its template (no base path) and decoded parameters', async () => {
    const routes = table();
    expect(await reach(routes, 'GET', '/api/external/contacts/c%201')).to.deep.equal({ name: 'get', template: '/contacts/:id', params: { id: 'c 1' } });
    expect(await reach(routes, 'PUT', '/api/external/contacts/c1')).to.include({ name: 'update', template: '/contacts/:id' });
    expect(await reach(routes, 'GET', '/api/external/contacts/c1/history')).to.include({ name: 'history' });
    expect(await reach(routes, 'GET', '/api/external/triggers/deal.won/recent')).to.deep.equal({
      name: 'recent',
      template: '/triggers/:event_type/recent',
      params: { event_type: 'deal.won' },
    });
  });

  it('serves HEAD with each GET, as @koa/router declares it', async () => {
    expect(await reach(table(), 'HEAD', '/api/external/contacts/c1')).to.include({ name: 'get' });
  });

  it('matches as @koa/router did: any letter case, a trailing slash or none', async () => {
    const routes = table();
    expect(await reach(routes, 'GET', '/API/External/Contacts/AbC')).to.deep.include({ name: 'get', params: { id: 'AbC' } });
    expect(await reach(routes, 'GET', '/api/external/contacts/')).to.include({ name: 'list' });
  });

  it('prefers a fixed segment to a parameter, whatever the order they were declared in', async () => {
    const routes = table();
    expect(await reach(routes, 'DELETE', '/api/external/webhooks/unsubscribe')).to.include({ name: 'unsubscribe' });
    expect(await reach(routes, 'DELETE', '/api/external/webhooks/w1')).to.deep.include({ name: 'delete', params: { id: 'w1' } });
  });

  it('passes on what no route serves: other paths, an empty parameter, a path outside the base path', async () => {
    const routes = table();
    expect(await reach(routes, 'GET', '/api/external/nothing')).to.equal(null);
    expect(await reach(routes, 'GET', '/api/external/contacts//')).to.equal(null);
    expect(await reach(routes, 'GET', '/contacts/c1')).to.equal(null);
    expect(await reach(routes, 'DELETE', '/api/external/contacts/c1')).to.equal(null);
  });

  it('tells the methods and the template of a path that exists with other methods (405)', () => {
    const routes = table('');
    expect(routes.allowed('/contacts/c1')).to.deep.equal({ methods: ['HEAD', 'GET', 'PUT'], template: '/contacts/:id' });
    expect(routes.allowed('/contacts')).to.deep.equal({ methods: ['HEAD', 'GET', 'POST'], template: '/contacts' });
    expect(routes.allowed('/nothing')).to.equal(null);
  });

  it('runs the middleware given with a router only once one of its routes matched, composed before the route', async () => {
    const seen: string[] = [];
    const router = new Router();
    router.get('/contacts/:id', answer('get'));
    const routes = new RouteTable('');
    routes.add(router, [
      (ctx, next) => {
        seen.push(`before ${ctx.path}`);
        return next();
      },
    ]);
    expect(await reach(routes, 'GET', '/contacts/c1')).to.include({ name: 'get' });
    expect(await reach(routes, 'GET', '/deals/d1')).to.equal(null);
    expect(seen).to.deep.equal(['before /contacts/c1']);
  });

  it('refuses a route declared twice and router middleware without a method', () => {
    const twice = new Router();
    twice.get('/contacts/:id', answer('a'));
    twice.get('/contacts/:other', answer('b'));
    expect(() => new RouteTable('').add(twice)).to.throw();
    const withUse = new Router();
    withUse.use(answer('mw'));
    withUse.get('/contacts', answer('list'));
    expect(() => new RouteTable('').add(withUse)).to.throw(/without a method/);
  });

  it('says which method and template it declares, without the base path', () => {
    const routes = table();
    expect(routes.declares('GET', '/contacts/:id')).to.equal(true);
    expect(routes.declares('PUT', '/contacts/:id')).to.equal(true);
    expect(routes.declares('GET', '/contacts/:id/history')).to.equal(true);
    expect(routes.declares('DELETE', '/contacts/:id')).to.equal(false);
    expect(routes.declares('GET', '/api/external/contacts/:id')).to.equal(false);
  });

  it('given a findsFirst template that is no GET route, when the app is made, then it refuses to start', () => {
    const contacts = new Router();
    contacts.get('/contacts/:id', answer('get'));
    contacts.put('/contacts/:id/status', answer('status'));
    const app = (findsFirst: string[]) =>
      createApp({
        logger: captureLogger(),
        clock: { now: () => new Date() },
        basePath: '',
        trustProxy: false,
        health: { eventStoreKind: 'sqlite', readModelsKind: 'memory', headPosition: async () => null },
        api: { verifyApiKey: async () => ({ kind: 'invalid' }), routers: [contacts], findsFirst: new Set(findsFirst) },
      });
    expect(() => app(['/contacts/:id'])).not.to.throw();
    expect(() => app(['/contacts/:contactId'])).to.throw('findsFirst names /contacts/:contactId, which is no GET route of the API');
    expect(() => app(['/contacts/:id/status'])).to.throw(/no GET route/);
  });

  it('labels a request by the template it matched, `unmatched` when none did', () => {
    expect(routeTemplate('/contacts/:id')).to.equal('/contacts/:id');
    expect(routeTemplate(undefined)).to.equal(UNMATCHED_ROUTE);
  });
});
