/**
 * The Perplexity replica's page (home `/`, thread `/search/<slug>`, deep link `/search?q=`): the DOM anchors of
 * perplexity.md §2 in one of three sheet-legal layouts, and the Cloudflare challenge page of §5. Behaviour lives in
 * client/perplexity-page.js, inlined so that the page is one request like the real site's first paint.
 *
 * | Layout                      | Composer                                        | Answer                                   | Sources menu                                  |
 * |-----------------------------|-------------------------------------------------|------------------------------------------|-----------------------------------------------|
 * | `lexical-prose` (default)   | `#ask-input` Lexical contenteditable             | one `.prose` block (since 2026-08)        | `Sources` button, items `Web` / `Academic` / `Social` |
 * | `textarea-markdown-content` | older `textarea[placeholder*="Ask"]`             | `div[id^="markdown-content-"]` > `.prose` | `Set sources for search`, items with a title and a description |
 * | `lexical-split-prose`       | Lexical inside extra wrappers, hashed classes    | several `.prose` blocks (tables, code apart) | `Connectors and sources`, lower-case items    |
 *
 * Every layout: `button[aria-label="Submit"]` (Enter sends too), `button[data-testid="stop-generating-response-button"]`
 * while streaming, citation pills `span.citation[data-pplx-citation][data-pplx-citation-url]` with the title in the inner
 * link's `aria-label`, a "Related" list once the answer completed.
 */
import { readFileSync } from "node:fs";
import type { VariationProfile } from "../shared/page-variation";
import type { PerplexityPageVariation } from "./variation";

const CLIENT_SCRIPT = readFileSync(new URL("./client/perplexity-page.js", import.meta.url), "utf8");
if (CLIENT_SCRIPT.includes("</script")) throw new Error("perplexity-page.js must not contain a closing script tag");

export const PERPLEXITY_LAYOUTS = ["lexical-prose", "textarea-markdown-content", "lexical-split-prose"] as const;
export type PerplexityLayout = (typeof PERPLEXITY_LAYOUTS)[number];

export function isPerplexityLayout(value: string): value is PerplexityLayout {
  return PERPLEXITY_LAYOUTS.some((layout) => layout === value);
}

const STYLE = `
:root { color-scheme: dark; --bg: #191a1a; --surface: #202222; --border: #3a3d3d; --text: #e8e8e6; --muted: #8d9191; --accent: #20b8cd; }
* { box-sizing: border-box; }
html, body { margin: 0; min-height: 100%; background: var(--bg); color: var(--text); font: 16px/1.6 system-ui, -apple-system, "Segoe UI", sans-serif; }
.app { display: flex; min-height: 100vh; }
.sidebar { width: 220px; padding: 16px; border-right: 1px solid var(--border); display: flex; flex-direction: column; gap: 12px; }
.sidebar a, .sidebar button { color: var(--text); text-decoration: none; background: none; border: 1px solid var(--border); border-radius: 999px; padding: 6px 12px; cursor: pointer; text-align: left; }
main { flex: 1; display: flex; flex-direction: column; align-items: center; padding: 24px 16px 200px; }
.thread { width: min(760px, 100%); display: flex; flex-direction: column; gap: 32px; }
.query-title { font-size: 28px; font-weight: 500; margin: 0 0 12px; }
.prose { overflow-wrap: anywhere; }
.prose table { border-collapse: collapse; margin: 12px 0; }
.prose th, .prose td { border: 1px solid var(--border); padding: 4px 10px; }
.prose pre { background: #111; border: 1px solid var(--border); border-radius: 8px; padding: 12px; overflow-x: auto; }
.citation a { display: inline-block; font-size: 12px; line-height: 18px; padding: 0 8px; margin: 0 2px; border-radius: 999px; background: var(--surface); color: var(--muted); text-decoration: none; vertical-align: middle; }
.stop-button { align-self: flex-start; border-radius: 999px; border: 1px solid var(--border); background: var(--surface); color: var(--text); padding: 4px 14px; }
.related-section { border-top: 1px solid var(--border); padding-top: 12px; }
.related-title { font-weight: 600; margin-bottom: 8px; }
.related-row { padding: 8px 0; border-bottom: 1px solid var(--border); cursor: pointer; }
.composer-dock { position: fixed; bottom: 24px; width: min(760px, calc(100% - 32px)); }
.composer { position: relative; background: var(--surface); border: 1px solid var(--border); border-radius: 24px; padding: 14px 16px 10px; }
#ask-input { min-height: 28px; max-height: 240px; overflow-y: auto; outline: none; white-space: pre-wrap; }
#ask-input p { margin: 0; }
.composer-placeholder { position: absolute; top: 14px; left: 16px; color: var(--muted); pointer-events: none; }
textarea { width: 100%; min-height: 28px; resize: none; background: transparent; color: var(--text); border: none; outline: none; font: inherit; }
.composer-toolbar { display: flex; justify-content: space-between; align-items: center; margin-top: 8px; }
.composer-toolbar button { border-radius: 999px; border: 1px solid var(--border); background: var(--bg); color: var(--text); padding: 6px 12px; cursor: pointer; }
button[aria-label="Submit"] { background: var(--accent); color: #111; border: none; }
button:disabled { opacity: .4; cursor: default; }
[role="menu"] { position: absolute; bottom: 56px; left: 12px; min-width: 260px; background: var(--surface); border: 1px solid var(--border); border-radius: 12px; padding: 6px; z-index: 10; }
[role="menuitemcheckbox"] { display: flex; flex-direction: column; padding: 8px 12px; border-radius: 8px; cursor: pointer; }
[role="menuitemcheckbox"][aria-checked="true"]::after { content: "on"; color: var(--accent); font-size: 12px; }
[role="menuitemcheckbox"]:hover { background: var(--border); }
.menu-item-description { color: var(--muted); font-size: 13px; }
section[aria-live] { position: fixed; top: 16px; right: 16px; display: flex; flex-direction: column; gap: 8px; z-index: 60; }
.toast { background: #3a1515; border: 1px solid #7a2a2a; color: #ffd9d9; padding: 10px 14px; border-radius: 12px; max-width: 360px; }
.signin-dialog { position: fixed; inset: 0; z-index: 50; display: flex; align-items: center; justify-content: center; }
.signin-backdrop { position: absolute; inset: 0; background: rgba(0,0,0,.7); }
.signin-panel { position: relative; background: var(--surface); border: 1px solid var(--border); border-radius: 20px; padding: 28px; width: min(420px, 100% - 32px); text-align: center; display: flex; flex-direction: column; gap: 10px; }
.signin-panel input { padding: 8px 12px; border-radius: 10px; border: 1px solid var(--border); background: var(--bg); color: var(--text); }
.signin-panel button { padding: 8px 12px; border-radius: 999px; border: 1px solid var(--border); background: var(--bg); color: var(--text); }
[hidden] { display: none !important; }
`;

