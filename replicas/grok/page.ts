/**
 * The Grok replica's home page: the DOM anchors of grok.md §2 (ProseMirror composer, submit button, mode picker,
 * assistant `.message-bubble` with `div.response-content-markdown`, action buttons, login wall). Behaviour lives in
 * client/grok-page.js, inlined here so the page is one request like the real site's first paint.
 */
import { readFileSync } from "node:fs";
import type { GrokPageVariation } from "./variation";

const CLIENT_SCRIPT = readFileSync(new URL("./client/grok-page.js", import.meta.url), "utf8");
if (CLIENT_SCRIPT.includes("</script")) throw new Error("grok-page.js must not contain a closing script tag");
const VARIATION_SCRIPT = readFileSync(new URL("./client/grok-variation.js", import.meta.url), "utf8");
if (VARIATION_SCRIPT.includes("</script")) throw new Error("grok-variation.js must not contain a closing script tag");

const STYLE = `
:root { color-scheme: dark; --bg: #141414; --surface: #1f1f1f; --border: #2e2e2e; --text: #ececec; --muted: #9a9a9a; --accent: #e8e8e8; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--text); font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
.site-header { display: flex; align-items: center; justify-content: space-between; padding: 12px 20px; }
.logo { color: var(--text); font-weight: 700; font-size: 20px; text-decoration: none; }
.auth-buttons { display: flex; gap: 8px; }
.auth-buttons .button, .login-modal .button { text-decoration: none; display: inline-block; border-radius: 999px; padding: 6px 16px; border: 1px solid var(--border); background: var(--surface); color: var(--text); cursor: pointer; }
main { display: flex; flex-direction: column; align-items: center; min-height: calc(100% - 56px); }
#thread { width: min(760px, 100% - 32px); flex: 1; display: flex; flex-direction: column; gap: 16px; padding: 16px 0 160px; }
.message-row { display: flex; flex-direction: column; width: 100%; }
.items-end { align-items: flex-end; }
.items-start { align-items: flex-start; }
.message-bubble { border-radius: 24px; max-width: 100%; }
.user-bubble { background: var(--surface); border: 1px solid var(--border); padding: 10px 16px; max-width: 80%; }
.assistant-bubble { width: 100%; }
.whitespace-pre-wrap { white-space: pre-wrap; }
.response-content-markdown { overflow-wrap: anywhere; }
.response-content-markdown pre { background: #0c0c0c; border: 1px solid var(--border); border-radius: 8px; padding: 12px; overflow-x: auto; }
.response-content-markdown table { border-collapse: collapse; }
.response-content-markdown th, .response-content-markdown td { border: 1px solid var(--border); padding: 4px 10px; }
.response-content-markdown a { color: #8ab4f8; }
a.citation { font-size: 12px; padding: 1px 8px; margin: 0 2px; border-radius: 999px; background: var(--surface); border: 1px solid var(--border); text-decoration: none; color: var(--muted); }
.thinking-container { border-left: 2px solid var(--border); padding-left: 12px; margin-bottom: 8px; color: var(--muted); }
.thinking-toggle { background: none; border: none; color: var(--muted); cursor: pointer; padding: 0; }
.thinking-container:not(.open) .thinking-content { display: none; }
.typing-indicator span { display: inline-block; width: 6px; height: 6px; margin-right: 4px; border-radius: 50%; background: var(--muted); }
.action-buttons { display: flex; gap: 4px; margin-top: 6px; }
.action-button, .follow-up-suggestion { background: none; border: 1px solid var(--border); color: var(--muted); border-radius: 999px; padding: 3px 10px; cursor: pointer; }
.follow-up-suggestions { display: flex; flex-direction: column; align-items: flex-start; gap: 6px; margin-top: 12px; }
.query-bar { position: fixed; bottom: 16px; width: min(760px, 100% - 32px); background: var(--surface); border: 1px solid var(--border); border-radius: 28px; padding: 12px 16px; }
.tiptap.ProseMirror { min-height: 28px; max-height: 240px; overflow-y: auto; outline: none; white-space: pre-wrap; }
.tiptap.ProseMirror p { margin: 0; }
.tiptap.ProseMirror p.is-editor-empty:first-child::before { content: attr(data-placeholder); color: var(--muted); float: left; height: 0; pointer-events: none; }
.composer-bar { display: flex; justify-content: space-between; align-items: center; margin-top: 8px; }
.composer-bar button { border-radius: 999px; border: 1px solid var(--border); background: var(--bg); color: var(--text); padding: 6px 14px; cursor: pointer; }
.composer-bar button[type="submit"] { background: var(--accent); color: #111; }
.composer-bar button:disabled { opacity: .4; cursor: default; }
[hidden] { display: none !important; }
#model-select-menu { position: absolute; bottom: 56px; left: 12px; min-width: 180px; background: var(--surface); border: 1px solid var(--border); border-radius: 16px; padding: 6px; }
#model-select-menu [role="menuitem"] { padding: 8px 12px; border-radius: 10px; cursor: pointer; }
#model-select-menu [role="menuitem"]:hover { background: var(--border); }
#model-select-menu [role="menuitem"][data-state="checked"]::after { content: " \\2713"; color: var(--muted); }
#toaster { position: fixed; top: 16px; right: 16px; display: flex; flex-direction: column; gap: 8px; z-index: 60; }
.toast-error { background: #3a1515; border: 1px solid #7a2a2a; color: #ffd9d9; padding: 10px 14px; border-radius: 12px; max-width: 360px; }
.modal-overlay { position: fixed; inset: 0; background: rgba(0,0,0,.7); z-index: 40; }
.login-modal { position: fixed; top: 50%; left: 50%; transform: translate(-50%, -50%); z-index: 50; background: var(--surface); border: 1px solid var(--border); border-radius: 20px; padding: 28px; width: min(400px, 100% - 32px); text-align: center; }
.login-modal .modal-actions { display: flex; flex-direction: column; gap: 8px; margin-top: 16px; }
`;

