import type { UsageHour } from '../../application/usage/companyUsage.js';
import { escapeHtml, html, raw, type Html } from './html.js';
import { formatCount } from './format.js';
import { tableBox } from './tableBox.js';

const WIDTH = 720;
const HEIGHT = 220;
const LEFT = 44;
const BOTTOM = 24;
const TOP = 10;

/** A round number at or above `n` for the axis (1, 2, 5 × 10^k). */
const niceCeiling = (n: number): number => {
  if (n <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return ([1, 2, 5, 10].find((step) => step * power >= n) ?? 10) * power;
};

/**
 * The last 24 hours as an SVG drawn here (no script, no style attribute: the
 * CSP allows neither): bars of requests with their 429s over them, lines of
 * deliveries that succeeded and failed, on one scale. The same figures follow
 * in a table for screen readers and for reading exact values.
 */
export const usageChart = (hours: readonly UsageHour[]): Html => {
  const top = niceCeiling(Math.max(1, ...hours.map((h) => Math.max(h.requests, h.deliveriesOk, h.deliveriesFailed))));
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / hours.length;
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight;
  const x = (i: number) => LEFT + i * slot;
  const bars = hours
    .map((h, i) => {
      const bar = (cls: string, value: number) =>
        value > 0 ? `<rect class="${cls}" x="${(x(i) + 2).toFixed(1)}" y="${y(value).toFixed(1)}" width="${(slot - 4).toFixed(1)}" height="${(y(0) - y(value)).toFixed(1)}"></rect>` : '';
      return bar('requests', h.requests) + bar('limited', h.limited);
    })
    .join('');
  const line = (cls: string, values: readonly number[]) =>
    `<polyline class="${cls}" points="${values.map((v, i) => `${(x(i) + slot / 2).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}"></polyline>`;
  const labels = hours
    .map((h, i) => (i % 3 === 0 || i === hours.length - 1 ? `<text x="${(x(i) + slot / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${h.hour.toISOString().slice(11, 13)}h</text>` : ''))
    .join('');
  const svg =
    `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="usage-chart-title">` +
    `<title id="usage-chart-title">Requests, 429 responses and webhook deliveries per hour over the last 24 hours (UTC); the table below gives each value</title>` +
    `<line class="axis" x1="${LEFT}" y1="${y(0)}" x2="${WIDTH - 8}" y2="${y(0)}"></line>` +
    `<line class="axis" x1="${LEFT}" y1="${y(top)}" x2="${WIDTH - 8}" y2="${y(top)}"></line>` +
    `<text x="${LEFT - 6}" y="${y(top) + 4}" text-anchor="end">${escapeHtml(formatCount(top))}</text>` +
    `<text x="${LEFT - 6}" y="${y(0) + 4}" text-anchor="end">0</text>` +
    bars +
    line('delivered', hours.map((h) => h.deliveriesOk)) +
    line('failed', hours.map((h) => h.deliveriesFailed)) +
    labels +
    '</svg>';
  return html`<figure class="chart">
  ${raw(svg)}
  <figcaption>
    <ul class="legend">
      <li><span class="requests"></span>Requests</li>
      <li><span class="limited"></span>Refused by a rate limit (429)</li>
      <li><span class="delivered"></span>Deliveries answered 200</li>
      <li><span class="failed"></span>Delivery attempts failed</li>
    </ul>
  </figcaption>
</figure>
<details>
  <summary>The figures, hour by hour</summary>
  ${tableBox(
    'Requests and deliveries, hour by hour',
    html`<table>
      <thead><tr><th scope="col">Hour (UTC)</th><th scope="col">Requests</th><th scope="col">429</th><th scope="col">Delivered</th><th scope="col">Failed attempts</th></tr></thead>
      <tbody>
        ${hours.map(
          (h) =>
            html`<tr><th scope="row">${h.hour.toISOString().slice(0, 13).replace('T', ' ')}:00</th><td>${formatCount(h.requests)}</td><td>${formatCount(h.limited)}</td><td>${formatCount(h.deliveriesOk)}</td><td>${formatCount(h.deliveriesFailed)}</td></tr>`,
        )}
      </tbody>
    </table>`,
  )}
</details>`;
};
