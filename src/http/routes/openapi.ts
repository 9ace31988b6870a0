import { readFile } from 'node:fs/promises';
import { contentSecurityPolicy } from '../contentSecurityPolicy.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { HttpError } from '../HttpError.js';
import type { OpenApiDocument } from '../openapi/types.js';

const gzipAsync = promisify(gzip);

/** swagger-ui-dist's folder, found without loading its 1.7 MB bundle into Node. */
const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version;

/** The page's own start-up script: static, so the page needs no inline script (CSP-friendly). */
const INITIALIZER = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // No calls to validator.swagger.io: the page works without the internet.
    validatorUrl: null,
  });
});
`;

interface Asset {
  readonly type: string;
  /** A file of swagger-ui-dist, or the content itself. */
  readonly source: { readonly file: string } | { readonly content: string };
}

/** The only files served under /docs/assets/ (a fixed list: no path from the request reaches the file system). */
const ASSETS: Readonly<Record<string, Asset>> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', source: { file: 'swagger-ui.css' } },
  'swagger-ui-bundle.js': { type: 'application/javascript; charset=utf-8', source: { file: 'swagger-ui-bundle.js' } },
  'favicon-32x32.png': { type: 'image/png', source: { file: 'favicon-32x32.png' } },
  'favicon-16x16.png': { type: 'image/png', source: { file: 'favicon-16x16.png' } },
  'docs-init.js': { type: 'application/javascript; charset=utf-8', source: { content: INITIALIZER } },
};

/**
 * The Content-Security-Policy of the docs pages and their assets, with nothing
 * relaxed: nothing is allowed unless named (`default-src 'none'`); scripts and
 * styles from this server only, with neither `'unsafe-inline'` nor `'unsafe-eval'`
 * (the page's start-up script is an asset of its own, and the styles Swagger UI
 * sets on elements go through the DOM's style properties, which CSP does not
 * govern); images from here or `data:` URLs (swagger-ui.css draws its icons as
 * data: SVGs); requests to this origin only (openapi.json, and "Try it out", whose
 * server is this origin's base path); forms posting only here, no plugins, no
 * `<base>`, no framing. test/e2e/docsBrowser.test.ts renders both pages in
 * Chromium under it and fails on any violation it reports.
 */
export const DOCS_CONTENT_SECURITY_POLICY = contentSecurityPolicy("'none'", ["'none'"]);

/** The headers of the docs pages and their assets (errors included): the policy above, no framing, no sniffing. */
const docsSecurityHeaders: Middleware = async (ctx, next) => {
  ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
  // For browsers that ignore frame-ancestors.
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  await next();
};

const escapeHtml = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Where one API's document and its page are served, and what the page is called. */
export interface DocsPlace {
  /** Before `/openapi.json` and `/docs` (after the base path): '' for the customer API, `/admin` for the admin API. */
  readonly prefix: string;
  readonly title: string;
}

const CUSTOMER_DOCS: DocsPlace = { prefix: '', title: 'Chronicle API documentation' };

/** The docs page; every URL in it is absolute under the base path, so it works behind the external prefix. */
const docsPage = (basePath: string, place: DocsPlace): string => {
  const root = `${basePath}${place.prefix}`;
  const asset = (name: string) => escapeHtml(`${root}/docs/assets/${name}?v=${SWAGGER_UI_VERSION}`);
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(place.title)}</title>
    <link rel="stylesheet" href="${asset('swagger-ui.css')}">
    <link rel="icon" type="image/png" href="${asset('favicon-32x32.png')}" sizes="32x32">
    <link rel="icon" type="image/png" href="${asset('favicon-16x16.png')}" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui" data-openapi-url="${escapeHtml(`${root}/openapi.json`)}"></div>
    <noscript>This page needs JavaScript. The API description itself is at <a href="${escapeHtml(`${root}/openapi.json`)}">openapi.json</a>.</noscript>
    <script src="${asset('swagger-ui-bundle.js')}" charset="utf-8"></script>
    <script src="${asset('docs-init.js')}" charset="utf-8"></script>
  </body>
</html>
`;
};

interface Loaded {
  readonly raw: Buffer;
  readonly gzipped: Buffer;
}

/**
 * GET /openapi.json (the OpenAPI 3.1 document), GET /docs (Swagger UI) and its
 * assets under /docs/assets/, all without a credential; under `place.prefix` for
 * an API served there (the admin API: /admin/openapi.json, /admin/docs). Swagger
 * UI comes from the installed `swagger-ui-dist` package, never from a CDN. Assets
 * are read and gzipped once, on first request, and cached by browsers for a day;
 * their URLs carry swagger-ui's version, so an upgrade is fetched anew. The page
 * and its assets carry `DOCS_CONTENT_SECURITY_POLICY`, `X-Frame-Options: DENY` and
 * `X-Content-Type-Options: nosniff`.
 */
export const openApiRoutes = (basePath: string, openApi: OpenApiDocument, place: DocsPlace = CUSTOMER_DOCS): Router => {
  const document = JSON.stringify(openApi);
  const page = docsPage(basePath, place);
  const { prefix } = place;
  const loaded = new Map<string, Promise<Loaded>>();
  const load = (name: string, asset: Asset): Promise<Loaded> => {
    let found = loaded.get(name);
    if (!found) {
      found = (async () => {
        const raw =
          'file' in asset.source ? await readFile(join(SWAGGER_UI_DIR, asset.source.file)) : Buffer.from(asset.source.content, 'utf8');
        return { raw, gzipped: await gzipAsync(raw) };
      })();
      // A failed read is tried again next time instead of being cached.
      found.catch(() => loaded.delete(name));
      loaded.set(name, found);
    }
    return found;
  };

  const router = new Router();
  router.get(`${prefix}/openapi.json`, (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
  router.get(`${prefix}/docs`, docsSecurityHeaders, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });
  router.get(`${prefix}/docs/assets/:file`, docsSecurityHeaders, async (ctx) => {
    const name = ctx.params.file ?? '';
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) throw new HttpError(404, 'Not found', `No documentation asset ${name}`);
    const { raw, gzipped } = await load(name, asset);
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = gzipped;
    } else {
      ctx.body = raw;
    }
  });
  return router;
};
