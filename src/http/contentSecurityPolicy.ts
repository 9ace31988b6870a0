/**
 * The Content-Security-Policy of Chronicle's pages (the console, the API docs):
 * everything from this server only, no inline script or style, images from here
 * or `data:`, requests to this origin, forms posting only here, no plugins, no
 * `<base>`. What differs is the fallback for other fetches (`default-src`) and who
 * may frame the page (`frame-ancestors` sources).
 */
export const contentSecurityPolicy = (defaultSrc: "'self'" | "'none'", frameAncestors: readonly string[]): string =>
  [
    `default-src ${defaultSrc}`,
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "object-src 'none'",
    `frame-ancestors ${frameAncestors.join(' ')}`,
  ].join('; ');
