/**
 * Page fuzzing of the Copilot replica (issue 29): the generic profile of the chat page (shared/page-variation.ts) and
 * Copilot's own classes, drawn from the page load's VariationDraw. The page script plays `COPILOT_VARIATION` (late
 * lists, DOM alternatives; client/copilot-variation.js); the chat socket of that page plays the CopilotWireVariation
 * (socket.ts finds it by the page-load cookie). Every choice names the sheet line (providers/copilot.md) or the general
 * web behaviour that allows it.
 */
import type { VariationProfile } from "../shared/page-variation";
import type { VariationDraw } from "../shared/variation";

export interface CopilotPageVariation {
  /**
   * late_lists. The citation chips / sources list (§4 `citations`; §2 "plus a sources list (selectors unverified)")
   * and the follow-up suggestions: `late` 0–4 s after `done`, `batches` in 2–3 batches, or `behind_button` only once
   * a "Sources" button under the answer is clicked (a <template> instantiated on demand).
   */
  lists: { mode: "late" | "batches" | "behind_button"; delayMs: number; batches: number } | null;
  /** sheet_alternatives: §2 "Cookie/consent: dismiss [aria-label="Dismiss"] if present": a banner on layouts without one. */
  consentBanner: boolean;
  /** sheet_alternatives: §1 "newer builds mint a temporary session key": an older build without that call. */
  noTemporarySession: boolean;
}

export interface CopilotWireVariation {
  /** sheet_alternatives: §3 "`citation` events carry at least url and title (… `messageId` unverified)": with `messageId`. */
  citationMessageId: boolean;
  /** sheet_alternatives: §3 "Parsers should still split defensively (concatenated objects, `\x1e`) (unverified)": pairs of events share a frame. */
  sharedFrames: "" | "\u001e" | null;
  /** sheet_alternatives: §3 "`titleUpdate` / `suggestedFollowups` may follow within ~1 s": they come that late. */
  lateClosingMs: number;
  /**
   * late_lists on the wire: §3 citations "arrive interleaved with text" and §4 keeps them "in arrival order": all of
   * them after the last text delta, just before `done`.
   */
  citationsAfterText: boolean;
}

export const NO_WIRE_VARIATION: CopilotWireVariation = {
  citationMessageId: false,
  sharedFrames: null,
  lateClosingMs: 0,
  citationsAfterText: false,
};

/**
 * The generic classes on Copilot's page. The decoys are controls of newer features next to the real ones; none carries
 * the sheet's anchors of the real control (no `#userInput`, no `composer-input` / `submit-button` / `chat-mode-` test
 * id, no option `title`).
 */
export const COPILOT_VARIATION_PROFILE: VariationProfile = {
  hydrating: ['textarea[data-testid="composer-input"]', 'button[data-testid="submit-button"]', 'button[data-testid*="chat-mode-"]'],
  composer: ['textarea[data-testid="composer-input"]'],
  labelled: [
    'button[data-testid="submit-button"]',
    'button[data-testid="stop-button"]',
    'button[data-testid*="chat-mode-"]',
    '[role="menu"] > button',
    '[role="listbox"] > [role="option"]',
    ".f2u > button",
    ".r5f > button",
  ],
  wrappable: ['button[data-testid="submit-button"]', 'button[data-testid*="chat-mode-"]'],
  // the answer's own containers (obfuscated build classes); the sheet names only `.ac-textBlock`
  rotatable: [".c4s", ".r5f", ".f2u", ".t8y"],
  keepClasses: ["ac-textBlock"],
  siblings: [
    {
      // Copilot Vision's prompt box rolled out above the composer: a textarea, but not the sheet's composer
      before: "form",
      html: '<div style="width:min(760px,100% - 32px);margin:8px auto"><textarea aria-label="Ask about your screen" placeholder="Ask about what you see" rows="1"></textarea></div>',
      what: "Vision prompt box before the composer",
    },
    {
      // a "Tools" menu button of a newer build, before the mode menu
      before: 'button[data-testid*="chat-mode-"]',
      html: '<button type="button" aria-haspopup="menu" aria-expanded="false" aria-label="Tools">Tools</button>',
      what: "Tools menu button before the mode menu",
    },
    {
      // voice chat's button before the send button
      before: 'button[data-testid="submit-button"]',
      html: '<button type="button" aria-label="Talk to Copilot">🎙</button>',
      what: "voice button before the send button",
    },
  ],
};

