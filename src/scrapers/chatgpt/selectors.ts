/**
 * What chatgpt.com's page offers a scraper (providers/chatgpt.md §1–§3). Only this file changes when the site's markup
 * or paths do. The stable anchors are `#prompt-textarea`, `data-testid` and `data-message-*`; Tailwind classes and
 * `aria-label`s are not used (obfuscated or localised).
 */
import type { BlockSignatures } from "../../browser/page/navigation/walls";

/**
 * The deep link that fills **and submits** the prompt on load; `hints=search` forces the web-search tool for that turn
 * (the page then sends `system_hints: ["search"]`).
 */
export function chatgptDeepLink(origin: string, prompt: string): string {
  return `${origin}/?${new URLSearchParams({ q: prompt, hints: SEARCH_HINT }).toString()}`;
}

export const SEARCH_HINT = "search";

/** The home page with an empty composer: the landing a hot page is prepared on (it never carries a prompt). */
export function chatgptHome(origin: string): string {
  return `${origin}/`;
}

/** The composer: the ProseMirror editor, or the element carrying its placeholder (older builds: a textarea). */
export const CHATGPT_COMPOSER = ["#prompt-textarea", '[placeholder="Ask anything"]', '[contenteditable="true"][role="textbox"]'];

/** The send control; while the answer streams it becomes the stop button. Enter in the composer sends too. */
export const CHATGPT_SEND = ['button[data-testid="send-button"]'];

/** The answering message (DOM source of the model slug when the stream names none). */
export const CHATGPT_ASSISTANT_MESSAGE = [
  'section[data-testid^="conversation-turn-"][data-turn="assistant"] div[data-message-author-role="assistant"][data-message-model-slug]',
  'div[data-message-author-role="assistant"][data-message-model-slug]',
];

/**
 * The conversation stream: `/backend-api/f/conversation` (logged in), `/backend-anon/f/conversation` (logged out), and
 * the older paths without `f/`. Not `…/f/conversation/prepare` (the conduit call).
 */
export const CHATGPT_CONVERSATION_URL = /\/backend-(?:api|anon)\/(?:f\/)?conversation\/?(?:\?|$)/;

/** The sentinel call before each turn (newer builds split it into `…/prepare` and `…/finalize`). */
export const CHATGPT_REQUIREMENTS_URL = /\/backend-(?:api|anon)\/sentinel\/chat-requirements(?:\/(?:prepare|finalize))?\/?(?:\?|$)/;

/** Where the site sends a session that must log in (a main-frame redirect). */
export const CHATGPT_LOGIN_HOSTS = /\bhttps:\/\/auth0?\.openai\.com\//;

/** Positive evidence of a challenge or a login wall (a challenge page, a redirect to auth.openai.com). */
export const CHATGPT_BLOCKS: BlockSignatures = {
  challenge: {
    urls: [/\/cdn-cgi\/challenge-platform\//, /[?&]__cf_chl_/],
    selectors: ["#challenge-form", 'iframe[src*="challenges.cloudflare.com"]', "#cf-challenge-running"],
    text: [/just a moment/i, /verify(?:ing)? you are human/i, /unusual activity has been detected/i],
  },
  loginWall: {
    urls: [/^https:\/\/auth0?\.openai\.com\//],
    modalSelectors: [],
  },
};

/** A dialog on the page (the login wall is one that offers to log in), modal ones first. */
export const CHATGPT_DIALOGS = ['[role="dialog"][aria-modal="true"]', "dialog[open]", '[role="alertdialog"]', '[role="dialog"]'];

/** Buttons or links of a login modal, in the languages the pool's locales show (one label per query). */
export const CHATGPT_LOGIN_LABELS = [
  "Log in",
  "Sign up for free",
  "Sign up",
  "Anmelden",
  "Se connecter",
  "Iniciar sesión",
  "Accedi",
  "Entrar",
  "ログイン",
];
