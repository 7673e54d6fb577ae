/**
 * The ChatGPT replica's pages: the home page with the DOM anchors of chatgpt.md §2 (`#prompt-textarea` or the
 * `[placeholder="Ask anything"]` fallback, `send-button` / `stop-button`, conversation-turn sections,
 * `data-message-author-role` / `-id` / `-model-slug`, `.markdown`, `copy-turn-action-button`, the footnote pill and the
 * sources panel), the login-wall modal and the Cloudflare interstitial. Behaviour lives in client/chatgpt-page.js,
 * inlined with the build's settings so the page is one request, like the site's first paint.
 *
 * Layouts (markup and build variants the site has served, all within the sheet):
 * - `anonymous` (default): a logged-out session: `/backend-anon/f/conversation`, one `chat-requirements` call,
 *   ProseMirror composer `div#prompt-textarea` (plus the hidden `textarea[placeholder]` fallback), "Log in" and
 *   "Sign up for free" buttons in the header (always there when logged out: not a login wall).
 * - `signed-in`: a newer logged-in build: `/backend-api/…`, the requirements call split into `…/prepare` and
 *   `…/finalize`, `f/conversation/prepare` with `x-conduit-token`; extra wrappers, hashed class names, a profile button.
 *   Its login wall (an expired session) is a redirect to auth.openai.com rather than the modal.
 * - `legacy-build`: an older build: `/backend-anon/conversation` (no `f/`), no `supported_encodings` (so the server
 *   answers in the old cumulative format), a plain `textarea[placeholder="Ask anything"]` without the id, the send
 *   button before the input, citation links without wrappers.
 */
import { readFileSync } from "node:fs";
import type { ChatgptPageVariant } from "./variation";

const CLIENT_SCRIPT = readFileSync(new URL("./client/chatgpt-page.js", import.meta.url), "utf8");
if (CLIENT_SCRIPT.includes("</script")) throw new Error("chatgpt-page.js must not contain a closing script tag");

export const CHATGPT_LAYOUTS = ["anonymous", "signed-in", "legacy-build"] as const;
export type ChatgptLayout = (typeof CHATGPT_LAYOUTS)[number];

export function isChatgptLayout(value: string): value is ChatgptLayout {
  return CHATGPT_LAYOUTS.some((layout) => layout === value);
}

/** What the page's script needs to know about its build (endpoints, request shape, markup). */
export interface ChatgptBuild {
  /** `backend-anon` (logged out) or `backend-api` (logged in). */
  apiRoot: "backend-anon" | "backend-api";
  /** `f/conversation` (current) or `conversation` (older builds). */
  conversationPath: "f/conversation" | "conversation";
  /** One `sentinel/chat-requirements` call, or the newer `…/prepare` + `…/finalize` pair. */
  sentinel: "single" | "split";
  /** Newer logged-in builds call `f/conversation/prepare` first and send its `conduit_token`. */
  conduit: boolean;
  /** Whether the request offers `supported_encodings: ["v1"]`. */
  offersV1: boolean;
  /** Whether a turn that asks for no tool still sends `system_hints: []` (the sheet names the field only when searching). */
  sendsEmptyHints: boolean;
  /** Class names and wrappers of the turns the script renders. */
  markup: {
    turnClass: string;
    /** Extra wrapper elements between the turn section and the message div. */
    wrappers: string[];
    messageClass: string;
    markdownClass: string;
    actionsClass: string;
    copyLabel: string;
    /** Citation pill: a link inside wrapper spans, or a bare link. */
    pill: "wrapped" | "bare";
    pillClass: string;
  };
}

