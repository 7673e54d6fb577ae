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
/**
 * The name of the button opening the panel: "7 sites" (sheet §2 `button[aria-label="7 sites"]`), in the page's language
 * (Google localises its UI by `hl`; the sheet gives only the English wording, so the usual translations are accepted).
 * A trailing badge or icon text ("7 sites New") is tolerated; another count ("3 videos") is not.
 */
const SITES_WORDS =
  "sites?|websites?|web sites?|sources?|webseiten|seiten|quellen|sites web|sitios(?: web)?|sitio|siti|sito|fonti|fontes|fuentes|bronnen|件のサイト|サイト";
export const SITES_LABEL = new RegExp(`^\\s*\\d+\\s*(?:${SITES_WORDS})(?=$|\\s)`, "iu");
/** The same label inside fragment HTML: as an aria-label value or as the button's text. */
export const SITES_LABEL_IN_HTML = new RegExp(`(?:aria-label="|>)\\s*\\d+\\s*(?:${SITES_WORDS})(?=["<\\s])`, "iu");

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
/** Elements that only a finished response has (in the fragment, where labels are as sent). */
export const COMPLETION_SELECTORS = ['[data-complete="true"]', '[aria-label="Helpful" i]'] as const;
/** The feedback button's name, compared case- and space-insensitively in the page (labels there may be restyled). */
const HELPFUL_LABEL = "helpful";

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

/** A shell that can answer carries the folwr token; the "JS-required" shell does not. */
export const SESSION_TOKEN = "[data-xsrf-folwr-token]";
/** AI Mode not offered for this country or language (wording unverified). */
export const UNAVAILABLE_TEXT = /AI Mode (?:isn['’]t|is not) available/i;

/** In-page expression: the rendered response shows it is finished. */
export const DOM_COMPLETED = `(() => {
  if (document.querySelector('[data-complete="true"]') !== null) return true;
  const helpful = [...document.querySelectorAll("[aria-label]")].some(
    (element) => element.getAttribute("aria-label").replace(/\\s+/g, " ").trim().toLowerCase() === ${JSON.stringify(HELPFUL_LABEL)},
  );
  if (helpful) return true;
  const text = document.body ? document.body.innerText : "";
  return ${JSON.stringify(DISCLAIMERS)}.some((phrase) => text.includes(phrase)) || /AI Mode response is ready/i.test(text);
})()`;

// ---------------------------------------------------------------------------------------------------------------
// The sources panel in the page

/**
 * In-page function source: the entries of the sources panel as the page shows them now, and the labels of the "N sites"
 * buttons. Entries are read where the sheet says the list renders (`[role="dialog"]`, the `[data-target-container-id]`
 * side panel, the container the button controls or sits in); when none of them holds an entry, every source anchor
 * outside the answer counts (a side panel elsewhere in the page).
 */
export const PANEL_ON_PAGE = `() => {
  const sitesLabel = new RegExp(${JSON.stringify(SITES_LABEL.source)}, ${JSON.stringify(SITES_LABEL.flags)});
  const answer = ${JSON.stringify(ANSWER_ROOTS)}.map((selector) => document.querySelector(selector)).find((element) => element !== null) ?? null;
  const nameOf = (element) => (element.getAttribute("aria-label") || element.textContent || "").replace(/\\s+/g, " ").trim();
  const buttons = [...document.querySelectorAll('button, [role="button"]')].filter((button) => sitesLabel.test(nameOf(button)));
  const roots = new Set(${JSON.stringify(PANEL_ROOTS)}.flatMap((selector) => [...document.querySelectorAll(selector)]));
  for (const button of buttons) {
    for (const id of (button.getAttribute("aria-controls") || "").split(/\\s+/)) {
      const controlled = id === "" ? null : document.getElementById(id);
      if (controlled !== null) roots.add(controlled);
    }
    if (button.parentElement !== null) roots.add(button.parentElement);
  }
  const anchors = [...document.querySelectorAll(${JSON.stringify(SOURCE_ANCHOR)})];
  const inRoots = anchors.filter((anchor) => [...roots].some((root) => root.contains(anchor)));
  const chosen = inRoots.length > 0 ? inRoots : anchors.filter((anchor) => answer === null || !answer.contains(anchor));
  return {
    labels: [...new Set(buttons.map(nameOf))],
    expanded: buttons.some((button) => button.getAttribute("aria-expanded") === "true"),
    entries: chosen.map((anchor) => ({ label: anchor.getAttribute("aria-label"), text: anchor.textContent || "", href: anchor.getAttribute("href") || "" })),
  };
}`;
