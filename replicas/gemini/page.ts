/**
 * The Gemini replica's pages: `/app` with the DOM anchors of gemini.md §2 (Quill composer, Send message / Stop response
 * buttons, `model-response` with `aria-busy`, the markdown panel, citation chips, the Sources button and side panel or
 * the end-of-answer `sources-list`, the mode picker), the signed-out page (login wall) and Google's `/sorry/index`
 * page (anti-bot challenge). Behaviour lives in client/gemini-page.js, inlined so the page is one request.
 *
 * Three layouts, all things the real site serves according to the sheet:
 * - `side-panel` (default): signed in; composer inside `rich-textarea`; the send button is always there (disabled while
 *   the composer is empty); chips' aria-label ends "Opens side panel."; sources open in a side panel of
 *   `inline-source-card`s through `button.legacy-sources-sidebar-button`; the page sends StreamGenerate with XMLHttpRequest.
 * - `sources-list`: signed out but allowed to chat (the top bar shows a Sign in link while the composer works); the Quill
 *   editor without the `rich-textarea` wrapper; the send button only appears once the composer has text; extra
 *   wrappers around the answer; chips' aria-label variant "Press Enter to open sources dialog."; the cards render in a
 *   `sources-list` at the end of the answer (other class names, title before site); mode items with a title and a
 *   description; the page sends StreamGenerate with fetch.
 * - `chip-dialog`: like `side-panel`, but without a Sources button or list: each chip (aria-label "… Press Enter to
 *   open sources dialog.") opens a dialog with its own source cards, which Escape closes.
 */
import { readFileSync } from "node:fs";
import { GEMINI_PICKER_MODE, type GeminiLayout } from "./layouts";
import type { GeminiPageVariation } from "./variation";

const CLIENT_SCRIPT = readFileSync(new URL("./client/gemini-page.js", import.meta.url), "utf8");
if (CLIENT_SCRIPT.includes("</script")) throw new Error("gemini-page.js must not contain a closing script tag");
const VARIATION_SCRIPT = readFileSync(new URL("./client/gemini-variation.js", import.meta.url), "utf8");
if (VARIATION_SCRIPT.includes("</script")) throw new Error("gemini-variation.js must not contain a closing script tag");

/** Build label of the replica's "server" (`cfb2h`), sent back as `bl`. */
export const GEMINI_BUILD_LABEL = "boq_assistant-bard-web-server_20261115.07_p0";

const MODES = [
  { label: GEMINI_PICKER_MODE, description: "Fast all-round help", modelId: "71c2d248d3b102ff", tier: 1 },
  { label: "Thinking", description: "Solves complex problems", modelId: "e6fa609c3fa255c0", tier: 1 },
  { label: "Pro", description: "Thinks longer for advanced math & code", modelId: "9d8ca3786ebdfbea", tier: 2 },
] as const;

/** UI strings; the page follows `hl` like the real one (only German is translated beyond English here). */
const STRINGS = {
  en: {
    send: "Send message",
    stop: "Stop response",
    picker: (mode: string) => `Open mode picker, currently ${mode}`,
    prompt: "Enter a prompt here",
  },
  de: {
    send: "Nachricht senden",
    stop: "Antwort anhalten",
    picker: (mode: string) => `Modusauswahl öffnen, aktuell ${mode}`,
    prompt: "Prompt hier eingeben",
  },
} as const;