/** The sign-in modal: a full-viewport dialog (overlay inside), so it covers the composer. */
const SIGN_IN_DIALOG = `<div role="dialog" aria-modal="true" class="signin-dialog" data-state="open">
  <div class="signin-backdrop"></div>
  <div class="signin-panel">
    <h2>Sign in or create an account</h2>
    <p>Unlock Pro Search and History</p>
    <button type="button">Continue with Google</button>
    <button type="button">Continue with Apple</button>
    <input type="email" placeholder="henry@example.com" aria-label="Email">
    <button type="button">Continue with email</button>
  </div>
</div>`;

const LEXICAL_INPUT = `<div id="ask-input" contenteditable="true" role="textbox" spellcheck="true" data-lexical-editor="true" aria-placeholder="Ask anything…" aria-multiline="true" aria-autocomplete="none" style="user-select: text; white-space: pre-wrap; word-break: break-word;"><p><br></p></div>
<div class="composer-placeholder" aria-hidden="true">Ask anything…</div>`;

const TEXTAREA_INPUT = `<textarea placeholder="Ask anything..." autocomplete="off" rows="2" autofocus></textarea>`;

const GLOBE = `<svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.8" aria-hidden="true"><circle cx="12" cy="12" r="9"></circle><path d="M3 12h18M12 3a15 15 0 0 1 0 18M12 3a15 15 0 0 0 0 18"></path></svg>`;
const ARROW = `<svg width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><path d="M5 12h14M13 5l7 7-7 7"></path></svg>`;

interface SourceItem {
  title: string;
  description: string;
}

const SOURCE_ITEMS: readonly SourceItem[] = [
  { title: "Web", description: "Search across the entire internet" },
  { title: "Academic", description: "Search academic papers" },
  { title: "Social", description: "Discussions and opinions" },
];

function sourcesMenu(layout: PerplexityLayout, label: string | null): string {
  const items = SOURCE_ITEMS.map((item) => {
    if (layout === "textarea-markdown-content") {
      return `<div role="menuitemcheckbox" tabindex="-1" aria-checked="false"><span class="menu-item-title">${item.title}</span><span class="menu-item-description">${item.description}</span></div>`;
    }
    const label = layout === "lexical-split-prose" ? item.title.toLowerCase() : item.title;
    return `<div role="menuitemcheckbox" tabindex="-1" aria-checked="false"><span>${label}</span></div>`;
  }).join("");
  const triggerLabel =
    label ??
    {
      "lexical-prose": "Sources",
      "textarea-markdown-content": "Set sources for search",
      "lexical-split-prose": "Connectors and sources",
    }[layout];
  return `<button type="button" aria-label="${triggerLabel}" aria-haspopup="menu" aria-expanded="false" data-state="closed">${GLOBE}</button>
<div role="menu" aria-orientation="vertical" hidden>${items}</div>`;
}

