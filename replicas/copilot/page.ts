/**
 * The Copilot replica's chat page in its layouts. Every layout carries only anchors copilot.md §2 names (the composer
 * `textarea` with `data-testid="composer-input"`, `button[data-testid="submit-button"]` ↔ `stop-button`, a
 * `button[data-testid*="chat-mode-"]` opening the mode options with the titles of §1, `[data-content=…]` messages, a
 * `-thumbs-up-` button after `done`, `#cf-turnstile`, `[aria-label="Dismiss"]`); all other classes are obfuscated like
 * a production build's. Behaviour lives in client/copilot-page.js, inlined with the layout's configuration.
 *
 * | Layout      | What differs (all plausible for the real site per the sheet)                                         |
 * |-------------|-------------------------------------------------------------------------------------------------------|
 * | `default`   | newest UI: `textarea#userInput`; the site's default mode is Smart; options are `menuitemradio` buttons |
 * |             | with a title and a description span in a `role="menu"`                                               |
 * | `classic`   | the composer has no id; a cookie banner with a Dismiss button covers it; the default mode is Search;  |
 * |             | options are plain `button[title]` in a popover (no menu role), labels in another case; answers in     |
 * |             | the older `.ac-textBlock`                                                                            |
 * | `localised` | German UI (`lang="de"`): localised option labels in a `role="listbox"`, placeholder and button names |
 */
import { readFileSync } from "node:fs";
import type { CopilotWireMode } from "./scenarios";
import type { CopilotPageVariation } from "./variation";

const CLIENT_SCRIPT = readFileSync(new URL("./client/copilot-page.js", import.meta.url), "utf8");
if (CLIENT_SCRIPT.includes("</script")) throw new Error("copilot-page.js must not contain a closing script tag");
const VARIATION_SCRIPT = readFileSync(new URL("./client/copilot-variation.js", import.meta.url), "utf8");
if (VARIATION_SCRIPT.includes("</script")) throw new Error("copilot-variation.js must not contain a closing script tag");

/** A fuzzed page load's scripts (variation.ts), after the page script: Copilot's own variation, then the generic tag. */
export interface CopilotPageScripts {
  copilot: CopilotPageVariation;
  genericTag: string;
}

function variationScripts(variation: CopilotPageScripts): string {
  const config = JSON.stringify(variation.copilot).replace(/</g, "\\u003c");
  return `\n<script>(${VARIATION_SCRIPT.trim()})(${config});</script>${variation.genericTag}`;
}

export const COPILOT_LAYOUTS = ["default", "classic", "localised"] as const;
export type CopilotLayout = (typeof COPILOT_LAYOUTS)[number];

export function isCopilotLayout(layout: string): layout is CopilotLayout {
  return COPILOT_LAYOUTS.some((known) => known === layout);
}

interface ModeOption {
  wire: CopilotWireMode;
  label: string;
  description: string;
}

/** What the client script needs to know about the layout it runs in (inlined as JSON). */
export interface LayoutConfig {
  lang: string;
  siteDefaultMode: CopilotWireMode;
  modes: readonly ModeOption[];
  /** How the mode options are marked up. */
  menu: "menu" | "titled-buttons" | "listbox";
  composerHasId: boolean;
  consentBanner: boolean;
  /** Answers rendered inside the older `.ac-textBlock`. */
  textBlock: boolean;
  thumbsUpTestId: string;
  text: {
    title: string;
    placeholder: string;
    submit: string;
    stop: string;
    signIn: string;
    signInTitle: string;
    signInBody: string;
    blockedBody: string;
    limit: string;
    connectionLost: string;
    invalidResponse: string;
    genericError: string;
    like: string;
    dislike: string;
    copy: string;
    sources: string;
    thinking: string;
    modeMenu: string;
  };
}

const ENGLISH_TEXT: LayoutConfig["text"] = {
  title: "Microsoft Copilot: Your AI companion",
  placeholder: "Message Copilot",
  submit: "Submit message",
  stop: "Stop responding",
  signIn: "Sign in",
  signInTitle: "Sign in to continue",
  signInBody: "Sign in with your Microsoft account to keep chatting with Copilot.",
  blockedBody: "This account or session can't use Copilot right now.",
  limit: "You've reached today's limit. Sign in or come back tomorrow to keep chatting.",
  connectionLost: "Connection lost. Please try again.",
  invalidResponse: "Invalid response",
  genericError: "Sorry, something went wrong. Please try again.",
  like: "Like",
  dislike: "Dislike",
  copy: "Copy",
  sources: "Sources",
  thinking: "Thinking",
  modeMenu: "Choose a mode",
};

