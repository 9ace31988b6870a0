import type { RateLimits } from '../../../application/ports/RateLimitCounters.js';
import type { CompanyUsage } from '../../../application/usage/companyUsage.js';
import type { CompanyProfile } from '../../companies/index.js';
import type { ApiKeyView } from '../../apiKeys/index.js';
import { formatCount, formatTime } from '../../../console/html/format.js';
import { html, type Html } from '../../../console/html/html.js';
import { consoleUrl } from '../../../console/html/layout.js';
import { usageChart } from '../../../console/html/usageChart.js';
import { tableBox } from '../../../console/html/tableBox.js';

/** The overview page: the company, its use of the API, the per-key limits, and its keys that work now. */
export interface OverviewView {
  readonly basePath: string;
  readonly company: CompanyProfile;
  readonly usage: CompanyUsage;
  readonly limits: RateLimits;
  readonly activeKeys: readonly ApiKeyView[];
}

/** The overview: the company, its requests this hour and today against the per-key limits, and the last 24 hours. */
export const overviewBody = (spec: OverviewView): Html => {
  const { company, usage, limits } = spec;
  return html`<h1>Overview</h1>
<section class="panel" aria-labelledby="company-title">
  <h2 id="company-title">${company.name}</h2>
  <dl class="record">
    <dt>Company id</dt><dd><code>${company.id}</code></dd>
    <dt>Customer since</dt><dd>${formatTime(company.createdAt)}</dd>
    <dt>Active API keys</dt><dd>${spec.activeKeys.length} (<a href="${consoleUrl(spec.basePath, '/keys')}">manage</a>)</dd>
  </dl>
</section>
<section class="panel" aria-labelledby="usage-title">
  <h2 id="usage-title">Requests</h2>
  <dl class="figures">
    <div><dt>This hour</dt><dd>${formatCount(usage.thisHour.requests)} <small>${formatCount(usage.thisHour.limited)} refused (429)</small></dd></div>
    <div><dt>Today (since 00:00 UTC)</dt><dd>${formatCount(usage.today.requests)} <small>${formatCount(usage.today.limited)} refused (429)</small></dd></div>
    <div><dt>Deliveries today</dt><dd>${formatCount(usage.today.deliveriesOk)} <small>${formatCount(usage.today.deliveriesFailed)} failed attempts</small></dd></div>
  </dl>
  <p class="hint">Limits apply to each API key: ${formatCount(limits.hourly)} requests an hour, ${formatCount(limits.daily)} a day (UTC), ${formatCount(limits.concurrent)} at once. Figures are at most a few seconds old.</p>
  ${
    spec.activeKeys.length === 0
      ? html`<p>No active API key.</p>`
      : tableBox(
        'Each active key against its limits',
        html`<table>
    <caption>Each active key against its limits</caption>
    <thead><tr><th scope="col">Key</th><th scope="col">This hour</th><th scope="col">Today</th></tr></thead>
    <tbody>
      ${spec.activeKeys.map((key) => {
        const used = usage.keys.get(key.id) ?? { thisHour: 0, today: 0 };
        return html`<tr><th scope="row">${key.label}</th><td>${formatCount(used.thisHour)} / ${formatCount(limits.hourly)}</td><td>${formatCount(used.today)} / ${formatCount(limits.daily)}</td></tr>`;
      })}
    </tbody>
  </table>`,
      )
  }
</section>
<section class="panel" aria-labelledby="chart-title">
  <h2 id="chart-title">The last 24 hours</h2>
  ${usageChart(usage.hours)}
</section>`;
};