export const CHATGPT_BUILDS: Readonly<Record<ChatgptLayout, ChatgptBuild>> = {
  anonymous: {
    apiRoot: "backend-anon",
    conversationPath: "f/conversation",
    sentinel: "single",
    conduit: false,
    offersV1: true,
    sendsEmptyHints: true,
    markup: {
      turnClass: "text-token-text-primary w-full focus:outline-none scroll-mt-[calc(var(--header-height)+min(200px,max(70px,20svh)))]",
      wrappers: ["text-base my-auto mx-auto pt-3 px-6", "mx-auto flex flex-1 text-base gap-4 md:gap-5 lg:gap-6"],
      messageClass: "min-h-8 text-message relative flex w-full flex-col items-end gap-2 text-start break-words whitespace-normal",
      markdownClass: "markdown prose dark:prose-invert w-full break-words dark markdown-new-styling",
      actionsClass: "flex flex-wrap items-center gap-y-4 p-1 select-none",
      copyLabel: "Copy",
      pill: "wrapped",
      pillClass: "flex h-4.5 overflow-hidden rounded-xl px-2 text-[9px] font-medium text-token-text-secondary bg-[#F4F4F4]",
    },
  },
  "signed-in": {
    apiRoot: "backend-api",
    conversationPath: "f/conversation",
    sentinel: "split",
    conduit: true,
    offersV1: true,
    sendsEmptyHints: true,
    markup: {
      turnClass: "_turn_1k9zq_1 _assistantTurn_1k9zq_12",
      wrappers: ["_outer_1k9zq_20", "_inner_1k9zq_31", "_messageColumn_1k9zq_44"],
      messageClass: "_message_1k9zq_57 _assistant_1k9zq_63",
      markdownClass: "markdown prose _markdownBody_1k9zq_70",
      actionsClass: "_actions_1k9zq_88",
      copyLabel: "copy message",
      pill: "wrapped",
      pillClass: "_pill_1k9zq_95",
    },
  },
  "legacy-build": {
    apiRoot: "backend-anon",
    conversationPath: "conversation",
    sentinel: "single",
    conduit: false,
    offersV1: false,
    sendsEmptyHints: false,
    markup: {
      turnClass: "w-full text-token-text-primary",
      wrappers: ["py-2 px-3 text-base m-auto"],
      messageClass: "relative flex w-full flex-col agent-turn",
      markdownClass: "markdown prose w-full break-words dark:prose-invert light",
      actionsClass: "mt-1 flex gap-3 empty:hidden",
      copyLabel: "COPY",
      pill: "bare",
      pillClass: "ms-1 inline-flex rounded-full bg-token-main-surface-secondary px-2 text-xs",
    },
  },
};

