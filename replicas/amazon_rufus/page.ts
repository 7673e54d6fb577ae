/**
 * The Rufus replica's store pages (amazon_rufus.md §2, §6): a marketplace home page and a product page, each with the
 * nav bar (search box, the "Hello, sign in" account link anonymous pages always show, the Rufus nav button) and the
 * Rufus side panel (conversation container, greeting turn with starter pills, `#rufus-text-area`, hidden feedback
 * boxes). The product page adds the "Ask Rufus" pills of `#dpx-nice-widget-container`. Behaviour lives in
 * client/rufus-page.js, inlined here.
 *
 * Layouts (markup variants the real site plausibly serves, switched through the control API):
 * - `classic`: `a#nav-rufus-disco.nav-rufus-disco` labelled "Rufus"; panel `#nav-flyout-rufus`.
 * - `alexa`: the 2026 "Alexa for Shopping" branding: `#nav-alexa` and `#alexa-shopping-container` beside Rufus, whose
 *   nav button is a `button.nav-rufus-disco` without the id (text "rufus", capitalised by CSS); panel `#nav-rufus-content`.
 * - `wrapped`: `div#nav-rufus-disco` (role button, aria-label "Rufus"); the panel sits in an extra wrapper, a hidden
 *   feedback box comes before `#rufus-text-area` in the document, and the answer's inner classes are obfuscated.
 */
import { readFileSync } from "node:fs";
import type { Marketplace } from "./marketplaces";
import { escapeHtml } from "./stream";
import { NO_RUFUS_VARIATION, type RufusPageVariation } from "./variation";

const CLIENT_SCRIPT = readFileSync(new URL("./client/rufus-page.js", import.meta.url), "utf8");
if (CLIENT_SCRIPT.includes("</script")) throw new Error("rufus-page.js must not contain a closing script tag");
/** Rufus's own fuzzing (late lists, request alternatives), inlined only into fuzzed pages. */
const VARIATION_SCRIPT = readFileSync(new URL("./client/rufus-variation.js", import.meta.url), "utf8");
if (VARIATION_SCRIPT.includes("</script")) throw new Error("rufus-variation.js must not contain a closing script tag");

export const RUFUS_LAYOUTS = ["classic", "alexa", "wrapped"] as const;
export type RufusLayout = (typeof RUFUS_LAYOUTS)[number];

export function isRufusLayout(layout: string): layout is RufusLayout {
  return RUFUS_LAYOUTS.some((known) => known === layout);
}

const STYLE = `
* { box-sizing: border-box; }
body { margin: 0; font: 14px/20px "Amazon Ember", Arial, sans-serif; color: #0f1111; background: #e3e6e6; }
#navbar-main { background: #131921; color: #fff; }
#nav-belt { display: flex; align-items: center; gap: 14px; padding: 8px 14px; }
#nav-belt a, #nav-main a, #nav-main button, #nav-main [role="button"] { color: #fff; text-decoration: none; }
.nav-logo-link { font-weight: 700; font-size: 22px; }
#nav-search-bar-form { flex: 1; display: flex; }
#twotabsearchtextbox { flex: 1; padding: 8px; border: 0; border-radius: 4px 0 0 4px; }
#nav-search-submit-button { border: 0; background: #febd69; border-radius: 0 4px 4px 0; padding: 0 12px; }
#nav-main { background: #232f3e; display: flex; align-items: center; gap: 16px; padding: 6px 14px; }
.nav-a, .nav-div { cursor: pointer; background: none; border: 1px solid transparent; font: inherit; padding: 2px 6px; }
.nav-a:hover, .nav-div:hover { border-color: #fff; }
.nav-rufus-disco { font-weight: 700; }
button.nav-rufus-disco .nav-line-1 { text-transform: capitalize; }
main { padding: 20px; min-height: 70vh; }
.gw-card { background: #fff; padding: 16px; margin-bottom: 16px; }
.rufus-flyout { position: fixed; top: 0; right: 0; width: 420px; height: 100vh; background: #fff; box-shadow: -4px 0 12px rgba(0,0,0,.25); z-index: 30; display: flex; }
.rufus-flyout[hidden], [hidden] { display: none !important; }
#rufus-container { display: flex; flex-direction: column; width: 100%; height: 100%; }
#rufus-container-main-view { display: flex; flex-direction: column; height: 100%; }
.rufus-panel-header { display: flex; justify-content: space-between; align-items: center; padding: 10px 14px; border-bottom: 1px solid #d5d9d9; font-weight: 700; }
.rufus-panel-header button { background: none; border: 0; font-size: 18px; cursor: pointer; }
#rufus-conversation-container { flex: 1; overflow-y: auto; padding: 12px 14px; }
.rufus-dialog-customer { align-self: flex-end; background: #e7f4f5; border-radius: 12px; padding: 8px 12px; margin: 10px 0 10px 40px; }
.rufus-papyrus-turn { margin: 8px 0 16px; }
.rufus-markdown, ._rf9k2_text { white-space: pre-wrap; margin-bottom: 10px; }
.rufus-asin-card, ._rf9k2_card { display: grid; grid-template-columns: 64px 1fr; gap: 8px; border: 1px solid #d5d9d9; border-radius: 8px; padding: 8px; margin: 6px 0; }
.rufus-asin-card a, ._rf9k2_card a { color: #007185; text-decoration: none; }
.card-image { width: 64px; height: 64px; background: #f0f2f2; border-radius: 4px; font-size: 10px; overflow: hidden; }
.card-badge { display: inline-block; background: #232f3e; color: #fff; font-size: 11px; padding: 0 6px; border-radius: 2px; margin-right: 4px; }
.card-title { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
.card-stars { color: #de7921; }
.card-price-list { text-decoration: line-through; color: #565959; margin-left: 6px; }
.card-footer { grid-column: 1 / -1; color: #565959; font-size: 12px; }
.rufus-pills { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
button.rufus-pill { border: 1px solid #d5d9d9; border-radius: 16px; background: #fff; padding: 4px 12px; cursor: pointer; font: inherit; }
.rufus-error { color: #b12704; }
.rufus-input-area { display: flex; gap: 8px; padding: 10px 14px; border-top: 1px solid #d5d9d9; }
#rufus-text-area { flex: 1; resize: none; min-height: 40px; padding: 8px 10px; border: 1px solid #888c8c; border-radius: 20px; font: inherit; }
.rufus-send { width: 40px; height: 40px; border-radius: 50%; border: 0; background: #ffd814; cursor: pointer; }
.rufus-feedback-form { padding: 6px 14px; }
#alexa-shopping-container { position: fixed; bottom: 0; left: 0; width: 320px; background: #fff; border: 1px solid #d5d9d9; padding: 12px; z-index: 20; }
#dpx-nice-widget-container { background: #fff; padding: 12px; margin: 12px 0; border-radius: 8px; }
.ask-pill { border: 1px solid #d5d9d9; border-radius: 16px; background: #f0f8ff; padding: 4px 12px; margin-right: 6px; cursor: pointer; font: inherit; }
`;

