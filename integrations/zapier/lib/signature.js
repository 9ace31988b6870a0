'use strict';

const crypto = require('node:crypto');

/** A header of a raw Zapier hook request, whatever its case, with or without Zapier's `Http-` prefix. */
const headerOf = (headers, name) => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers || {})) {
    const plain = key.toLowerCase().replace(/^http-/, '').replace(/_/g, '-');
    if (plain === wanted) return Array.isArray(value) ? value[0] : String(value);
  }
  return undefined;
};

/** Deliveries older (or newer) than this are refused, as Standard Webhooks recommends against replays. */
const TOLERANCE_SECONDS = 5 * 60;

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with
 * the base64 part of the `whsec_` secret). Throws when it does not verify.
 */
const verifyDelivery = ({ secret, headers, body, now = Date.now() }) => {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new Error('Unsigned delivery: webhook-id, webhook-timestamp or webhook-signature missing');
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(now / 1000 - seconds) > TOLERANCE_SECONDS) throw new Error('Delivery timestamp too old or too new');
  const key = Buffer.from(String(secret).replace(/^whsec_/, ''), 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  if (!matches) throw new Error('Delivery signature does not verify');
  return id;
};

module.exports = { verifyDelivery, headerOf };
