import { contentSecurityPolicy } from '../http/contentSecurityPolicy.js';
import type { Middleware } from 'koa';

/**
 * The Content-Security-Policy of every console response: everything from this
 * server only (`default-src 'self'`), no inline script or style (the pages have
 * none; charts are SVG drawn with attributes and classes), forms posting only
 * here, no plugins, no `<base>`, and framing by `frameAncestors` only.
 */
export const consoleContentSecurityPolicy = (frameAncestors: readonly string[]): string => contentSecurityPolicy("'self'", frameAncestors);

/**
 * X-Frame-Options for browsers that ignore `frame-ancestors`: DENY when nobody may
 * frame, SAMEORIGIN when only the console's own origin may; absent when other
 * origins may (it cannot name them, and `frame-ancestors` wins where both exist).
 */
export const frameOptions = (frameAncestors: readonly string[]): string | null => {
  if (frameAncestors.length === 1 && frameAncestors[0] === "'none'") return 'DENY';
  if (frameAncestors.every((source) => source === "'self'")) return 'SAMEORIGIN';
  return null;
};

/** The headers of every console response, pages, errors and assets alike. */
export const securityHeaders = (frameAncestors: readonly string[]): Middleware => {
  const policy = consoleContentSecurityPolicy(frameAncestors);
  const frames = frameOptions(frameAncestors);
  return async (ctx, next) => {
    ctx.set('Content-Security-Policy', policy);
    if (frames) ctx.set('X-Frame-Options', frames);
    ctx.set('X-Content-Type-Options', 'nosniff');
    // Links out of the console (receivers' URLs) never carry a console URL, which may hold a link's token;
    // same-origin (not no-referrer), so the console's own form posts still carry their Origin.
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
    ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=()');
    await next();
  };
};