export function stringsFor(language: string): (typeof STRINGS)[keyof typeof STRINGS] {
  return language.toLowerCase().startsWith("de") ? STRINGS.de : STRINGS.en;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** JSON safe to embed in a script element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

const STYLE = `
:root { color-scheme: dark; --bg: #131314; --surface: #1e1f20; --border: #3c4043; --text: #e3e3e3; --muted: #9aa0a6; --link: #a8c7fa; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--text); font: 16px/1.6 "Google Sans", Roboto, Arial, sans-serif; }
chat-app { display: flex; flex-direction: column; min-height: 100%; }
.top-bar { display: flex; align-items: center; justify-content: space-between; padding: 10px 16px; }
.top-bar .product { font-size: 20px; }
.gb_account, .gb_signin { border-radius: 999px; border: 1px solid var(--border); background: var(--surface); color: var(--text); padding: 6px 14px; text-decoration: none; cursor: pointer; }
bard-mode-switcher { position: relative; display: inline-block; }
bard-mode-switcher button { background: none; border: none; color: var(--text); font-size: 16px; cursor: pointer; }
.mode-menu { position: absolute; top: 36px; left: 0; min-width: 240px; background: var(--surface); border: 1px solid var(--border); border-radius: 12px; padding: 6px; z-index: 20; }
.mode-menu [role="menuitem"] { display: flex; flex-direction: column; align-items: flex-start; width: 100%; background: none; border: none; color: var(--text); padding: 8px 12px; border-radius: 8px; cursor: pointer; text-align: left; }
.mode-menu [role="menuitem"]:hover { background: var(--border); }
.mode-menu .mode-desc { color: var(--muted); font-size: 13px; }
main.chat-container { flex: 1; display: flex; flex-direction: column; align-items: center; }
.chat-history { width: min(760px, 100% - 32px); flex: 1; padding-bottom: 180px; }
.conversation-container { margin: 24px 0; }
user-query { display: flex; justify-content: flex-end; }
.query-content { background: var(--surface); border-radius: 20px 4px 20px 20px; padding: 10px 16px; max-width: 80%; white-space: pre-wrap; }
.query-text-line { margin: 0; }
model-response { display: block; margin-top: 16px; }
.markdown-main-panel { overflow-wrap: anywhere; }
.markdown-main-panel pre { background: #0c0c0c; border: 1px solid var(--border); border-radius: 8px; padding: 12px; overflow-x: auto; }
.markdown-main-panel table { border-collapse: collapse; }
.markdown-main-panel th, .markdown-main-panel td { border: 1px solid var(--border); padding: 4px 10px; }
.markdown-main-panel a { color: var(--link); }
sources-carousel-inline { display: inline-flex; gap: 4px; margin: 0 4px; vertical-align: middle; }
source-inline-chip button { font-size: 12px; border-radius: 999px; border: 1px solid var(--border); background: var(--surface); color: var(--muted); padding: 0 8px; cursor: pointer; }
model-thoughts { display: block; color: var(--muted); margin-bottom: 8px; }
.thoughts-header-button { background: none; border: none; color: var(--muted); cursor: pointer; padding: 0; }
.response-footer { display: flex; gap: 6px; margin-top: 8px; }
.response-footer button { background: none; border: 1px solid var(--border); color: var(--muted); border-radius: 999px; padding: 2px 10px; cursor: pointer; }
sources-list { display: block; margin-top: 12px; border-top: 1px solid var(--border); padding-top: 8px; }
inline-source-card { display: block; border: 1px solid var(--border); border-radius: 8px; padding: 8px; margin: 6px 0; }
inline-source-card a { color: var(--text); text-decoration: none; }
.source-card-site, .s-9q, .source-card-snippet, .d-3k { color: var(--muted); font-size: 13px; }
context-sidebar { position: fixed; top: 0; right: 0; bottom: 0; width: 360px; background: var(--surface); border-left: 1px solid var(--border); padding: 16px; overflow-y: auto; z-index: 30; }
.sidebar-header { display: flex; justify-content: space-between; align-items: center; }
.overlay-dialog { position: fixed; top: 20%; left: 50%; transform: translateX(-50%); width: min(420px, 100% - 32px); background: var(--surface); border: 1px solid var(--border); border-radius: 16px; padding: 16px; z-index: 40; }
input-container { position: fixed; bottom: 16px; left: 0; right: 0; display: flex; justify-content: center; }
input-area-v2 { display: flex; align-items: flex-end; gap: 8px; width: min(760px, 100% - 32px); background: var(--surface); border: 1px solid var(--border); border-radius: 28px; padding: 12px 16px; }
rich-textarea, .text-input-field { flex: 1; }
.ql-editor { min-height: 28px; max-height: 240px; overflow-y: auto; outline: none; white-space: pre-wrap; }
.ql-editor p { margin: 0; }
.ql-editor.ql-blank::before { content: attr(aria-label); color: var(--muted); position: absolute; pointer-events: none; }
.trailing-actions-wrapper button { border-radius: 999px; border: none; background: var(--border); color: var(--text); padding: 6px 12px; cursor: pointer; }
.trailing-actions-wrapper button[aria-disabled="true"] { opacity: .4; }
.snackbar { position: fixed; bottom: 110px; left: 50%; transform: translateX(-50%); background: #5c2b29; color: #fff; padding: 10px 16px; border-radius: 8px; z-index: 50; }
.response-error { color: #f28b82; }
[hidden] { display: none !important; }
`;

export interface GeminiAppPageOptions {
  layout: GeminiLayout;
  /** `hl` of the page URL ("en" when absent). */
  language: string;
  /** The `at` token (SNlM0e) the page posts back. */
  token: string;
  /** `f.sid` of this page. */
  sessionId: string;
  /** Path of the site root below the replica server (the mount path), without trailing slash. */
  basePath: string;
  /** A fuzzed page load (variation.ts): Gemini's own variation and the generic tag; absent = the page as always. */
  variation?: { gemini: GeminiPageVariation; genericTag: string };
}

/**
 * The scripts of a fuzzed page, after the page's own module script: Gemini's own variation first (it reads the cards
 * and labels the page rendered before the generic decoration restyles them), then the generic one. Both run as module
 * scripts so that they run after the page script (an inline classic script would run before it).
 */
export function variationScripts(variation: { gemini: GeminiPageVariation; genericTag: string }): string {
  const gemini = `<script type="module">(${VARIATION_SCRIPT.trim()})(${scriptJson(variation.gemini)});</script>`;
  return `\n${gemini}${variation.genericTag}`;
}

function modeItems(layout: GeminiLayout): string {
  return MODES.map((mode) =>
    layout !== "sources-list"
      ? `<button role="menuitem" class="mat-mdc-menu-item" type="button">${mode.label}</button>`
      : `<button role="menuitem" class="mat-mdc-menu-item mode-option" type="button"><span class="mode-title gds-label-l">${mode.label}</span><span class="mode-desc gds-body-s">${mode.description}</span></button>`,
  ).join("");
}

function composer(layout: GeminiLayout, label: string): string {
  const editor = `<div class="ql-editor ql-blank textarea new-input-ui" contenteditable="true" role="textbox" aria-multiline="true" aria-label="${escapeHtml(label)}"><p><br></p></div>`;
  return layout !== "sources-list"
    ? `<rich-textarea class="text-input-field_textarea">${editor}</rich-textarea>`
    : `<div class="text-input-field"><div class="ql-container ql-bubble">${editor}</div></div>`;
}

export function renderGeminiAppPage(options: GeminiAppPageOptions): string {
  const { layout, language } = options;
  const strings = stringsFor(language);
  const picker = MODES[0];
  const account =
    layout !== "sources-list"
      ? `<button type="button" class="gb_account" aria-label="Google Account: Replica Tester (replica.tester@example.com)">R</button>`
      : `<a class="gb_signin" href="https://accounts.google.com/ServiceLogin?passive=1209600&amp;continue=https://gemini.google.com/app&amp;followup=https://gemini.google.com/app&amp;ec=GAZAkgU">Sign in</a>`;
  const sendButtons =
    layout !== "sources-list"
      ? `<button type="button" class="send-button submit" aria-label="${escapeHtml(strings.send)}" aria-disabled="true"><mat-icon class="mat-icon" fonticon="send">send</mat-icon></button>`
      : `<button type="button" class="speech_dictation_mic_button" aria-label="Microphone"><mat-icon class="mat-icon" fonticon="mic">mic</mat-icon></button>`;
  const sidebar =
    layout === "side-panel"
      ? `<context-sidebar class="sidebar" hidden><div class="sidebar-header"><span class="gds-title-l">Sources</span><button type="button" class="close-button" aria-label="Close">close</button></div><side-bar-sources class="sources-sidebar"></side-bar-sources></context-sidebar>`
      : "";
  const wizGlobalData = {
    SNlM0e: options.token,
    cfb2h: GEMINI_BUILD_LABEL,
    FdrFJe: options.sessionId,
    qwAQke: "BardChatUi",
    TuX5cc: language,
  };
  const layoutConfig = {
    transport: layout === "sources-list" ? "fetch" : "xhr",
    chipSuffix: layout === "side-panel" ? "Opens side panel." : "Press Enter to open sources dialog.",
    sources: layout === "chip-dialog" ? "dialog" : layout,
    sendAlwaysShown: layout !== "sources-list",
    cardStyle: layout === "side-panel" ? "hinted" : "plain",
    wrappers: layout === "sources-list" ? "nested" : "plain",
    sendLabel: strings.send,
    stopLabel: strings.stop,
    modes: MODES,
    pickerLabel: strings.picker("{mode}"),
  };
  return `<!DOCTYPE html>
<html lang="${escapeHtml(language)}" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<base href="${escapeHtml(options.basePath)}/">
<title>Gemini</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
<script>window.WIZ_global_data = ${scriptJson(wizGlobalData)};</script>
</head>
<body>
<chat-app>
  <div class="top-bar boqOnegoogleliteOgbOneGoogleBar">
    <div class="left-section"><span class="product">Gemini</span>
      <bard-mode-switcher>
        <button type="button" class="mat-mdc-button input-area-switch" data-test-id="bard-mode-menu-button" aria-haspopup="menu" aria-expanded="false" aria-label="${escapeHtml(strings.picker(picker.label))}"><span class="mdc-button__label"><span class="mode-label">${picker.label}</span><mat-icon class="mat-icon" fonticon="keyboard_arrow_down">keyboard_arrow_down</mat-icon></span></button>
        <div class="mat-mdc-menu-panel mode-menu" role="menu" hidden>${modeItems(layout)}</div>
      </bard-mode-switcher>
    </div>
    <div class="right-section">${account}</div>
  </div>
  <main class="chat-container">
    <infinite-scroller class="chat-history"></infinite-scroller>
    <input-container>
      <input-area-v2>
        ${composer(layout, strings.prompt)}
        <div class="trailing-actions-wrapper">${sendButtons}<button type="button" class="send-button stop" aria-label="${escapeHtml(strings.stop)}" hidden><mat-icon class="mat-icon" fonticon="stop">stop</mat-icon></button></div>
      </input-area-v2>
    </input-container>
  </main>
  ${sidebar}
  <div class="cdk-overlay-container"></div>
</chat-app>
<script type="module">const LAYOUT = ${scriptJson(layoutConfig)};
${CLIENT_SCRIPT}</script>${options.variation === undefined ? "" : variationScripts(options.variation)}
</body>
</html>`;
}

/** The signed-out landing page served instead of the app (login wall): Sign in controls and no composer. */
export function renderSignInPage(language: string, genericTag = ""): string {
  return `<!DOCTYPE html>
<html lang="${escapeHtml(language)}" dir="ltr">
<head><meta charset="utf-8"><title>Gemini - chat to supercharge your ideas</title><link rel="icon" href="data:,"><style>${STYLE}</style></head>
<body>
<chat-app>
  <div class="top-bar"><span class="product">Gemini</span>
    <a class="gb_signin" href="https://accounts.google.com/ServiceLogin?passive=1209600&amp;continue=https://gemini.google.com/app&amp;followup=https://gemini.google.com/app&amp;ec=GAZAkgU">Sign in</a>
  </div>
  <main class="chat-container">
    <h1>Meet Gemini, your personal AI assistant</h1>
    <p>Sign in to start chatting with Gemini.</p>
    <button type="button" class="sign-in-button" aria-label="Sign in">Sign in</button>
  </main>
</chat-app>${genericTag}
</body>
</html>`;
}

/** Google's anti-bot interstitial (served with status 429). */
export function renderSorryPage(continueUrl: string): string {
  return `<html>
<head><meta http-equiv="content-type" content="text/html; charset=utf-8"><meta name="viewport" content="initial-scale=1"><title>https://gemini.google.com/app</title></head>
<body style="font-family: arial, sans-serif; background-color: #fff; color: #000; padding:20px; font-size:18px;">
<div style="max-width:400px;">
<hr noshade size="1" style="color:#ccc; background-color:#ccc;"><br>
<form id="captcha-form" action="index" method="post">
<div id="recaptcha" class="g-recaptcha" data-sitekey="6LfwuyUTAAAAAOAmoS0fdqijC2PbbdH4kjq62Y1b"></div>
<input type='hidden' name='q' value='EgRZ0gGkGPjYrskGIjB1bnVzdWFsLXRyYWZmaWM'><input type="hidden" name="continue" value="${escapeHtml(continueUrl)}">
</form>
<hr noshade size="1" style="color:#ccc; background-color:#ccc;">
<div style="font-size:13px;">
<b>About this page</b><br><br>
Our systems have detected unusual traffic from your computer network.  This page checks to see if it&#39;s really you sending the requests, and not a robot.
</div>
</div>
</body>
</html>`;
}

/** Google's plain error page (e.g. `Error 400 (Bad Request)!!1`). */
export function renderGoogleErrorPage(status: number, reason: string): string {
  return `<!DOCTYPE html>
<html lang=en>
<meta charset=utf-8>
<title>Error ${status} (${escapeHtml(reason)})!!1</title>
<p><b>${status}.</b> <ins>That’s an error.</ins>
<p>${status === 400 ? "Your client has issued a malformed or illegal request." : "The server encountered an error. Please try again later."}  <ins>That’s all we know.</ins>
`;
}
