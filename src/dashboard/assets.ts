/**
 * The dashboard's stylesheet and its one small script, served from /dashboard/assets/ so the Content-Security-Policy
 * can forbid every inline style and script. The pages work without the script; it only adds the copy button and
 * converts UTC times to the visitor's time zone.
 */
import { PLAYGROUND_CSS, PLAYGROUND_JS } from "./playground/assets";

export const DASHBOARD_CSS = `
:root {
  --bg: #f5f6f8; --surface: #ffffff; --border: #e3e6eb; --text: #18202e; --muted: #5d6878; --faint: #8a94a3;
  --accent: #4f46e5; --accent-dark: #4338ca; --accent-soft: #eef0ff;
  --ok: #157f3b; --ok-soft: #e6f6ec; --warn: #9a6100; --warn-soft: #fff4dc; --bad: #b42318; --bad-soft: #fdecea;
  --radius: 12px; --shadow: 0 1px 2px rgba(16, 24, 40, .05);
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.55 ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--text); background: var(--bg); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .92em; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0; letter-spacing: -.01em; }
h2 { font-size: 1.05rem; margin: 0 0 4px; }
p { margin: 0 0 12px; }

.topbar { background: var(--surface); border-bottom: 1px solid var(--border); }
.topbar-inner { max-width: 1080px; margin: 0 auto; padding: 0 20px; display: flex; align-items: center; gap: 16px; min-height: 60px; flex-wrap: wrap; }
.brand { display: flex; align-items: center; gap: 10px; font-weight: 700; color: var(--text); white-space: nowrap; }
.brand:hover { text-decoration: none; }
.brand-mark { width: 28px; height: 28px; border-radius: 8px; background: linear-gradient(135deg, #6366f1, #4338ca); display: grid; place-items: center; }
/* The links wrap onto another row rather than run off-screen, and a link never breaks inside its name ("API keys"). */
.nav { display: flex; flex-wrap: wrap; gap: 2px; flex: 1; }
.nav a { color: var(--muted); padding: 8px 8px; border-radius: 8px; font-weight: 500; white-space: nowrap; }
.nav a:hover { background: var(--bg); text-decoration: none; color: var(--text); }
.nav a[aria-current="page"] { color: var(--accent); background: var(--accent-soft); }
.account-menu { display: flex; align-items: center; gap: 12px; color: var(--muted); font-size: .9rem; }
.account-menu form { margin: 0; }
/* A long account name is cut (its full text is the title), so the seven sections keep one row at 1280 px. */
.account-name { max-width: 7rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }

main { max-width: 1080px; margin: 0 auto; padding: 28px 20px 64px; }
.page-head { display: flex; align-items: flex-end; justify-content: space-between; gap: 16px; margin-bottom: 22px; flex-wrap: wrap; }
.page-head p { color: var(--muted); margin: 4px 0 0; }

.grid { display: grid; gap: 16px; }
.stats { grid-template-columns: repeat(3, minmax(0, 1fr)); margin-bottom: 16px; }
.two-col { grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); align-items: start; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); box-shadow: var(--shadow); padding: 20px; }
.card + .card, .card + .grid, .grid + .card { margin-top: 16px; }
.grid > .card + .card { margin-top: 0; }
.stack > .card + .card { margin-top: 16px; }
.card-head { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; margin-bottom: 14px; flex-wrap: wrap; }
.card-head p { color: var(--muted); margin: 0; font-size: .9rem; }
.stat-label { color: var(--muted); font-size: .85rem; font-weight: 500; }
.stat-value { font-size: 2rem; font-weight: 700; letter-spacing: -.02em; line-height: 1.2; margin-top: 6px; font-variant-numeric: tabular-nums; }
.stat-note { color: var(--faint); font-size: .85rem; margin-top: 2px; }
.stat-value.low { color: var(--bad); }

.chart { width: 100%; height: auto; display: block; }
.chart-compact { display: none; }
.chart .bar { fill: var(--accent); }
.chart .bar:hover { fill: var(--accent-dark); }
.chart .bar.zero { fill: var(--border); }
.chart .grid-line { stroke: var(--border); stroke-width: 1; }
.chart text { fill: var(--faint); font-size: 11px; font-family: inherit; }

.table-wrap { overflow-x: auto; margin: 0 -20px -20px; }
table { width: 100%; border-collapse: collapse; font-size: .92rem; }
th, td { text-align: left; padding: 11px 20px; border-top: 1px solid var(--border); vertical-align: middle; }
th { color: var(--muted); font-weight: 600; font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; background: #fafbfc; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td time { white-space: nowrap; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
tr.revoked td { color: var(--faint); }
.actions { text-align: right; white-space: nowrap; }
.positive { color: var(--ok); }
.negative { color: var(--text); }

.badge { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: .8rem; font-weight: 600; white-space: nowrap; }
.badge.ok { color: var(--ok); background: var(--ok-soft); }
.badge.warn { color: var(--warn); background: var(--warn-soft); }
.badge.bad { color: var(--bad); background: var(--bad-soft); }
.badge.muted { color: var(--muted); background: var(--bg); }

.btn { display: inline-flex; align-items: center; justify-content: center; gap: 8px; border: 1px solid transparent; border-radius: 8px;
  padding: 9px 16px; font: inherit; font-weight: 600; cursor: pointer; line-height: 1.2; white-space: nowrap; }
.btn:hover { text-decoration: none; }
.btn-primary { background: var(--accent); color: #fff; }
.btn-primary:hover { background: var(--accent-dark); }
.btn-secondary { background: var(--surface); color: var(--text); border-color: var(--border); }
.btn-secondary:hover { background: var(--bg); }
.btn-danger { background: var(--bad); color: #fff; }
.btn-danger:hover { background: #912018; }
.btn-link { background: none; border: none; color: var(--muted); padding: 6px 8px; font-weight: 500; }
.btn-link:hover { color: var(--text); }
.btn-small { padding: 6px 12px; font-size: .88rem; }
.form-row .btn, .secret .btn { min-height: 42px; }
.link-danger { color: var(--bad); font-weight: 600; }

.form-row { display: flex; gap: 10px; align-items: flex-end; flex-wrap: wrap; }
.field { display: flex; flex-direction: column; gap: 6px; flex: 1; min-width: 200px; }
label { font-weight: 600; font-size: .9rem; }
input[type="text"], input[type="url"] { font: inherit; padding: 9px 12px; min-height: 42px; border: 1px solid var(--border); border-radius: 8px; background: var(--surface); color: var(--text); width: 100%; }
input[type="text"]:focus, input[type="url"]:focus { outline: 2px solid var(--accent-soft); border-color: var(--accent); }
.hint { color: var(--faint); font-size: .85rem; }

.notice { border-radius: var(--radius); padding: 16px 18px; margin-bottom: 16px; border: 1px solid; }
.notice.success { background: var(--ok-soft); border-color: #b5e3c5; }
.notice.info { background: var(--accent-soft); border-color: #d5d8fd; }
.notice.danger { background: var(--bad-soft); border-color: #f5c2bd; }
.notice h2 { margin-bottom: 6px; }
.secret { display: flex; gap: 8px; margin: 12px 0 8px; flex-wrap: wrap; }
.secret input { flex: 1; min-width: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; background: #fff; }

.snippet { background: #111827; color: #e5e7eb; border-radius: 10px; padding: 14px 16px; font-size: .85rem; line-height: 1.6; margin: 0 0 12px;
  white-space: pre-wrap; word-break: break-all; }
.snippet .dim { color: #9ca3af; }
/* The Requests page: its kind filter, its ids (up to 128 characters, broken anywhere) and its pager below the table. */
.filters { display: flex; gap: 6px; flex-wrap: wrap; }
.filters a[aria-current="page"] { background: var(--accent-soft); border-color: #d5d8fd; color: var(--accent-dark); }
code.request-id { word-break: break-all; }
td code.request-id { display: inline-block; min-width: 22ch; }
@media (min-width: 641px) {
  table.dense th, table.dense td { padding-left: 10px; padding-right: 10px; }
  table.dense th:first-child, table.dense td:first-child { padding-left: 20px; }
  table.dense th:last-child, table.dense td:last-child { padding-right: 20px; }
}
.job-request { display: block; }
.pager { display: flex; gap: 8px; justify-content: flex-end; margin-top: 36px; }
.empty { text-align: center; color: var(--muted); padding: 28px 12px; }
.empty strong { display: block; color: var(--text); margin-bottom: 4px; }
.usage-list { list-style: none; padding: 0; margin: 0; }
.usage-list li { padding: 10px 0; border-top: 1px solid var(--border); }
.usage-list li:first-child { border-top: none; padding-top: 0; }
.usage-row { display: flex; justify-content: space-between; gap: 8px; font-size: .92rem; }
.meter { display: block; width: 100%; height: 6px; margin-top: 6px; }
.meter .track { fill: var(--bg); }
.meter .fill { fill: var(--accent); }

.centered { min-height: calc(100vh - 61px); display: grid; place-items: center; padding: 24px 16px; }
.auth-card { width: 100%; max-width: 440px; }
.auth-card h1 { margin-bottom: 10px; }
.auth-card p { color: var(--muted); }
.auth-card .btn { width: 100%; margin-top: 8px; }
.confirm-card { max-width: 560px; margin: 32px auto 0; }
.confirm-card h1 { margin-bottom: 12px; }
.confirm-card p { color: var(--muted); }
.confirm-actions { display: flex; gap: 10px; justify-content: flex-end; margin-top: 18px; flex-wrap: wrap; }
.footer { color: var(--faint); font-size: .85rem; text-align: center; margin-top: 40px; }

@media (max-width: 860px) {
  .two-col { grid-template-columns: minmax(0, 1fr); }
}
@media (max-width: 640px) {
  body { font-size: 15px; }
  .topbar-inner { gap: 8px 16px; padding: 10px 16px 0; }
  /* A row of its own under the brand; on a phone every section stays in view (two rows at 390 px), none scrolled away. */
  .nav { order: 3; flex-basis: 100%; gap: 2px; margin: 0 -8px; padding-bottom: 8px; }
  .nav a { padding: 6px 8px; }
  .account-menu .account-name { display: none; }
  .account-menu { margin-left: auto; }
  main { padding: 20px 16px 48px; }
  h1 { font-size: 1.35rem; }
  .stats { grid-template-columns: minmax(0, 1fr); gap: 12px; }
  .stat-value { font-size: 1.7rem; }
  .chart-wide { display: none; }
  .chart-compact { display: block; }
  .card { padding: 16px; }
  .table-wrap { margin: 0 -16px -16px; }
  /* Wide tables become one card per row on a phone: each cell shows its column's name. */
  table.responsive thead { display: none; }
  table.responsive tr { display: block; border-top: 1px solid var(--border); padding: 10px 16px; }
  table.responsive td { display: flex; justify-content: space-between; gap: 12px; border: none; padding: 4px 0; text-align: right; }
  table.responsive td::before { content: attr(data-label); color: var(--muted); font-weight: 600; font-size: .82rem; text-align: left; }
  table.responsive td.num { text-align: right; }
  table.responsive td.actions { justify-content: flex-end; padding-top: 8px; }
  table.responsive td.actions::before { content: none; }
  table.responsive td.actions:empty { display: none; }
  .confirm-actions .btn { flex: 1; }
}
${PLAYGROUND_CSS}`;

