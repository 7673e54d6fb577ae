/**
 * What grok.com's page offers a scraper (providers/grok.md §2, §3). Only this file changes when the site's markup
 * does. Everything marked (unverified) in the sheet has alternatives here, and the choice is verified on the wire.
 */
import type { BlockSignatures } from "../../browser/page/navigation/walls";

/**
 * The composer (sheet §2): the current ProseMirror editor, or the older textarea; a textarea of the page's form before
 * any other. No generic `[contenteditable]` anchor: a newer feature's editable box (an image prompt) is not the composer.
 */
export const GROK_COMPOSER = [
  '.tiptap.ProseMirror[contenteditable="true"]',
  '.ProseMirror[contenteditable="true"]',
  "form textarea",
  "textarea",
];

/** The send control: `button[type="submit"]` (aria-label "Submit"); Enter sends too. */
export const GROK_SEND = { roles: ["button"], name: ["Submit", "Send"] } as const;
export const GROK_SEND_ANCHORS = ['button[type="submit"]'];

/**
 * The mode picker is a button in the composer bar that opens a menu (labels unverified). It shows the current mode,
 * or an accessible name such as "Model select".
 */
export const GROK_MODE_PICKER = { roles: ["button"], name: ["Model select", "Mode", "Auto", "Fast", "Expert", "Heavy"] } as const;
export const GROK_MODE_PICKER_ANCHORS = [
  'form button[aria-haspopup="menu"]',
  'button[aria-haspopup="menu"]',
  'button[aria-haspopup="listbox"]',
];

/** Positive evidence of a login wall or challenge (a redirect, a sign-in modal, a challenge page). */
export const GROK_BLOCKS: BlockSignatures = {
  challenge: {
    urls: [/\/cdn-cgi\/challenge-platform\//],
    selectors: ["#challenge-form", 'iframe[src*="challenges.cloudflare.com"]'],
    text: [/just a moment/i, /verify you are human/i],
  },
  loginWall: {
    urls: [/^https:\/\/accounts\.x\.ai\//],
    modalSelectors: ['[role="dialog"][aria-modal="true"] a[href*="accounts.x.ai/sign-in"]'],
  },
};

/**
 * What a signed-out page shows (sheet §2 "Sign in / Sign up buttons"): a login wall only when the composer is still
 * missing after the whole wait; anonymous pages may show these beside a working composer.
 */
export const GROK_SIGNED_OUT = ['a[href*="accounts.x.ai/sign-in"]', 'a[href*="accounts.x.ai/sign-up"]'];

/** The streaming endpoint for a new conversation (follow-ups use /conversations/{id}/responses). */
export const GROK_STREAM_URL = /\/rest\/app-chat\/conversations\/(new|[^/]+\/responses)(\?|$)/;

/** API mode → the site's `modeId`, the older `modelMode` value, and the picker labels (unverified). */
export const GROK_MODE_IDS = {
  MODEL_MODE_AUTO: { modeId: "auto", label: "Auto" },
  MODEL_MODE_FAST: { modeId: "fast", label: "Fast" },
  MODEL_MODE_EXPERT: { modeId: "expert", label: "Expert" },
} as const;

/** The site's default mode: choosing it needs no clicks. */
export const GROK_DEFAULT_MODE = "MODEL_MODE_AUTO";
