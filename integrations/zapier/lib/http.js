'use strict';

/** The base URL of the connection (no trailing slash) and a path under it. */
const apiUrl = (bundle, path) => `${String(bundle.authData.baseUrl).trim().replace(/\/+$/, '')}${path}`;

/** Every request carries the connection's API key. */
const addApiKey = (request, z, bundle) => {
  if (bundle.authData && bundle.authData.apiKey) {
    request.headers = { ...request.headers, Authorization: `Bearer ${bundle.authData.apiKey}` };
  }
  return request;
};

/**
 * Chronicle's error bodies (`{success: false, error, message, details}`) as
 * readable Zapier errors: the `error`, the `message`, and each field's problem.
 */
const explainErrors = (response, z) => {
  if (response.status < 400) return response;
  let body = null;
  try {
    body = JSON.parse(response.content);
  } catch {
    // not JSON: fall back to the status
  }
  const details = body && body.details && typeof body.details === 'object'
    ? Object.entries(body.details).map(([field, problem]) => `${field}: ${Array.isArray(problem) ? problem.join(', ') : problem}`)
    : [];
  const text = [body && body.error, body && body.message, ...details].filter(Boolean).join(' — ') || `HTTP ${response.status}`;
  if (response.status === 401) throw new z.errors.Error(text, 'AuthenticationError', response.status);
  if (response.status === 429 || response.status === 503) {
    const retryAfter = Number(response.getHeader('retry-after')) || 60;
    throw new z.errors.ThrottledError(text, retryAfter);
  }
  throw new z.errors.Error(text, (body && body.code) || `HTTP_${response.status}`, response.status);
};

module.exports = { apiUrl, addApiKey, explainErrors };
