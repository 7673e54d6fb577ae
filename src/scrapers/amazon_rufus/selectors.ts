/**
 * DOM anchors, accessible names and endpoints of the Amazon store's Rufus panel (amazon_rufus.md §2, §3, §5). Every
 * anchor with alternatives in the sheet is listed with all of them; only this file changes when the markup does.
 * The answer itself is read from the network (the turns' DOM is not needed), so no answer anchors are listed.
 */
import type { BlockSignatures } from "../../browser/page/navigation/walls";

export const RUFUS_ANCHORS = {
  /** The nav button that opens the panel (id on most builds, class on others). */
  navButton: ["#nav-rufus-disco", ".nav-rufus-disco"],
  /** The panel and its container. */
  panel: ["#nav-flyout-rufus", "#nav-rufus-content", "#rufus-container"],
  /**
   * The question box. Only this id: the panel also holds hidden feedback boxes `#rufus-text-area-inner-N`
   * ("Add your feedback…"), so a generic `textarea` would be a trap.
   */
  input: ["#rufus-text-area"],
} as const;

/** The nav button's accessible name, for the role fallback when neither anchor matches (sheet §2: label "Rufus"). */
export const RUFUS_BUTTON_NAME = "Rufus";

/** The question box's accessible name, for the role fallback inside the panel (sheet §2: placeholder "Ask Rufus a question"). */
export const RUFUS_INPUT_NAME = "Ask Rufus a question";

/**
 * The round send button's possible names. The sheet says only "a round send button exists; selector unverified":
 * any of these wordings is accepted, and Enter (the sheet's send) is tried first.
 */
export const RUFUS_SEND_NAMES: readonly string[] = ["Submit", "Send", "Send message", "Ask Rufus"];

/** `POST /rufus/cl/streaming?tabId=…&programId=…`: the answer stream. */
export const RUFUS_STREAMING_URL = /\/rufus\/cl\/streaming(?:\?|$)/;

/** Where the prompt travels in the streaming request body. */
export const RUFUS_QUERY_POINTER = "/queryContext/query";

/** Positive evidence of a block (sheet §5): the robot check page and the sign-in redirect. */
export const RUFUS_BLOCK_SIGNATURES: BlockSignatures = {
  challenge: {
    urls: [/\/errors\/validateCaptcha/],
    selectors: ['form[action*="/errors/validateCaptcha"]'],
    text: [/Enter the characters you see below/i, /Type the characters you see in this image/i, /api-services-support@amazon\.com/i],
  },
  loginWall: {
    urls: [/\/ap\/signin/],
    // the sign-in page itself, or the Rufus panel asking to sign in (a sign-in link inside the panel, never the nav
    // bar's "Hello, sign in" that every anonymous page shows)
    modalSelectors: [
      'form[name="signIn"]',
      '#rufus-container a[href*="/ap/signin"]',
      '#nav-flyout-rufus a[href*="/ap/signin"]',
      '#nav-rufus-content a[href*="/ap/signin"]',
      '#rufus-container form[action*="/ap/signin"]',
    ],
  },
};

/** The 503 "dogs" page (rate limiting): its title names 503 (or "Robot"), its body says so. */
export const RUFUS_DOGS_PAGE = {
  title: /\b503\b|robot/i,
  text: /sorry! something went wrong/i,
};