/** Sign-in modal; rendered into the page on a login wall, and cloned by the script when the endpoint answers 401. */
const LOGIN_WALL = `<div class="modal-overlay" data-state="open"></div>
<div role="dialog" aria-modal="true" aria-labelledby="login-modal-title" class="login-modal" data-state="open">
  <h2 id="login-modal-title">Sign in to continue</h2>
  <p>Sign in or create an account to chat with Grok.</p>
  <div class="modal-actions">
    <a role="button" class="button" href="https://accounts.x.ai/sign-in?redirect=grok-com">Sign in</a>
    <a role="button" class="button" href="https://accounts.x.ai/sign-up?redirect=grok-com">Sign up</a>
  </div>
</div>`;

const MODE_ITEMS = [
  { label: "Auto", description: "Chooses Fast or Expert" },
  { label: "Fast", description: "Quick responses" },
  { label: "Expert", description: "Thinks hard" },
] as const;

/**
 * Markup variants, all legal by grok.md (DESIGN.md §6): the scraper must work on each without hints.
 * - `classic`: ProseMirror composer, picker labelled "Model select", plain menu items.
 * - `described`: picker without an aria-label (its text is the current mode), items that hold a title and a
 *   description (role menuitemradio), renamed classes and an extra wrapper around the composer.
 * - `legacy`: the older `textarea` composer, menu labels in capitals.
 */
export const GROK_LAYOUTS = ["classic", "described", "legacy"] as const;
export type GrokLayout = (typeof GROK_LAYOUTS)[number];

export function isGrokLayout(value: string): value is GrokLayout {
  return GROK_LAYOUTS.some((layout) => layout === value);
}

export interface GrokPageOptions {
  /** Render the signed-out state: Sign in / Sign up buttons in the header and the sign-in modal over the composer. */
  loginWall: boolean;
  layout: GrokLayout;
  /** A fuzzed page load (variation.ts): Grok's own variation and the generic tag; absent = the page as always. */
  variation?: { grok: GrokPageVariation; genericTag: string };
}

/**
 * The scripts of a fuzzed page, after the page's own module script. Both run as module scripts so that they run after
 * it (an inline classic script would run before a module script, while the page script has not built the page yet).
 */
function variationScripts(variation: { grok: GrokPageVariation; genericTag: string }): string {
  const config = JSON.stringify(variation.grok).replaceAll("<", "\\u003c");
  const grok = `<script type="module">(${VARIATION_SCRIPT.trim()})(${config});</script>`;
  return `\n${grok}${variation.genericTag}`;
}