export const LAYOUT_CONFIGS: Record<CopilotLayout, LayoutConfig> = {
  default: {
    lang: "en",
    siteDefaultMode: "smart",
    modes: [
      { wire: "search", label: "Search", description: "Find answers on the web" },
      { wire: "smart", label: "Smart", description: "Thinks quickly or deeply as needed" },
      { wire: "chat", label: "Quick response", description: "Fast answers for everyday questions" },
      { wire: "reasoning", label: "Think Deeper", description: "Takes longer for complex problems" },
      { wire: "study", label: "Study and learn", description: "Step-by-step help to understand" },
    ],
    menu: "menu",
    composerHasId: true,
    consentBanner: false,
    textBlock: false,
    thumbsUpTestId: "ai-message-thumbs-up-button",
    text: ENGLISH_TEXT,
  },
  classic: {
    lang: "en",
    siteDefaultMode: "search",
    modes: [
      { wire: "search", label: "Search", description: "Grounded in web results" },
      { wire: "smart", label: "Smart", description: "Uses GPT-5" },
      { wire: "chat", label: "Quick Response", description: "Answers right away" },
      { wire: "reasoning", label: "Think deeper", description: "Reasons before answering" },
      { wire: "study", label: "Study and Learn", description: "Guides you through a topic" },
    ],
    menu: "titled-buttons",
    composerHasId: false,
    consentBanner: true,
    textBlock: true,
    thumbsUpTestId: "feedback-thumbs-up-button",
    text: ENGLISH_TEXT,
  },
  localised: {
    lang: "de",
    siteDefaultMode: "smart",
    modes: [
      { wire: "search", label: "Suche", description: "Antworten aus dem Web" },
      { wire: "smart", label: "Smart", description: "Denkt schnell oder gründlich nach Bedarf" },
      { wire: "chat", label: "Schnelle Antwort", description: "Schnelle Antworten auf Alltagsfragen" },
      { wire: "reasoning", label: "Gründlich nachdenken", description: "Braucht länger für komplexe Fragen" },
      { wire: "study", label: "Lernen und üben", description: "Schritt für Schritt verstehen" },
    ],
    menu: "listbox",
    composerHasId: true,
    consentBanner: false,
    textBlock: false,
    thumbsUpTestId: "ai-message-thumbs-up-button",
    text: {
      title: "Microsoft Copilot: Ihr KI-Begleiter",
      placeholder: "Nachricht an Copilot",
      submit: "Nachricht senden",
      stop: "Antwort stoppen",
      signIn: "Anmelden",
      signInTitle: "Zum Fortfahren anmelden",
      signInBody: "Melden Sie sich mit Ihrem Microsoft-Konto an, um weiter mit Copilot zu chatten.",
      blockedBody: "Dieses Konto oder diese Sitzung kann Copilot derzeit nicht verwenden.",
      limit: "Sie haben das heutige Limit erreicht. Melden Sie sich an oder kommen Sie morgen wieder.",
      connectionLost: "Verbindung verloren. Bitte versuchen Sie es erneut.",
      invalidResponse: "Ungültige Antwort",
      genericError: "Leider ist ein Fehler aufgetreten. Bitte versuchen Sie es erneut.",
      like: "Gefällt mir",
      dislike: "Gefällt mir nicht",
      copy: "Kopieren",
      sources: "Quellen",
      thinking: "Denkt nach",
      modeMenu: "Modus wählen",
    },
  },
};

const SIGN_IN_URL = "https://login.live.com/login.srf?wa=wsignin1.0&wreply=https%3A%2F%2Fcopilot.microsoft.com%2F";

