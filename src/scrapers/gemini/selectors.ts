/**
 * DOM anchors, labels and endpoints of gemini.google.com (providers/gemini.md §2, §3, §5). Only this file changes when
 * the site's markup does. Where the sheet gives alternatives, all are listed (first match wins).
 */
import type { BlockSignatures } from "../../browser/page/navigation/walls";

export const GEMINI_PAGE = {
  /**
   * The Quill composer, the generic textbox as the sheet's fallback. An editor that is read-only for a moment after it
   * mounts (contenteditable="false") is still the composer: typing waits until it is editable.
   */
  composer: [
    'rich-textarea [contenteditable]:not([contenteditable="false"])',
    'div.ql-editor.textarea:not([contenteditable="false"])',
    'div[role="textbox"]:not([contenteditable="false"])',
    "rich-textarea [contenteditable]",
    "div.ql-editor.textarea",
  ],
  /** The send control; Enter in the composer sends too. */
  send: ['button[aria-label="Send message"]', "input-area-v2 button.send-button:not(.stop)"],
  /** The send control's accessible name (localised UIs fall back to Enter). */
  sendLabels: ["Send message"],
  /**
   * Sign-in evidence of the signed-out landing page: a login wall only when the composer is still missing once its whole
   * wait has passed (a signed-out page that allows chatting shows "Sign in" in its header while the composer hydrates).
   */
  signIn: ['button[aria-label="Sign in"]', 'a[href*="ServiceLogin"]'],
  /** The button that opens the sources side panel, and its accessible name. */
  sourcesButton: ["button.legacy-sources-sidebar-button", 'button[aria-label="Sources"]'],
  sourcesLabels: ["Sources"],
  /** Inline chips, clicked when the panel button is missing (their aria-label says they open the side panel or a dialog). */
  chipButtons: 'source-inline-chip button, source-inline-chip [role="button"]',
} as const;

/** What the parser reads from the DOM snapshot. */
export const GEMINI_DOM = {
  response: "model-response",
  answerPanel: [".model-response-text message-content .markdown.markdown-main-panel", ".markdown.markdown-main-panel", "message-content"],
  /** Citation markup inside the answer; the outermost match is one citation point. */
  citationMarkup: "sources-carousel-inline, source-inline-chip, source-footnote, sup.superscript",
  chip: "source-inline-chip",
  chipSiteName: ".source-title",
  sourceCard: "inline-source-card",
  sourcesList: "sources-list",
  modePicker: 'button[data-test-id="bard-mode-menu-button"]',
} as const;

/** The StreamGenerate exchange the page sends with XMLHttpRequest or fetch. */
export const STREAM_GENERATE_URL = /\/_\/BardChatUi\/data\/assistant\.lamda\.BardFrontendService\/StreamGenerate(\?|$)/;
export const STREAM_RULE = "stream_generate";

/** Positive evidence of an anti-bot interstitial or a sign-in redirect (gemini.md §5). */
export const GEMINI_BLOCKS: BlockSignatures = {
  challenge: {
    urls: [/\/sorry\/index/],
    text: [/unusual traffic from your computer network/i],
  },
  loginWall: {
    urls: [/accounts\.google\.com\/(?:ServiceLogin|v3\/signin|InteractiveLogin|signin)/i],
  },
};

/** In-page checks, each an expression over the newest `model-response` (a fresh chat has one). */
const NEWEST_RESPONSE = `Array.from(document.querySelectorAll(${JSON.stringify(GEMINI_DOM.response)})).pop()`;

export const GEMINI_CONDITIONS = {
  /** The answer settled: the newest response exists and no longer carries aria-busy="true". */
  responseSettled: `(() => { const r = ${NEWEST_RESPONSE}; return !!r && r.getAttribute("aria-busy") !== "true"; })()`,
  /** Any citation evidence in or for the newest response (chips, footnotes, a sources list or button, cards). */
  citationsShown: `(() => { const r = ${NEWEST_RESPONSE}; return !!r && !!r.querySelector(${JSON.stringify(
    `${GEMINI_DOM.citationMarkup}, ${GEMINI_DOM.sourcesList}, ${GEMINI_DOM.sourceCard}, ${GEMINI_PAGE.sourcesButton.join(", ")}`,
  )}); })()`,
  /** Chips exist but no source card is on the page yet. */
  cardsMissing: `(() => { const r = ${NEWEST_RESPONSE}; return !!r && !!r.querySelector(${JSON.stringify(
    GEMINI_DOM.citationMarkup,
  )}) && document.querySelectorAll(${JSON.stringify(GEMINI_DOM.sourceCard)}).length === 0; })()`,
  cardsShown: `document.querySelectorAll(${JSON.stringify(GEMINI_DOM.sourceCard)}).length > 0`,
  /** outerHTML of every source card on the page now (cards a chip's dialog shows vanish when it closes). */
  cardsHtml: `Array.from(document.querySelectorAll(${JSON.stringify(GEMINI_DOM.sourceCard)}), (card) => card.outerHTML)`,
} as const;