export const DASHBOARD_JS = `
(function () {
  // Copy buttons: data-copy-target names the input whose value is copied.
  document.querySelectorAll("[data-copy-target]").forEach(function (button) {
    button.addEventListener("click", function () {
      var input = document.getElementById(button.getAttribute("data-copy-target"));
      if (!input) return;
      var label = button.textContent;
      function done(text) { button.textContent = text; setTimeout(function () { button.textContent = label; }, 2000); }
      function fallback() {
        input.focus(); input.select();
        try { done(document.execCommand("copy") ? "Copied" : "Press Ctrl+C"); } catch (e) { done("Press Ctrl+C"); }
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(function () { done("Copied"); }, fallback);
      } else {
        fallback();
      }
    });
  });
  // A sign-in link carries its one-time code after "#", which the browser never sends (so no request log holds it):
  // the sign-in form takes it from there, and the address bar and history forget it.
  var loginToken = document.getElementById("login-token");
  if (loginToken && location.hash.length > 1) {
    loginToken.value = location.hash.slice(1);
    history.replaceState(null, "", location.pathname + location.search);
  }
  // Times are rendered in UTC on the server; show them in the visitor's own time zone.
  var format = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  document.querySelectorAll("time[data-local]").forEach(function (node) {
    var date = new Date(node.getAttribute("datetime"));
    if (!isNaN(date.getTime())) { node.title = node.textContent; node.textContent = format.format(date); }
  });
})();
${PLAYGROUND_JS}`;

/** FNV-1a of a string: a cheap synchronous fingerprint (Web Crypto digests are async, module scope is not). */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/** Carried in the assets' URLs, so they can be cached for a year and still change the moment their content does. */
export const ASSET_VERSION = fingerprint(DASHBOARD_CSS + DASHBOARD_JS);
