/**
 * DOM anchors, labels and endpoints of copilot.microsoft.com (copilot.md §1–§3). Only this file changes when the site's
 * markup does. Anchors are alternatives, most specific first; labels may be localised, so the mode is always verified
 * in the `send` frame and patched into it when the menu cannot be used.
 */
import type { RoleQuery } from "../../browser/page/navigation/engine";
import type { BlockSignatures } from "../../browser/page/navigation/walls";
import type { CopilotMode } from "./declaration";

/** The composer: `textarea#userInput` (`data-testid="composer-input"`, placeholder "Message Copilot"). */
export const COPILOT_COMPOSER = [
  "textarea#userInput",
  'textarea[data-testid="composer-input"]',
  '[data-testid="composer-input"]',
  'textarea[placeholder="Message Copilot" i]',
];

export const COPILOT_SEND = ['button[data-testid="submit-button"]'];

/** A cookie or consent banner's dismiss control, which may cover the composer. */
export const COPILOT_DISMISS = ['[aria-label="Dismiss"]'];

/** The composer's mode menu button. */
export const COPILOT_MODE_TRIGGER = ['button[data-testid*="chat-mode-"]'];

/** The composer's mode option, on builds whose options are plain buttons with a title (no menu role). */
export function modeOptionAnchors(labels: readonly string[]): string[] {
  return labels.map((label) => `button[title="${label.replace(/["\\]/g, "\\$&")}" i]`);
}

/** API mode → the UI labels of the mode menu (the first is the sheet's; the rest are variants seen or plausible). */
export const COPILOT_MODE_LABELS: Record<CopilotMode, readonly string[]> = {
  search: ["Search"],
  smart: ["Smart"],
  chat: ["Quick response", "Quick"],
  reasoning: ["Think Deeper"],
  study: ["Study and learn", "Study"],
};

/** The send button by role and name, for builds whose test ids change. */
export const COPILOT_SEND_BY_ROLE: RoleQuery = { roles: ["button"], name: ["Submit message", "Submit", "Send message", "Send"] };

/** Positive evidence of an anti-bot challenge or a sign-in wall (copilot.md §2, §5). */
export const COPILOT_BLOCKS: BlockSignatures = {
  challenge: {
    selectors: ["#cf-turnstile", 'iframe[src*="challenges.cloudflare.com"]'],
  },
  loginWall: {
    urls: [/^https:\/\/login\.live\.com\//, /^https:\/\/login\.microsoftonline\.com\//],
    // a dialog whose action is Microsoft's sign-in (the header's plain "Sign in" link is on every anonymous page)
    modalSelectors: ['[role="dialog"] a[href^="https://login.live.com/"]', '[role="dialog"] a[href^="https://login.microsoftonline.com/"]'],
  },
};

/** The chat WebSocket: `wss://copilot.microsoft.com/c/api/chat?api-version=2&clientSessionId=…`. */
export const COPILOT_CHAT_URL = /^wss?:\/\/[^/]+(?:\/[^?#]*)?\/c\/api\/chat(?:\?|$)/;
/** `POST /c/api/start`, which says whether this session may chat. */
export const COPILOT_START_URL = /^https?:\/\/[^/]+(?:\/[^?#]*)?\/c\/api\/start(?:\?|$)/;
