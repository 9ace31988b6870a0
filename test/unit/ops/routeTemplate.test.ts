import { expect } from 'chai';
import { routeTemplate, UNMATCHED_ROUTE } from '../../../src/http/middleware/requestEnvelope.js';

const layer = (path: string, ...methods: string[]) => ({ path, methods });

describe('route template of a request (metrics label)', () => {
  it('is the template of the route matching path and method, without the base path', () => {
    const matched = [layer('/api/external(.*)'), layer('/api/external/contacts/:id', 'HEAD', 'GET'), layer('/api/external/contacts/:id', 'PUT')];
    expect(routeTemplate(matched, 'GET', '/api/external')).to.equal('/contacts/:id');
    expect(routeTemplate(matched, 'PUT', '/api/external')).to.equal('/contacts/:id');
  });

  it('ignores middleware layers (no methods), which match every path', () => {
    expect(routeTemplate([layer('(.*)'), layer('/deals/:id/status', 'PUT')], 'PUT', '')).to.equal('/deals/:id/status');
  });

  it('is the path’s template on a method the path does not have (405)', () => {
    expect(routeTemplate([layer('/contacts', 'HEAD', 'GET', 'POST')], 'DELETE', '')).to.equal('/contacts');
  });

  it('is `unmatched` when no route matched, so raw paths never become labels', () => {
    expect(routeTemplate(undefined, 'GET', '')).to.equal(UNMATCHED_ROUTE);
    expect(routeTemplate([layer('(.*)')], 'GET', '/api')).to.equal(UNMATCHED_ROUTE);
  });

  it('keeps a root route as /', () => {
    expect(routeTemplate([layer('/api', 'GET')], 'GET', '/api')).to.equal('/');
  });
});
