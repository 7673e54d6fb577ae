/**
 * Anchors, endpoints and signatures of Google AI Mode (providers/google_ai_mode.md §2, §3, §5). Only what the sheet marks
 * stable is relied on (`data-*` attributes it names, roles, aria-labels, fixed texts); Google's obfuscated classes
 * rotate, so the only classes here are the ones the sheet lists as an alternative anchor or as noise to drop.
 * Only this file changes when the site's markup does.
 */

/** The answer fragment the page fetches (fetch or XHR): `GET /async/folwr?…&q=…&udm=50&async=_fmt:adl,_xsrf:…`. */
export const FOLWR_URL = /\/async\/folwr\?/;
export const FOLWR_RULE = "folwr";

/** The AI response subtree first, then the answer containers (the sheet's alternatives), most specific first. */
export const ANSWER_ROOTS = ['[data-subtree="aimc"]', '[data-container-id="main-col"]', ".mZJni"] as const;

/** Inline citation buttons ("chips"): the URL is not in the button but in `Sv6Kpe` comments keyed by this uuid. */
export const CITATION_CHIP = "[data-icl-uuid]";
export const CITATION_UUID_ATTRIBUTE = "data-icl-uuid";
/** Prefix of the HTML comments carrying citation records: `<!--Sv6Kpe[["<uuid>",[…record…]]]-->`. */
export const SOURCE_RECORD_COMMENT = "Sv6Kpe";

/** An entry of the sources panel. */
export const SOURCE_ANCHOR = 'a[target="_blank"][aria-label][href]';
/** Containers the "N sites" list is rendered in. */
export const PANEL_ROOTS = ['[role="dialog"]', "[data-target-container-id]"] as const;
/** The label of the button opening the panel ("7 sites"). */
export const SITES_LABEL = /^\s*\d+\s+(?:sites?|websites?|sources?)\s*$/i;

/** Page chrome inside the answer container: controls, citation chips, icons, hidden and pop-up content, the panel. */
export const ANSWER_CHROME = [
  "button",
  '[role="button"]',
  CITATION_CHIP,
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "img",
  "[hidden]",
  ...PANEL_ROOTS,
] as const;
/** Classes the sheet lists as noise (chip wrappers, feedback row, disclaimer, the "N sites" dump). */
export const NOISE_CLASSES = [".txxDge", ".notranslate", ".rBl3me", ".uJ19be"] as const;
/** Content inside noise must survive when it is code (Google marks code `notranslate` too). */
export const CODE = "pre, code";

/** The disclaimer's wordings (start of its text). */
export const DISCLAIMERS = ["AI responses may include mistakes", "AI can make mistakes"] as const;
/** The in-progress placeholder. */
export const THINKING_TEXT = /^thinking(?:…|\.\.\.)?$/i;
/** Screen-reader text announcing the finished response (unverified wording). */
export const READY_TEXT = /^AI Mode response is ready\.?$/i;
/** Elements that only a finished response has. */
export const COMPLETION_SELECTORS = ['[data-complete="true"]', '[aria-label="Helpful" i]'] as const;

/** Google's own pages: links to them are chrome, not sources. */
export const GOOGLE_HOST = /^(?:[\w-]+\.)*google\.(?:com|[a-z]{2,3}|co\.[a-z]{2}|com\.[a-z]{2})$/i;
/** The origin relative URLs in the fragment resolve against. */
export const GOOGLE_ORIGIN = "https://www.google.com";

// ---------------------------------------------------------------------------------------------------------------
// Navigation

/** The EU consent interstitial ("Before you continue to Google"): its accept button. */
export const CONSENT_ACCEPT = ["#L2AGLb", 'button[jsname="b3VHJd"]'] as const;
export const CONSENT_URL = /^https:\/\/consent\.google\.[a-z.]+\//i;

export const BLOCK_SIGNATURES = {
  challenge: {
    urls: [/\/sorry\/(?:index|Captcha)\b/i],
    selectors: ["#captcha-form", ".g-recaptcha"],
    text: [/unusual traffic from your computer network/i, /I'm not a robot/i],
  },
  loginWall: {
    urls: [/^https:\/\/accounts\.google\.com\/(?:ServiceLogin|InteractiveLogin|v3\/signin|signin)/i],
    // a sign-in link inside a modal (the header's "Sign in" link of every anonymous page does not count)
    modalSelectors: [
      '[role="dialog"] a[href*="accounts.google.com/ServiceLogin"]',
      '[role="dialog"] a[href*="accounts.google.com/v3/signin"]',
    ],
  },
};

/** The AI Mode follow-up box (the `/ai` page's placeholder), else the search box: a sign-in modal covers it. */
export const COMPOSER = ['textarea[placeholder="Ask anything"]', 'textarea[name="q"]', "textarea"] as const;

/** A shell that can answer carries the folwr token; the "JS-required" shell does not. */
export const SESSION_TOKEN = "[data-xsrf-folwr-token]";
/** AI Mode not offered for this country or language (wording unverified). */
export const UNAVAILABLE_TEXT = /AI Mode (?:isn['’]t|is not) available/i;

/** In-page expression: the rendered response shows it is finished. */
export const DOM_COMPLETED = `(() => {
  if (document.querySelector(${JSON.stringify(COMPLETION_SELECTORS.join(", "))}) !== null) return true;
  const text = document.body ? document.body.innerText : "";
  return ${JSON.stringify(DISCLAIMERS)}.some((phrase) => text.includes(phrase)) || /AI Mode response is ready/i.test(text);
})()`;