/** Starter pills of the greeting turn: same class as follow-up pills, but not part of any answer. */
const STARTER_PILLS = ["What do I need for a home gym?", "Gift ideas for a gardener", "Compare robot vacuums"];

export interface RufusPageOptions {
  marketplace: Marketplace;
  layout: RufusLayout;
  /** The marketplace's path prefix on this server, standing in for the real site's "/" (ends with "/"). */
  root: string;
  /** The page's `anti-csrftoken-a2z`, embedded for the panel's script. */
  csrfToken: string;
  /** Set on a product page. */
  product: { asin: string; title: string } | null;
  /** Layout drift (POST /__control/changed-page): the panel opens, but its question box is gone. */
  changed?: boolean;
  /**
   * Page fuzzing (variation.ts): Rufus's own choices for this page and the generic variation's script tag, put after
   * the page's own script. Absent = the page exactly as the layout serves it.
   */
  variation?: { page: RufusPageVariation; genericTag: string };
}

/**
 * The Rufus nav button of a layout. `anchors` (page fuzzing) keeps only one of the sheet's two anchors
 * ("#nav-rufus-disco / .nav-rufus-disco"); "layout" keeps the layout's own.
 */
function rufusNavButton(layout: RufusLayout, anchors: RufusPageVariation["navAnchors"] = "layout"): string {
  const own = { classic: { id: true, cls: true }, alexa: { id: false, cls: true }, wrapped: { id: true, cls: false } }[layout];
  const id = anchors === "layout" ? own.id : anchors === "id_only";
  const cls = anchors === "layout" ? own.cls : anchors === "class_only";
  const idAttr = id ? ' id="nav-rufus-disco"' : "";
  const classes = (base: string): string => (cls ? `${base} nav-rufus-disco` : base);
  switch (layout) {
    case "classic":
      return `<a href="javascript:void(0)"${idAttr} class="${classes("nav-a")}" role="button" aria-expanded="false">Rufus</a>`;
    case "alexa":
      return `<a href="javascript:void(0)" id="nav-alexa" class="nav-a" role="button" aria-expanded="false">Alexa for Shopping</a>
      <button type="button"${idAttr} class="${classes("nav-a")}" aria-expanded="false"><span class="nav-line-1">rufus</span></button>`;
    case "wrapped":
      return `<div${idAttr} class="${classes("nav-div")}" role="button" tabindex="0" aria-label="Rufus" aria-expanded="false"><span class="nav-icon">✦</span></div>`;
  }
}

function feedbackBox(index: number): string {
  return `<div class="rufus-feedback-form" hidden><textarea id="rufus-text-area-inner-${index}" placeholder="Add your feedback…" aria-label="Add your feedback…"></textarea></div>`;
}