const STYLE = `
:root { color-scheme: light; --bg: #f7f4ef; --surface: #fff; --border: #e3ddd3; --text: #1f1d1a; --muted: #6b665e; --accent: #1f1d1a; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--text); font: 16px/1.55 "Segoe UI", system-ui, sans-serif; }
.k1a { display: flex; flex-direction: column; min-height: 100%; }
.h7q { display: flex; align-items: center; justify-content: space-between; padding: 12px 20px; }
.h7q a { color: var(--text); text-decoration: none; }
.b3n { font-weight: 700; font-size: 20px; }
.s9w { border: 1px solid var(--border); border-radius: 999px; padding: 6px 16px; background: var(--surface); }
.m2c { flex: 1; display: flex; flex-direction: column; align-items: center; }
[data-content="conversation"] { width: min(760px, 100% - 32px); display: flex; flex-direction: column; gap: 20px; padding: 16px 0 200px; }
[data-content="user-message"] { align-self: flex-end; background: #ece6dc; border-radius: 20px; padding: 10px 16px; max-width: 80%; white-space: pre-wrap; }
[data-content="ai-message"] { align-self: stretch; }
[data-content="ai-message"] pre { background: #f0ece5; border-radius: 8px; padding: 12px; overflow-x: auto; }
[data-content="ai-message"] table { border-collapse: collapse; }
[data-content="ai-message"] th, [data-content="ai-message"] td { border: 1px solid var(--border); padding: 4px 10px; }
.c4s { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 10px; }
.c4s a { font-size: 13px; border: 1px solid var(--border); border-radius: 999px; padding: 2px 10px; color: var(--muted); text-decoration: none; background: var(--surface); }
.t8y { color: var(--muted); }
.t8y span { display: inline-block; width: 6px; height: 6px; border-radius: 50%; background: var(--muted); margin-right: 4px; }
.r5f { display: flex; gap: 4px; margin-top: 8px; }
.r5f button, .f2u button { background: none; border: 1px solid var(--border); border-radius: 999px; padding: 3px 10px; cursor: pointer; color: var(--muted); }
.f2u { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 10px; }
.d6r { color: var(--muted); font-size: 14px; }
.q0z { position: fixed; bottom: 16px; left: 50%; transform: translateX(-50%); width: min(760px, 100% - 32px); background: var(--surface); border: 1px solid var(--border); border-radius: 28px; padding: 12px 16px; }
.q0z textarea { width: 100%; border: none; outline: none; resize: none; font: inherit; min-height: 28px; max-height: 200px; background: transparent; }
.w1e { display: flex; align-items: center; justify-content: space-between; margin-top: 6px; }
.w1e button { border-radius: 999px; border: 1px solid var(--border); background: var(--surface); padding: 6px 14px; cursor: pointer; font: inherit; }
.w1e button:disabled { opacity: .4; cursor: default; }
.p8v { position: relative; }
.o3j { position: absolute; bottom: 44px; left: 0; min-width: 280px; background: var(--surface); border: 1px solid var(--border); border-radius: 16px; padding: 6px; box-shadow: 0 8px 24px rgba(0,0,0,.12); z-index: 20; }
.o3j > * { display: flex; flex-direction: column; align-items: flex-start; width: 100%; border: none; background: none; text-align: left; padding: 8px 12px; border-radius: 10px; cursor: pointer; font: inherit; }
.o3j > *:hover, .o3j > [aria-checked="true"], .o3j > [aria-selected="true"] { background: #f0ece5; }
.o3j .n4l { font-weight: 600; }
.o3j .x5d { font-size: 13px; color: var(--muted); }
.u7k { position: fixed; top: 16px; right: 16px; display: flex; flex-direction: column; gap: 8px; z-index: 60; }
.u7k > div { background: #3a1d1d; color: #fff; border-radius: 12px; padding: 10px 14px; max-width: 360px; }
.g6b { position: fixed; left: 50%; transform: translateX(-50%); bottom: 110px; width: min(760px, 100% - 32px); background: #fff4d6; border: 1px solid #e8c76a; border-radius: 14px; padding: 10px 14px; }
.z2p { position: fixed; inset: 0; background: rgba(0,0,0,.45); z-index: 40; display: flex; align-items: center; justify-content: center; }
.z2p > div { background: var(--surface); border-radius: 20px; padding: 28px; width: min(420px, 100% - 32px); text-align: center; }
.z2p a { display: inline-block; margin-top: 12px; border-radius: 999px; padding: 8px 20px; background: var(--accent); color: #fff; text-decoration: none; }
.v8c { position: fixed; left: 0; right: 0; bottom: 0; z-index: 30; background: var(--surface); border-top: 1px solid var(--border); padding: 24px 20px 48px; display: flex; gap: 12px; align-items: center; justify-content: center; }
.v8c button { border-radius: 999px; border: 1px solid var(--border); background: var(--bg); padding: 6px 14px; cursor: pointer; }
#cf-turnstile { position: fixed; left: 50%; bottom: 120px; transform: translateX(-50%); width: 300px; height: 65px; border: 1px solid #d9d9d9; background: #fafafa; z-index: 35; }
#cf-turnstile iframe { width: 100%; height: 100%; border: none; }
[hidden] { display: none !important; }
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function modeOptions(config: LayoutConfig): string {
  return config.modes
    .map((mode) => {
      const selected = mode.wire === config.siteDefaultMode;
      const inner = `<span class="n4l">${escapeHtml(mode.label)}</span><span class="x5d">${escapeHtml(mode.description)}</span>`;
      const title = `title="${escapeHtml(mode.label)}"`;
      if (config.menu === "menu") return `<button type="button" role="menuitemradio" aria-checked="${selected}" ${title}>${inner}</button>`;
      if (config.menu === "listbox") return `<div role="option" aria-selected="${selected}" tabindex="-1" ${title}>${inner}</div>`;
      return `<button type="button" ${title}>${inner}</button>`;
    })
    .join("");
}

function modePicker(config: LayoutConfig): string {
  const current = config.modes.find((mode) => mode.wire === config.siteDefaultMode)?.label ?? "";
  const chevron = `<svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><path d="M2 4l4 4 4-4" fill="none" stroke="currentColor"/></svg>`;
  const label = escapeHtml(config.text.modeMenu);
  switch (config.menu) {
    case "menu":
      return `<button type="button" data-testid="chat-mode-selector" aria-haspopup="menu" aria-expanded="false"><span>${escapeHtml(current)}</span>${chevron}</button>
        <div role="menu" aria-label="${label}" class="o3j" hidden>${modeOptions(config)}</div>`;
    case "listbox":
      return `<button type="button" data-testid="chat-mode-selector" aria-haspopup="listbox" aria-expanded="false"><span>${escapeHtml(current)}</span>${chevron}</button>
        <div role="listbox" aria-label="${label}" class="o3j" hidden>${modeOptions(config)}</div>`;
    case "titled-buttons":
      return `<button type="button" data-testid="chat-mode-toggle" aria-expanded="false"><span>${escapeHtml(current)}</span>${chevron}</button>
        <div class="o3j" hidden>${modeOptions(config)}</div>`;
  }
}

function consentBanner(config: LayoutConfig): string {
  if (!config.consentBanner) return "";
  return `<div role="dialog" aria-label="Cookie consent" class="v8c">
    <p>We use cookies to improve your experience and to show you personalised ads.</p>
    <button type="button">Accept</button>
    <button type="button" aria-label="Dismiss">✕</button>
  </div>`;
}

/** The chat page (`/` and `/chats/<id>`) of a layout. */
export function renderCopilotPage(layout: CopilotLayout, variation?: CopilotPageScripts): string {
  const config = LAYOUT_CONFIGS[layout];
  const composerId = config.composerHasId ? ` id="userInput"` : "";
  // JSON inside a script element: "<" escaped so that no text of the configuration can end the element
  const configJson = JSON.stringify({ ...config, signInUrl: SIGN_IN_URL }).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="${config.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(config.text.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<div class="k1a">
  <header class="h7q">
    <a class="b3n" href="./" aria-label="Copilot">Copilot</a>
    <a class="s9w" href="${SIGN_IN_URL}">${escapeHtml(config.text.signIn)}</a>
  </header>
  <main class="m2c">
    <div data-content="conversation"></div>
    <form class="q0z" autocomplete="off">
      <textarea${composerId} data-testid="composer-input" placeholder="${escapeHtml(config.text.placeholder)}" aria-label="${escapeHtml(config.text.placeholder)}" maxlength="10240" rows="1"></textarea>
      <div class="w1e">
        <div class="p8v">${modePicker(config)}</div>
        <div>
          <button type="button" data-testid="stop-button" aria-label="${escapeHtml(config.text.stop)}" hidden>■</button>
          <button type="submit" data-testid="submit-button" aria-label="${escapeHtml(config.text.submit)}" disabled>↑</button>
        </div>
      </div>
    </form>
  </main>
  <div class="u7k" role="status" aria-live="polite"></div>
</div>
${consentBanner(config)}
<script>
const COPILOT_PAGE_CONFIG = ${configJson};
${CLIENT_SCRIPT}
</script>${variation === undefined ? "" : variationScripts(variation)}
</body>
</html>`;
}
