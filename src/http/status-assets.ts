/**
 * The status page's stylesheet, served from /status.css so the page's Content-Security-Policy can forbid every
 * inline style and all scripts (the page has none: it refreshes itself with a meta refresh).
 */
export const STATUS_CSS = `
:root {
  --bg: #f5f6f8; --surface: #ffffff; --border: #e3e6eb; --text: #18202e; --muted: #5d6878; --faint: #8a94a3;
  --ok: #157f3b; --ok-soft: #e6f6ec; --warn: #9a6100; --warn-soft: #fff4dc; --bad: #b42318; --bad-soft: #fdecea;
  --none: #5d6878; --none-soft: #eef0f3; --radius: 12px;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.55 ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--text); background: var(--bg); }
a { color: #4f46e5; text-decoration: none; }
a:hover { text-decoration: underline; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
.topbar { background: var(--surface); border-bottom: 1px solid var(--border); }
.topbar-inner, main { max-width: 960px; margin: 0 auto; padding-left: 20px; padding-right: 20px; }
.topbar-inner { display: flex; align-items: center; justify-content: space-between; min-height: 60px; gap: 12px; }
.brand { display: flex; align-items: center; gap: 10px; font-weight: 700; }
.brand-mark { width: 28px; height: 28px; border-radius: 8px; background: linear-gradient(135deg, #6366f1, #4338ca); display: grid; place-items: center; }
.topbar a.json { font-size: .9rem; }
main { padding-top: 28px; padding-bottom: 64px; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0; letter-spacing: -.01em; }
h2 { font-size: 1.1rem; margin: 0; }
.banner { border-radius: var(--radius); padding: 18px 20px; margin-bottom: 20px; border: 1px solid; display: flex; gap: 14px; align-items: center; }
.banner p { margin: 2px 0 0; color: var(--muted); font-size: .9rem; }
.banner.up { background: var(--ok-soft); border-color: #b5e3c5; }
.banner.degraded { background: var(--warn-soft); border-color: #f3d9a4; }
.banner.down { background: var(--bad-soft); border-color: #f5c2bd; }
.banner.unknown, .banner.partial { background: var(--none-soft); border-color: var(--border); }
.banner p.headline-detail { color: var(--text); font-size: .95rem; }
.dot { width: 14px; height: 14px; border-radius: 50%; flex: none; }
.up .dot, .dot.up { background: var(--ok); }
.degraded .dot, .dot.degraded { background: #d68f00; }
.down .dot, .dot.down { background: var(--bad); }
.unknown .dot, .dot.unknown, .partial .dot { background: var(--faint); }
.providers { display: grid; gap: 14px; }
.provider { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); overflow: hidden; }
.provider-head { display: flex; align-items: center; justify-content: space-between; gap: 12px; padding: 14px 20px; flex-wrap: wrap; }
.provider-head .id { color: var(--faint); font-size: .85rem; margin-left: 8px; font-weight: 400; }
.pill { display: inline-flex; align-items: center; gap: 8px; padding: 3px 12px; border-radius: 999px; font-size: .85rem; font-weight: 600; white-space: nowrap; }
.pill .dot { width: 8px; height: 8px; }
.pill.up { color: var(--ok); background: var(--ok-soft); }
.pill.degraded { color: var(--warn); background: var(--warn-soft); }
.pill.down { color: var(--bad); background: var(--bad-soft); }
.pill.unknown { color: var(--none); background: var(--none-soft); }
table { width: 100%; border-collapse: collapse; font-size: .9rem; table-layout: fixed; }
th, td { text-align: left; padding: 10px 20px; border-top: 1px solid var(--border); vertical-align: top; }
thead th { color: var(--muted); font-weight: 600; font-size: .78rem; text-transform: uppercase; letter-spacing: .04em; background: #fafbfc; }
tbody th { font-weight: 600; width: 30%; }
.rate { font-weight: 700; font-variant-numeric: tabular-nums; }
.rate.good { color: var(--ok); } .rate.fair { color: var(--warn); } .rate.poor { color: var(--bad); }
.small { color: var(--muted); font-size: .82rem; font-variant-numeric: tabular-nums; }
.none { color: var(--faint); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.provider-foot { padding: 10px 20px; border-top: 1px solid var(--border); color: var(--muted); font-size: .85rem; display: flex; gap: 6px 20px; flex-wrap: wrap; }
.provider-foot strong { color: var(--text); font-weight: 600; }
.explain { margin-top: 28px; color: var(--muted); font-size: .9rem; }
.explain h2 { color: var(--text); margin-bottom: 6px; }
.explain ul { padding-left: 20px; margin: 6px 0 12px; }
@media (max-width: 640px) {
  .topbar-inner, main { padding-left: 14px; padding-right: 14px; }
  th, td { padding: 9px 12px; }
  .provider-head, .provider-foot { padding-left: 12px; padding-right: 12px; }
  tbody th { width: 28%; }
  h1 { font-size: 1.25rem; }
}
`;