/** Where the page script finds its own elements in each layout (the script's business, not the scraper's). */
function layoutConfig(layout: GrokLayout) {
  return {
    composer: layout === "legacy" ? "textarea.chat-input" : '.query-bar [contenteditable="true"]',
    textarea: layout === "legacy",
    modeButton: '.query-bar button[aria-haspopup="menu"]',
    modeLabel: ".mode-label",
    modeMenu: '.query-bar [role="menu"]',
    modeItem: layout === "described" ? '[role="menuitemradio"]' : '[role="menuitem"]',
    labels: MODE_ITEMS.map((item) => (layout === "legacy" ? item.label.toUpperCase() : item.label)),
  };
}

function renderMenuItems(layout: GrokLayout): string {
  return MODE_ITEMS.map((item) => {
    if (layout === "described") {
      return `<div role="menuitemradio" tabindex="-1" aria-checked="false" class="mi-row"><span class="mi-title">${item.label}</span><span class="mi-desc">${item.description}</span></div>`;
    }
    const label = layout === "legacy" ? item.label.toUpperCase() : item.label;
    return `<div role="menuitem" tabindex="-1" data-state="unchecked" aria-checked="false">${label}</div>`;
  }).join("");
}

function renderComposer(layout: GrokLayout): string {
  if (layout === "legacy") {
    return `<textarea class="chat-input" rows="2" aria-label="Ask Grok anything" placeholder="What do you want to know?"></textarea>`;
  }
  const editor = `<div class="tiptap ProseMirror" contenteditable="true" role="textbox" translate="no" tabindex="0" aria-label="Ask Grok anything" aria-multiline="true"><p class="is-empty is-editor-empty" data-placeholder="What do you want to know?"><br class="ProseMirror-trailingBreak"></p></div>`;
  return layout === "described" ? `<div class="editor-shell"><div class="editor-inner">${editor}</div></div>` : editor;
}

function renderModePicker(layout: GrokLayout): string {
  const label = layout === "legacy" ? "AUTO" : "Auto";
  if (layout === "described") {
    return `<button type="button" id="mode-trigger" class="pill-select" aria-haspopup="menu" aria-expanded="false" data-state="closed"><span class="mode-label">${label}</span></button>`;
  }
  return `<button type="button" id="model-select-trigger" aria-label="Model select" aria-haspopup="menu" aria-expanded="false" data-state="closed"><span class="mode-label">${label}</span></button>`;
}

export function renderGrokHomePage(options: GrokPageOptions): string {
  const header = options.loginWall
    ? `<div class="auth-buttons"><a role="button" class="button" href="https://accounts.x.ai/sign-in?redirect=grok-com">Sign in</a><a role="button" class="button" href="https://accounts.x.ai/sign-up?redirect=grok-com">Sign up</a></div>`
    : `<div class="account-menu"><button type="button" aria-label="Account" class="avatar">G</button></div>`;
  const items = renderMenuItems(options.layout);
  const config = JSON.stringify(layoutConfig(options.layout)).replaceAll("<", "\\u003c");
  return `<!DOCTYPE html>
<html lang="en" class="dark">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Grok</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header class="site-header">
  <a class="logo" href="./" aria-label="Home page">Grok</a>
  ${header}
</header>
<main>
  <div id="thread" class="flex flex-col w-full"></div>
  <form class="query-bar" action="" autocomplete="off">
    ${renderComposer(options.layout)}
    <div class="composer-bar">
      ${renderModePicker(options.layout)}
      <div>
        <button type="button" aria-label="Stop model response" hidden>Stop</button>
        <button type="submit" aria-label="Submit">Send</button>
      </div>
    </div>
    <div id="model-select-menu" role="menu" aria-orientation="vertical" hidden>${items}</div>
  </form>
</main>
<section id="toaster" aria-label="Notifications" aria-live="polite"></section>
<template id="login-wall-template">${LOGIN_WALL}</template>
${options.loginWall ? LOGIN_WALL : ""}
<script type="module">const LAYOUT = ${config};
${CLIENT_SCRIPT}</script>${options.variation === undefined ? "" : variationScripts(options.variation)}
</body>
</html>`;
}
