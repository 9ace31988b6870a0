import type Router from '@koa/router';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import compose from 'koa-compose';
import type { Middleware } from 'koa';

/** A route as the table keeps it: its template (without the base path) and its middleware, composed once. */
interface RouteEntry {
  readonly template: string;
  readonly chain: Middleware;
}

/**
 * The routes of @koa/router routers, looked up in find-my-way's radix tree.
 *
 * Routes are declared with @koa/router (`router.get('/contacts/:id', …)`), whose
 * own dispatch tests each route's regular expression in turn and composes the
 * matching routes' middleware again for every request; here one lookup finds the
 * route, whose middleware was composed when it was added (measured:
 * docs/benchmarks/design-measurements.md, "Routing").
 *
 * Paths match as @koa/router matched them: case-insensitively, with or without
 * a trailing slash, parameters percent-decoded; an empty parameter matches
 * nothing (`/contacts//`). A path and method declared twice is refused at start.
 */
export class RouteTable {
  private readonly tree = FindMyWay({
    caseSensitive: false,
    ignoreTrailingSlash: true,
    // Ids are bounded by their own validation, not by the router (find-my-way's default is 100 characters).
    maxParamLength: 8192,
  });
  private readonly methods = new Set<HTTPMethod>();
  /** `<METHOD> <template>` of every route added. */
  private readonly declared = new Set<string>();

  /** `prefix`: the base path every route is served under ('' for none). */
  constructor(private readonly prefix: string) {}

  /**
   * Adds every route of `router`, each behind `before`, which runs only once the
   * route matched (so an unknown path is a 404 for anyone).
   */
  add(router: Router, before: readonly Middleware[] = []): void {
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string') throw new Error(`RouteTable: a route's path must be a string, not ${String(layer.path)}`);
      if (layer.methods.length === 0) throw new Error(`RouteTable: middleware without a method on ${layer.path} (pass it as \`before\`)`);
      // @koa/router lists HEAD beside each GET itself.
      const methods = layer.methods as HTTPMethod[];
      const entry: RouteEntry = { template: layer.path, chain: compose([...before, ...(layer.stack as Middleware[])]) };
      this.tree.on(methods, this.prefix + layer.path, () => undefined, entry);
      for (const method of methods) {
        this.methods.add(method);
        this.declared.add(`${method} ${layer.path}`);
      }
    }
  }

  /** Whether a route was added for `method` with this template (without the base path): `declares('GET', '/contacts/:id')`. */
  declares(method: string, template: string): boolean {
    return this.declared.has(`${method} ${template}`);
  }

  /** The route a request's method and path match, with its parameters; null when none does. */
  find(method: string, path: string): { readonly route: RouteEntry; readonly params: Record<string, string> } | null {
    const found = this.tree.find(method as HTTPMethod, path);
    if (found === null) return null;
    const params = found.params as Record<string, string>;
    for (const name in params) if (params[name] === '') return null;
    return { route: found.store as RouteEntry, params };
  }

  /** The methods some route serves `path` with, and that route's template (null: no route has the path). */
  allowed(path: string): { readonly methods: readonly string[]; readonly template: string } | null {
    const methods: string[] = [];
    let template: string | null = null;
    for (const method of this.methods) {
      const found = this.find(method, path);
      if (found === null) continue;
      methods.push(method);
      template ??= found.route.template;
    }
    return template === null ? null : { methods, template };
  }

  /**
   * The middleware: the matching route's chain (`ctx.params` its parameters,
   * `ctx.state.route` its template), else the next middleware.
   */
  routes(): Middleware {
    return (ctx, next) => {
      const found = this.find(ctx.method, ctx.path);
      if (found === null) return next();
      ctx.params = found.params;
      ctx.state.route = found.route.template;
      return found.route.chain(ctx, next);
    };
  }
}