function composer(layout: PerplexityLayout, sourcesLabel: string | null): string {
  const input = layout === "textarea-markdown-content" ? TEXTAREA_INPUT : LEXICAL_INPUT;
  const toolbar = `<div class="composer-toolbar"><div class="toolbar-left">${sourcesMenu(layout, sourcesLabel)}</div><button type="button" aria-label="Submit" disabled>${ARROW}</button></div>`;
  if (layout === "lexical-split-prose") {
    return `<div class="composer-dock"><div class="k2m9xq"><div class="composer"><div class="r7t1zz"><div class="p0q3lw">${input}</div></div>${toolbar}</div></div></div>`;
  }
  return `<div class="composer-dock"><div class="composer">${input}${toolbar}</div></div>`;
}

export interface PerplexityPageOptions {
  layout: PerplexityLayout;
  /** Render the sign-in modal over the page (anonymous quota used up / login wall). */
  signInWall: boolean;
  /** Page fuzzing (variation.ts): the provider's own choices, played by the client script; absent = none. */
  variation?: PerplexityPageVariation | null;
  /** The generic variation's script tag (shared/page-variation.ts), put after the page's own script; "" = none. */
  variationTag?: string;
}

/**
 * How the page lends itself to the generic variation classes. The sheet's anchors stay intact: `#ask-input`, the
 * textarea's placeholder, `button[aria-label="Submit"]` (§2 gives that label as the selector, so it is never
 * restyled), `.prose`, `span.citation` and the `data-pplx-*` attributes (kept classes).
 */
export const PERPLEXITY_VARIATION_PROFILE: VariationProfile = {
  // the composer, the send control and the sources menu's trigger mount and hydrate together (a client-rendered app)
  hydrating: ["#ask-input", 'textarea[placeholder*="Ask"]', 'button[aria-label="Submit"]', 'button[aria-haspopup="menu"]'],
  composer: ["#ask-input", 'textarea[placeholder*="Ask"]'],
  // labels the sheet does not state (the trigger's label is unknown, item wordings vary): restyled freely
  labelled: ['button[aria-haspopup="menu"]', '[role="menuitemcheckbox"]', 'button[data-testid="stop-generating-response-button"]'],
  wrappable: [".composer-dock", ".composer-toolbar", ".toolbar-left"],
  rotatable: [
    ".sidebar",
    ".composer-dock",
    ".composer",
    ".composer-toolbar",
    ".toolbar-left",
    ".stop-button",
    ".query-title",
    "span.citation",
  ],
  keepClasses: ["prose", "citation"],
  siblings: [
    {
      // a newer assistant's input (Comet-style "ask about this tab") before the composer; not Lexical, no #ask-input
      before: '#ask-input, textarea[placeholder*="Ask"]',
      html: '<div class="tab-assistant" contenteditable="true" role="textbox" aria-label="Ask about this tab" style="min-height:24px;border-bottom:1px dashed #3a3d3d;margin-bottom:6px"></div>',
      what: "a tab-assistant textbox before the composer",
    },
    {
      // a model picker (menu button) before the sources menu's trigger
      before: 'button[aria-haspopup="menu"]',
      html: '<button type="button" aria-haspopup="menu" aria-expanded="false" aria-label="Choose a model">Best</button>',
      what: "a model picker before the sources trigger",
    },
    {
      // voice mode before the send control
      before: 'button[aria-label="Submit"]',
      html: '<button type="button" aria-label="Voice mode">Voice</button>',
      what: "a voice-mode button before Submit",
    },
  ],
};

export function renderPerplexityPage(options: PerplexityPageOptions): string {
  const pageProps: Record<string, unknown> = { layout: options.layout };
  // fuzzing off: the page stays byte for byte what it was
  if (options.variation !== undefined && options.variation !== null) pageProps.variation = options.variation;
  const nextData = JSON.stringify({ props: { pageProps }, page: "/", buildId: "replica" }).replace(/</g, "\\u003c");
  return `<!DOCTYPE html>
<html lang="en-US" class="dark">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Perplexity</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<div class="app">
  <nav class="sidebar">
    <a href="./">perplexity</a>
    <button type="button">New Thread</button>
    <a href="#" class="sign-in-link">Sign in</a>
  </nav>
  <main>
    <div class="thread" hidden></div>
    ${composer(options.layout, options.variation?.sourcesLabel ?? null)}
  </main>
</div>
<section aria-live="polite" aria-label="Notifications"></section>
<template>${SIGN_IN_DIALOG}</template>
${options.signInWall ? SIGN_IN_DIALOG : ""}
<script id="__NEXT_DATA__" type="application/json">${nextData}</script>
<script type="module">${CLIENT_SCRIPT}</script>
${options.variationTag ?? ""}</body>
</html>`;
}

/** Cloudflare's interstitial as served with `403` and `cf-mitigated: challenge` (perplexity.md §5). */
export function renderChallengePage(): string {
  return `<!DOCTYPE html>
<html lang="en-US">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex,nofollow">
<title>Just a moment...</title>
</head>
<body>
<div class="main-wrapper" role="main">
  <div class="main-content">
    <h1>www.perplexity.ai</h1>
    <h2>Verify you are human by completing the action below.</h2>
    <p>www.perplexity.ai needs to review the security of your connection before proceeding.</p>
    <noscript>Enable JavaScript and cookies to continue</noscript>
  </div>
</div>
</body>
</html>`;
}
