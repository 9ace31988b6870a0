import type { SuccessRate } from '../application/deliveryStats.js';
import { escapeHtml, html, raw, type Html } from '../../../console/html/html.js';
import { formatCount } from '../../../console/html/format.js';
import { tableBox } from '../../../console/html/tableBox.js';

const WIDTH = 720;
const HEIGHT = 180;
const LEFT = 44;
const BOTTOM = 24;
const TOP = 10;

/** A rate as a whole percentage, or "no attempt". */
export const rateText = (succeeded: number, attempts: number): string => (attempts === 0 ? 'no attempt' : `${Math.round((succeeded / attempts) * 100)} %`);

/** A bucket's label: its hour (`14h`) in a 24-hour window, its day (`12-03`) in a longer one. */
const bucketLabel = (from: string, hourly: boolean): string => (hourly ? `${from.slice(11, 13)}h` : from.slice(5, 10));

/**
 * The success rate of a subscription's attempts over one window, as an SVG drawn here
 * (no script, no style attribute: the CSP allows neither): one bar per hour or day, its
 * height the share of attempts answered 200 (green) over the failed share (red); a bucket
 * without attempts is left empty. The title gives the window's figures, and a table the
 * figures of every bucket, for screen readers and exact values.
 */
export const successRateChart = (rate: SuccessRate, id: string): Html => {
  const hourly = rate.buckets.length > 7;
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, rate.buckets.length);
  const y = (share: number) => TOP + plotHeight - share * plotHeight;
  const bars = rate.buckets
    .map((b, i) => {
      if (b.attempts === 0) return '';
      const x = (LEFT + i * slot + 2).toFixed(1);
      const w = (slot - 4).toFixed(1);
      const share = b.succeeded / b.attempts;
      const ok = share > 0 ? `<rect class="rate-ok" x="${x}" y="${y(share).toFixed(1)}" width="${w}" height="${(y(0) - y(share)).toFixed(1)}"></rect>` : '';
      const failed = share < 1 ? `<rect class="rate-failed" x="${x}" y="${y(1).toFixed(1)}" width="${w}" height="${(y(share) - y(1)).toFixed(1)}"></rect>` : '';
      return ok + failed;
    })
    .join('');
  const labels = rate.buckets
    .map((b, i) =>
      !hourly || i % 3 === 0 || i === rate.buckets.length - 1
        ? `<text x="${(LEFT + i * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle">${escapeHtml(bucketLabel(b.from, hourly))}</text>`
        : '',
    )
    .join('');
  const summary =
    rate.attempts === 0
      ? `${rate.label}: no attempt`
      : `${rate.label}: ${rateText(rate.succeeded, rate.attempts)} of ${formatCount(rate.attempts)} ${rate.attempts === 1 ? 'attempt' : 'attempts'} answered 200 (${formatCount(rate.succeeded)} succeeded, ${formatCount(rate.attempts - rate.succeeded)} failed)`;
  const svg =
    `<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title">` +
    `<title id="${id}-title">${escapeHtml(`${summary}. Success rate per ${hourly ? 'hour' : 'day'} (UTC); the table below gives each value`)}</title>` +
    `<line class="axis" x1="${LEFT}" y1="${y(0)}" x2="${WIDTH - 8}" y2="${y(0)}"></line>` +
    `<line class="axis" x1="${LEFT}" y1="${y(1)}" x2="${WIDTH - 8}" y2="${y(1)}"></line>` +
    `<text x="${LEFT - 6}" y="${y(1) + 4}" text-anchor="end">100 %</text>` +
    `<text x="${LEFT - 6}" y="${y(0) + 4}" text-anchor="end">0 %</text>` +
    bars +
    labels +
    '</svg>';
  return html`<figure class="chart" aria-labelledby="${id}-caption">
  ${raw(svg)}
  <figcaption id="${`${id}-caption`}">
    <p class="rate-summary">${summary}.</p>
    <ul class="legend">
      <li><span class="rate-ok"></span>Answered 200</li>
      <li><span class="rate-failed"></span>Failed (another status, or no response)</li>
    </ul>
  </figcaption>
</figure>
<details>
  <summary>${`The figures, ${hourly ? 'hour' : 'day'} by ${hourly ? 'hour' : 'day'}`}</summary>
  ${tableBox(
    `${rate.label}: success rate ${hourly ? 'hour by hour' : 'day by day'}`,
    html`<table>
      <thead><tr><th scope="col">${hourly ? 'Hour (UTC)' : 'Day (UTC)'}</th><th scope="col">Attempts</th><th scope="col">Answered 200</th><th scope="col">Success rate</th></tr></thead>
      <tbody>
        ${rate.buckets.map(
          (b) =>
            html`<tr><th scope="row">${hourly ? `${b.from.slice(0, 13).replace('T', ' ')}:00` : b.from.slice(0, 10)}</th><td>${formatCount(b.attempts)}</td><td>${formatCount(b.succeeded)}</td><td>${rateText(b.succeeded, b.attempts)}</td></tr>`,
        )}
      </tbody>
    </table>`,
  )}
</details>`;
};