/** Draws Copilot's own classes of a page load; every choice is noted on the draw. */
export function drawCopilotVariation(
  draw: VariationDraw,
  layoutHasBanner: boolean,
): { page: CopilotPageVariation; wire: CopilotWireVariation } {
  const page: CopilotPageVariation = { lists: null, consentBanner: false, noTemporarySession: false };
  const wire: CopilotWireVariation = { ...NO_WIRE_VARIATION };

  if (draw.chance("late_lists", 0.85)) {
    const mode = draw.pick("late_lists", ["late", "batches", "behind_button"] as const);
    page.lists = { mode, delayMs: draw.int("late_lists", 0, 4_000), batches: draw.int("late_lists", 2, 3) };
    draw.note(
      "late_lists",
      `sources and follow-ups ${mode === "late" ? `${page.lists.delayMs} ms after done` : mode === "batches" ? `in ${page.lists.batches} batches` : "behind a Sources button"}`,
    );
  }
  if (draw.chance("late_lists", 0.5)) {
    wire.citationsAfterText = true;
    draw.note("late_lists", "citation events after the last text delta");
  }

  if (!layoutHasBanner && draw.chance("sheet_alternatives", 0.4)) {
    page.consentBanner = true;
    draw.note("sheet_alternatives", "cookie banner with a Dismiss button");
  }
  if (draw.chance("sheet_alternatives", 0.3)) {
    page.noTemporarySession = true;
    draw.note("sheet_alternatives", "no temporary session call (older build)");
  }
  if (draw.chance("sheet_alternatives", 0.5)) {
    wire.citationMessageId = true;
    draw.note("sheet_alternatives", "citation events carry messageId");
  }
  if (draw.chance("sheet_alternatives", 0.4)) {
    wire.sharedFrames = draw.pick("sheet_alternatives", ["", "\u001e"] as const);
    draw.note("sheet_alternatives", `pairs of events in one frame (${wire.sharedFrames === "" ? "concatenated" : "\\x1e-separated"})`);
  }
  if (draw.chance("sheet_alternatives", 0.5)) {
    wire.lateClosingMs = draw.int("sheet_alternatives", 200, 1_000);
    draw.note("sheet_alternatives", `titleUpdate/suggestedFollowups ${wire.lateClosingMs} ms after done`);
  }
  return { page, wire };
}

/** Wire variants of fuzzed page loads, by the page-load cookie (app.ts sets, socket.ts reads; bounded). */
const wireByPage = new Map<string, CopilotWireVariation>();
const MAX_REMEMBERED_PAGES = 64;
export const PAGE_LOAD_COOKIE = "replica_copilot_page_load";

export function rememberWire(key: string, wire: CopilotWireVariation): void {
  wireByPage.set(key, wire);
  for (const old of wireByPage.keys()) if (wireByPage.size > MAX_REMEMBERED_PAGES) wireByPage.delete(old);
}

/** The wire variant of the page a socket came from (its Cookie header), or none. */
export function wireOf(cookieHeader: string | undefined): CopilotWireVariation {
  const match = new RegExp(`(?:^|;\\s*)${PAGE_LOAD_COOKIE}=([^;]*)`).exec(cookieHeader ?? "");
  return (match === null ? undefined : wireByPage.get(decodeURIComponent(match[1] ?? ""))) ?? NO_WIRE_VARIATION;
}