function rufusPanel(layout: RufusLayout, changed: boolean, variation: RufusPageVariation): string {
  const greeting = `<div class="rufus-papyrus-turn">
            <div class="${layout === "wrapped" ? "_rf9k2_text" : "rufus-markdown"}">Hi, I'm Rufus, your shopping assistant. My answers are powered by AI, so I may not always get things right.</div>
            <div class="rufus-pills">${STARTER_PILLS.map((label) => `<button class="rufus-pill">${escapeHtml(label)}</button>`).join("")}</div>
          </div>`;
  const input = changed
    ? ""
    : `<div class="rufus-input-area">
          <textarea id="rufus-text-area" placeholder="Ask Rufus a question" aria-label="Ask Rufus a question" rows="1" maxlength="4000"></textarea>
          <button type="button" class="rufus-send" aria-label="${escapeHtml(variation.sendLabel)}">➤</button>
        </div>`;
  const main = `<div id="rufus-container">
      <div id="rufus-container-main-view">
        <div class="rufus-panel-header"><span>Rufus</span><button type="button" class="rufus-close" aria-label="Close Rufus">×</button></div>
        <div id="rufus-conversation-container">
          <div id="rufus-react-renderer">
          ${greeting}
          </div>
        </div>
        ${layout === "wrapped" ? `${feedbackBox(1)}\n        ${input}` : `${input}\n        ${feedbackBox(1)}`}
      </div>
    </div>`;
  const panelId = (own: string): string => variation.panelId ?? own;
  switch (layout) {
    case "classic":
      return `<div id="${panelId("nav-flyout-rufus")}" class="rufus-flyout" role="complementary" aria-label="Rufus" hidden>
    ${main}
  </div>`;
    case "alexa":
      return `<div id="${panelId("nav-rufus-content")}" class="rufus-flyout" role="complementary" aria-label="Rufus" hidden>
    ${main}
  </div>
  <div id="alexa-shopping-container" hidden><p>Alexa for Shopping is not available for your account yet.</p></div>`;
    case "wrapped":
      return `<div class="_rf9k2_shell">
    <div id="${panelId("nav-flyout-rufus")}" class="rufus-flyout" role="complementary" aria-label="Rufus" hidden>
    ${main}
    </div>
  </div>`;
  }
}

function productSection(product: { asin: string; title: string }): string {
  return `<div id="dp" class="gw-card">
    <h1 id="title"><span id="productTitle">${escapeHtml(product.title)}</span></h1>
    <div id="dpx-nice-widget-container">
      <span>Looking for specific info?</span>
      <button type="button" class="ask-pill">Ask Rufus</button>
      <button type="button" class="ask-pill">What do customers say?</button>
      <button type="button" class="ask-pill">Is it worth the price?</button>
    </div>
  </div>`;
}

export function renderRufusPage(options: RufusPageOptions): string {
  const { marketplace, layout, root } = options;
  const variation = options.variation?.page ?? NO_RUFUS_VARIATION.page;
  const bootstrap = {
    domain: marketplace.domain,
    root,
    layout,
    priceStyle: marketplace.priceStyle,
    csrfToken: options.csrfToken,
    asin: options.product?.asin ?? null,
  };
  // only on a fuzzed page, so that a page without fuzzing stays byte-identical: Rufus's own script, then the generic one
  const fuzzing =
    options.variation === undefined
      ? ""
      : `<script>(${VARIATION_SCRIPT.trim()})(${JSON.stringify({ lateLists: variation.lateLists, omitEmptyMetadata: variation.omitEmptyMetadata }).replace(/</g, "\\u003c")});</script>${options.variation.genericTag}`;
  const title =
    options.product === null
      ? `Amazon.${marketplace.domain.replace(/^amazon\./, "")}. Spend less. Smile more.`
      : `Amazon.${marketplace.domain.replace(/^amazon\./, "")}: ${options.product.title}`;
  const body =
    options.product === null
      ? `<div class="gw-card"><h2>Today's deals</h2><p>Shop deals in Electronics, Home and more.</p></div>`
      : productSection(options.product);
  return `<!doctype html>
<html lang="${marketplace.language}" class="a-js">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header id="navbar-main">
  <div id="nav-belt">
    <a id="nav-logo-sprites" class="nav-logo-link" href="${escapeHtml(root)}" aria-label="Amazon">amazon</a>
    <form id="nav-search-bar-form" role="search" method="get" action="${escapeHtml(root)}s">
      <input id="twotabsearchtextbox" type="text" name="field-keywords" placeholder="Search Amazon" aria-label="Search Amazon">
      <input id="nav-search-submit-button" type="submit" value="Go">
    </form>
    <a id="nav-link-accountList" class="nav-a" href="${escapeHtml(root)}ap/signin?openid.return_to=${encodeURIComponent(`https://www.${marketplace.domain}/`)}">${escapeHtml(marketplace.accountGreeting)}</a>
    <a id="nav-cart" class="nav-a" href="${escapeHtml(root)}cart">Cart</a>
  </div>
  <div id="nav-main">
    <a class="nav-a" href="${escapeHtml(root)}deals">Today's Deals</a>
    ${rufusNavButton(layout, variation.navAnchors)}
    <a class="nav-a" href="${escapeHtml(root)}customer-service">Customer Service</a>
  </div>
</header>
<main>
  ${body}
</main>
${rufusPanel(layout, options.changed === true, variation)}
<script>window.rufusBootstrap = ${JSON.stringify(bootstrap).replace(/</g, "\\u003c")};</script>
<script>${CLIENT_SCRIPT}</script>${fuzzing}
</body>
</html>`;
}