const STYLE = `
:root { color-scheme: light; --text: #0d0d0d; --muted: #5d5d5d; --border: #e5e5e5; --surface: #f4f4f4; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; font: 16px/1.6 ui-sans-serif, system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--text); background: #fff; }
header { display: flex; justify-content: space-between; align-items: center; padding: 10px 16px; }
header button { border-radius: 999px; padding: 6px 14px; border: 1px solid var(--border); background: #fff; cursor: pointer; }
header .primary { background: #0d0d0d; color: #fff; }
main { display: flex; flex-direction: column; align-items: center; min-height: calc(100% - 56px); }
#thread { width: min(760px, 100% - 32px); flex: 1; padding: 16px 0 180px; }
section[data-turn] { margin: 12px 0; }
section[data-turn="user"] [data-message-author-role="user"] { margin-left: auto; max-width: 70%; background: var(--surface); border-radius: 18px; padding: 8px 16px; }
.whitespace-pre-wrap { white-space: pre-wrap; }
.markdown pre { background: #f9f9f9; border: 1px solid var(--border); border-radius: 8px; padding: 12px; overflow-x: auto; }
.markdown table { border-collapse: collapse; }
.markdown th, .markdown td { border: 1px solid var(--border); padding: 4px 10px; }
.markdown a { color: #2964aa; }
.markdown a[rel="noopener"][class] { font-size: 11px; padding: 1px 8px; border-radius: 999px; background: var(--surface); text-decoration: none; color: var(--muted); }
.code-header { font-size: 12px; color: var(--muted); display: flex; justify-content: space-between; }
.turn-actions button, button[data-testid="copy-turn-action-button"] { background: none; border: none; color: var(--muted); cursor: pointer; }
.thought-recap { color: var(--muted); background: none; border: none; padding: 0; cursor: pointer; }
.error-message { border: 1px solid #f3c1c1; background: #fff5f5; color: #b42318; border-radius: 12px; padding: 10px 14px; }
form.composer { position: fixed; bottom: 16px; width: min(760px, 100% - 32px); background: #fff; border: 1px solid var(--border); border-radius: 28px; padding: 12px 16px; display: flex; gap: 8px; align-items: flex-end; box-shadow: 0 4px 16px rgba(0,0,0,.06); }
form.composer .input-area { flex: 1; }
#prompt-textarea, form.composer textarea { width: 100%; min-height: 28px; max-height: 240px; overflow-y: auto; outline: none; border: none; resize: none; font: inherit; white-space: pre-wrap; }
#prompt-textarea p { margin: 0; }
#prompt-textarea p.placeholder::before { content: attr(data-placeholder); color: var(--muted); float: left; height: 0; pointer-events: none; }
form.composer button { border-radius: 999px; width: 36px; height: 36px; border: none; background: #0d0d0d; color: #fff; cursor: pointer; }
form.composer button:disabled { opacity: .3; cursor: default; }
[hidden] { display: none !important; }
section[screen-anchor] { position: fixed; top: 0; right: 0; width: 340px; height: 100%; background: #fff; border-left: 1px solid var(--border); padding: 16px; overflow-y: auto; }
section[screen-anchor] a { display: block; padding: 8px 0; color: var(--text); text-decoration: none; }
section[screen-anchor] a .description { display: block; color: var(--muted); font-size: 13px; }
.modal-backdrop { position: fixed; inset: 0; background: rgba(0,0,0,.5); z-index: 40; }
[role="dialog"][aria-modal="true"] { position: fixed; top: 50%; left: 50%; transform: translate(-50%, -50%); z-index: 50; background: #fff; border-radius: 16px; padding: 28px; width: min(420px, 100% - 32px); text-align: center; }
[role="dialog"] .actions { display: flex; flex-direction: column; gap: 8px; margin-top: 16px; }
[role="dialog"] .actions button { border-radius: 999px; padding: 10px; border: 1px solid var(--border); background: #fff; cursor: pointer; }
[role="dialog"] .actions .primary { background: #0d0d0d; color: #fff; }
`;

/** The modal the site shows instead of an answer when the session must log in (chatgpt.md §2). */
const LOGIN_MODAL = `<div class="modal-backdrop"></div>
<div role="dialog" aria-modal="true" aria-labelledby="login-modal-heading" tabindex="-1">
  <h2 id="login-modal-heading">Log in or sign up</h2>
  <p>You'll get smarter responses and can upload files, images, and more.</p>
  <div class="actions">
    <button type="button" class="primary">Log in</button>
    <button type="button">Sign up for free</button>
  </div>
</div>`;

function composerHtml(layout: ChatgptLayout): string {
  const send = `<button type="submit" data-testid="send-button" aria-label="Send prompt" disabled>&#8593;</button>`;
  const stop = `<button type="button" data-testid="stop-button" aria-label="Stop streaming" hidden>&#9632;</button>`;
  if (layout === "legacy-build") {
    return `<form class="composer stretch mx-2 flex flex-row gap-3" autocomplete="off">
  ${send}${stop}
  <div class="input-area"><textarea rows="1" placeholder="Ask anything" class="m-0 resize-none border-0 bg-transparent p-0"></textarea></div>
</form>`;
  }
  return `<form class="composer w-full" autocomplete="off">
  <div class="input-area">
    <textarea class="block h-10 w-full resize-none border-0 bg-transparent px-0 py-2" autofocus placeholder="Ask anything" style="display:none"></textarea>
    <div contenteditable="true" translate="no" class="ProseMirror" id="prompt-textarea" role="textbox" aria-multiline="true"><p data-placeholder="Ask anything" class="placeholder"><br class="ProseMirror-trailingBreak"></p></div>
  </div>
  ${stop}${send}
</form>`;
}

