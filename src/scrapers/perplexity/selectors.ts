/**
 * What the scraper looks for on perplexity.ai (providers/perplexity.md §2, §3). Only this file changes when the site's
 * markup does. Anchors are alternatives (the sheet lists an older and a newer layout for several of them, both live).
 */
import type { BlockSignatures } from "../../browser/page/navigation/walls";
import type { CaptureRule, OutgoingPatch } from "../../browser/page/capture/types";

/** The answer stream (`/rest/sse/perplexity_ask`), not its `/reconnect/{uuid}` sibling. */
const PERPLEXITY_ASK_URL = /\/rest\/sse\/perplexity_ask(?:[?#]|$)/;
export const ASK_RULE = "ask";
export const PERPLEXITY_CAPTURE_RULES: readonly CaptureRule[] = [{ name: ASK_RULE, url: PERPLEXITY_ASK_URL, transports: ["fetch", "xhr"] }];

export const PERPLEXITY_ANCHORS = {
  /** The Lexical editor (`#ask-input`, or its attributes should the id change), else the older textarea. */
  composer: ["#ask-input", '[data-lexical-editor="true"][role="textbox"][contenteditable="true"]', 'textarea[placeholder*="Ask"]'],
  send: ['button[aria-label="Submit"]'],
  /** Visible while the answer streams. */
  stop: ['button[data-testid="stop-generating-response-button"]'],
  /** The rendered answer: `.prose` blocks (since 2026-08), or the older `markdown-content-N` wrapper around them. */
  answer: ['div[id^="markdown-content-"]', ".prose"],
  /** Citation pills (§2: `span.citation[data-pplx-citation][data-pplx-citation-url]`); the URL attribute is what is read. */
  citationPill: "[data-pplx-citation-url]",
} as const;

/** Accessible names (role + name matching is case- and whitespace-insensitive). */
export const PERPLEXITY_NAMES = {
  submit: ["Submit"],
  /** The sources menu's trigger: its label is not in the sheet (unverified), hence the alternatives. */
  sourcesMenu: ["Sources", "Set sources for search", "Choose sources", "Search sources"],
  /** The "Web" source item (a title, sometimes followed by a description). */
  webSource: ["Web"],
} as const;

/** `web_search=false` when the sources menu cannot be used: the Web source off, searching skipped (§1). */
export const WEB_SEARCH_OFF_PATCH: OutgoingPatch = {
  set: [
    ["/params/sources", []],
    ["/params/skip_search_enabled", true],
  ],
};

/** Positive evidence of a block (§5): Cloudflare's interstitial, or a redirect to a sign-in page. */
export const PERPLEXITY_BLOCKS: BlockSignatures = {
  challenge: {
    selectors: ['iframe[src*="challenges.cloudflare.com"]', ".cf-turnstile"],
    text: [/just a moment/i, /verify you are human/i],
  },
  loginWall: {
    urls: [/\/api\/auth\/signin(?:[/?#]|$)/, /\/(?:login|signin)(?:[?#]|$)/],
  },
};

/** A visible sign-in dialog (wording unverified: "Sign in or create an account"), checked in the page. */
export const SIGN_IN_DIALOG_VISIBLE = `Array.from(document.querySelectorAll('[role="dialog"], [role="alertdialog"], [aria-modal="true"], dialog[open]')).some(
  (dialog) => dialog.getClientRects().length > 0 && getComputedStyle(dialog).visibility !== "hidden" &&
    /sign in|log in|sign up|create an account/i.test(dialog.innerText || ""))`;
