/**
 * The console's stylesheet, served as /console/assets/console.css (no inline
 * style anywhere: the CSP allows none). One column up to 390 pixels wide, the
 * navigation across the top beyond; tables scroll sideways inside their box.
 */
export const CONSOLE_CSS = `
:root { --ink: #1d2330; --muted: #5b6472; --line: #d7dce3; --bg: #f5f7fa; --panel: #fff; --accent: #2450b2; --ok: #1c7a43; --bad: #b3261e; --warn: #8a5a00; }
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
body { margin: 0; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #f2b01e; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--panel); padding: .5rem; z-index: 2; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem; padding: .75rem 1.5rem; background: var(--panel); border-bottom: 1px solid var(--line); }
.brand { margin: 0; font-weight: 600; }
.brand .company { font-weight: 400; color: var(--muted); margin-left: .5rem; }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
nav a { text-decoration: none; padding: .25rem 0; border-bottom: 2px solid transparent; }
nav a[aria-current="page"] { border-bottom-color: var(--accent); font-weight: 600; }
form.logout { margin-left: auto; }
form.search { display: flex; gap: .5rem; flex: 1 1 18rem; max-width: 26rem; margin-left: auto; }
form.search + form.logout { margin-left: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
footer { max-width: 72rem; margin: 0 auto; padding: 0 1.5rem 2rem; color: var(--muted); font-size: .875rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem; margin-bottom: 1.5rem; }
.panel.error h1 { color: var(--bad); }
.notice { background: #e8f1ff; border: 1px solid #b7cdf5; border-radius: 6px; padding: .75rem 1rem; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: 1rem; margin: 0; }
.figures div { background: var(--bg); border-radius: 6px; padding: .75rem 1rem; }
.figures dt { color: var(--muted); font-size: .875rem; }
.figures dd { margin: .25rem 0 0; font-size: 1.35rem; font-weight: 600; }
.figures dd small { font-size: .875rem; font-weight: 400; color: var(--muted); }
.table-box { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .9375rem; }
caption { text-align: left; color: var(--muted); padding-bottom: .5rem; }
th, td { text-align: left; padding: .5rem .75rem .5rem 0; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; white-space: nowrap; }
td code, .secret code, h1 code, .attempt code { word-break: break-all; }
h1 { overflow-wrap: anywhere; }
.state-active, .state-delivered, .ok { color: var(--ok); }
.state-ended, .state-failed, .state-revoked, .state-disabled, .state-expired, .bad { color: var(--bad); }
.state-pending, .state-paused { color: var(--warn); }
form.stack { display: grid; gap: .75rem; max-width: 36rem; }
form.inline { display: inline; }
label { font-weight: 600; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; }
legend { font-weight: 600; padding: 0 .25rem; }
fieldset label { font-weight: 400; display: block; }
input[type="text"], input[type="search"], input[type="url"], input[type="datetime-local"], select { font: inherit; padding: .45rem .6rem; border: 1px solid #9aa3b1; border-radius: 6px; width: 100%; background: #fff; }
.hint { color: var(--muted); font-size: .875rem; margin: 0; }
button, .button { font: inherit; padding: .45rem 1rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
button.link { background: none; border: none; color: var(--accent); padding: 0; text-decoration: underline; }
.secret { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; background: var(--bg); padding: .75rem; border-radius: 6px; }
.copied { color: var(--ok); font-size: .875rem; }
.chart svg { width: 100%; height: auto; max-height: 16rem; }
.chart .axis { stroke: var(--line); }
.chart text { fill: var(--muted); font-size: 11px; }
.chart .requests { fill: #7d9be0; }
.chart .limited { fill: var(--bad); }
.chart .delivered { stroke: var(--ok); fill: none; stroke-width: 2; }
.chart .failed { stroke: var(--warn); fill: none; stroke-width: 2; stroke-dasharray: 4 3; }
.legend { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; list-style: none; padding: 0; margin: .5rem 0 0; font-size: .875rem; }
.legend span { display: inline-block; width: .9rem; height: .9rem; margin-right: .35rem; vertical-align: -2px; border-radius: 2px; }
.legend .requests { background: #7d9be0; }
.legend .limited { background: var(--bad); }
.legend .delivered { background: var(--ok); }
.legend .failed { background: var(--warn); }
.chart .rate-ok, .legend .rate-ok { fill: var(--ok); background: var(--ok); }
.chart .rate-failed, .legend .rate-failed { fill: #e8a29d; background: #e8a29d; }
.rate-summary { margin: .25rem 0; font-weight: 600; }
.badge { display: inline-block; padding: 0 .4rem; border: 1px solid var(--accent); border-radius: 999px; color: var(--accent); font-size: .75rem; font-weight: 600; vertical-align: 1px; }
.attempt { border-top: 1px solid var(--line); padding: .75rem 0; }
.attempt pre { white-space: pre-wrap; word-break: break-all; background: var(--bg); padding: .5rem; border-radius: 4px; max-height: 24rem; overflow: auto; font-size: .8125rem; }
.attempt dl.record { margin: .25rem 0; }
.timeline { list-style: none; padding: 0; margin: 0; }
.timeline > li { border-left: 3px solid var(--line); padding: 0 0 1rem 1rem; }
.timeline h3 { font-size: 1rem; margin: 0 0 .25rem; }
.changes td:first-child { font-weight: 600; }
.changes del { color: var(--bad); }
.changes ins { color: var(--ok); text-decoration: none; }
dl.record { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr; gap: .25rem 1rem; }
dl.record dt { font-weight: 600; }
dl.record dd { margin: 0; word-break: break-word; }
.pager { display: flex; gap: 1rem; margin-top: 1rem; }
.row-actions { display: flex; flex-wrap: wrap; gap: .5rem; }
.panel > .row-actions { margin: 1rem 0; }
.results { list-style: none; padding: 0; margin: 0; }
.results > li { border-top: 1px solid var(--line); padding: .6rem 0; }
.results > li:first-child { border-top: 0; }
.results a { font-weight: 600; overflow-wrap: anywhere; }
.results p { margin: .1rem 0 0; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  html { font-size: 15px; }
  header.top { padding: .75rem 1rem; }
  form.logout { margin-left: 0; }
  form.search { flex-basis: 100%; max-width: none; margin-left: 0; }
  main { padding: 1rem; }
  .panel { padding: 1rem; }
  dl.record { grid-template-columns: 1fr; }
  table.cards thead { position: absolute; left: -9999px; }
  table.cards tr { display: block; border-bottom: 1px solid var(--line); padding: .5rem 0; }
  table.cards th, table.cards td { display: block; border: 0; padding: .15rem 0; }
  table.cards td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; color: var(--muted); }
}
`;
