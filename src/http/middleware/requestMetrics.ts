/** What the request envelope reports to (`ChronicleMetrics.observeRequest`). */
export type ObserveRequest = (method: string, route: string, status: number, seconds: number) => void;

/** The route label of a request no route matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods reported as themselves; anything else Node's parser accepts is `OTHER`, so the label stays bounded. */
export const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A layer of @koa/router as it appears in `ctx.matched`. */
export interface MatchedLayer {
  readonly path: string;
  readonly methods: readonly string[];
}

/**
 * The route template a request matched (`/contacts/:id`), without the base path;
 * for a path that exists but not with this method (405), the path's template;
 * else `unmatched`. Built from the router's matched layers (not from the raw
 * path), so ids never become label values.
 */
export const routeTemplate = (matched: readonly MatchedLayer[] | undefined, method: string, basePath: string): string => {
  const routes = (matched ?? []).filter((layer) => layer.methods.length > 0);
  const layer = routes.findLast((l) => l.methods.includes(method)) ?? routes.at(-1);
  if (!layer) return UNMATCHED_ROUTE;
  const path = basePath && layer.path.startsWith(basePath) ? layer.path.slice(basePath.length) : layer.path;
  return path === '' ? '/' : path;
};