function headerHtml(layout: ChatgptLayout): string {
  const accountArea =
    layout === "signed-in"
      ? `<button type="button" aria-label="Open profile menu" class="_avatar_1k9zq_120">R</button>`
      : `<div class="flex items-center gap-2"><button type="button" class="primary">Log in</button><button type="button">Sign up for free</button></div>`;
  return `<header class="page-header"><button type="button" aria-haspopup="menu" class="model-switcher">ChatGPT</button>${accountArea}</header>`;
}

export interface ChatgptPageOptions {
  layout: ChatgptLayout;
  /** Show the login modal instead of answering (the `login_wall` fault); the deep link is then not submitted. */
  loginWall: boolean;
  /** A fuzzed page load (variation.ts): ChatGPT's own variant, read by the page's script. Absent: the page as built. */
  variant?: ChatgptPageVariant;
  /**
   * The generic variation's script tag (shared/page-variation.ts, a module script), put after the page's module script
   * so that it runs after it, on the page the script built, as the runtime expects.
   */
  variationTag?: string;
}

export function renderChatgptHomePage(options: ChatgptPageOptions): string {
  const settings =
    options.variant === undefined
      ? { build: CHATGPT_BUILDS[options.layout], loginWall: options.loginWall }
      : { build: CHATGPT_BUILDS[options.layout], loginWall: options.loginWall, variant: options.variant };
  const variationTag = options.variationTag ?? "";
  return `<!DOCTYPE html>
<html lang="en-US" class="light" style="color-scheme: light;">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ChatGPT</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
${headerHtml(options.layout)}
<main>
  <div id="thread" class="flex flex-col text-sm"></div>
  ${composerHtml(options.layout)}
</main>
<template id="login-modal-template">${LOGIN_MODAL}</template>
${options.loginWall ? LOGIN_MODAL : ""}
<script type="module">const SETTINGS = ${JSON.stringify(settings)};
${CLIENT_SCRIPT}</script>${variationTag === "" ? "" : `\n${variationTag}`}
</body>
</html>`;
}

/** Cloudflare's interstitial (the `challenge` fault), as the site serves it with status 403. */
export function renderChallengePage(rayId: string): string {
  return `<!DOCTYPE html>
<html lang="en-US">
<head>
<title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
<meta name="robots" content="noindex,nofollow">
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font-family:system-ui,sans-serif;margin:0;padding:8rem 1.5rem}h1{font-size:2.5rem;font-weight:500}</style>
</head>
<body>
<div class="main-wrapper" role="main">
  <div class="main-content">
    <h1 class="zone-name-title h1">chatgpt.com</h1>
    <h2 class="h2" id="challenge-running">Verifying you are human. This may take a few seconds.</h2>
    <div id="challenge-stage"></div>
    <div id="challenge-body-text" class="core-msg spacer">chatgpt.com needs to review the security of your connection before proceeding.</div>
    <form id="challenge-form" action="/?__cf_chl_f_tk=${rayId}" method="POST" enctype="application/x-www-form-urlencoded">
      <input type="hidden" name="md" value="${rayId}">
    </form>
  </div>
</div>
<script>(function(){window._cf_chl_opt={cvId:'3',cZone:'chatgpt.com',cType:'managed',cRay:'${rayId}'};var cpo=document.createElement('script');cpo.src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=${rayId}';document.getElementsByTagName('head')[0].appendChild(cpo);}());</script>
<div class="footer" role="contentinfo"><div class="footer-inner"><div class="text-center" id="footer-text">Performance &amp; security by Cloudflare</div></div></div>
</body>
</html>`;
}
