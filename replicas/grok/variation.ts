/**
 * Page fuzzing of the Grok replica (issue 29): the generic profile of the home page (shared/page-variation.ts) and
 * Grok's own classes, drawn from the page load's VariationDraw. What a page load drew reaches the page script as
 * `GROK_VARIATION` (late lists, DOM alternatives) and the answer stream of that page's requests as a GrokWireVariation
 * (app.ts keeps it per page load, stream.ts plays it). Every choice below names the sheet line (providers/grok.md) or
 * the general web behaviour that allows it.
 */
import type { VariationProfile } from "../shared/page-variation";
import type { VariationDraw } from "../shared/variation";

/** What the page script plays (inlined as JSON; all off = the page as served without fuzzing). */
export interface GrokPageVariation {
  /**
   * late_lists. Follow-up suggestions (§4 `related_questions`) and the web sources (§4 `web_sources`) are rendered under
   * the answer: `immediate` with the action buttons, `late` 0–4 s after the stream ended, `batches` in 2–3 batches, or
   * `behind_button` only inside a panel that a "N sources" button opens (a <template> instantiated on demand).
   */
  lists: { mode: "immediate" | "late" | "batches" | "behind_button"; delayMs: number; batches: number } | null;
  /** sheet_alternatives: §2 "action buttons under the bubble (unverified)": present or not after the answer. */
  actionButtons: boolean;
  /** sheet_alternatives: §1 "Deep link ?q= (unverified that it auto-submits)": taken as submitting. */
  deepLinkSubmits: boolean;
  /** sheet_alternatives: §1 "Older payloads modelMode:"MODEL_MODE_*" (unverified)": the page sends `modelMode` instead of `modeId`. */
  legacyModeField: boolean;
  /** sheet_alternatives: §1 "Picker labels are (unverified) text": each item carries a description after its title. */
  describedItems: boolean;
  /** sheet_alternatives: §1 "Other site values exist (heavy …)": the menu lists Heavy too (§2 "Auto / Fast / Expert / Heavy"). */
  heavyItem: boolean;
}

/** What the answer stream of the page's requests plays (stream.ts). */
export interface GrokWireVariation {
  /**
   * late_lists on the wire. §3 "Streamed extras may arrive several times and in any order": the streamed search results
   * and cards arrive in 2–3 batches, some after the answer tokens.
   */
  extrasInBatches: boolean;
  /** sheet_alternatives: §4 related_questions "finalMetadata.followUpSuggestions (or streamed followUpSuggestions.suggestions)". */
  streamedFollowUps: boolean;
  /**
   * sheet_alternatives: §4 web_sources / social_results "modelResponse.webSearchResults (fallback: union of streamed …)":
   * the final lists left out when the streamed union says the same (stream.ts checks that it does).
   */
  finalListsOmitted: boolean;
}

export const NO_PAGE_VARIATION: GrokPageVariation = {
  lists: null,
  actionButtons: true,
  deepLinkSubmits: false,
  legacyModeField: false,
  describedItems: false,
  heavyItem: false,
};

export const NO_WIRE_VARIATION: GrokWireVariation = { extrasInBatches: false, streamedFollowUps: false, finalListsOmitted: false };

/**
 * The generic classes on Grok's page. Anchors the sheet names (§2) are kept as classes; the decoys are controls of
 * newer features a staged rollout may put in the composer bar, none carrying the sheet's anchors of the real control
 * (no `.tiptap.ProseMirror`, no `textarea`, no `type="submit"`, no "Submit" name).
 */
export const GROK_VARIATION_PROFILE: VariationProfile = {
  hydrating: [
    'form.query-bar [contenteditable="true"]',
    "form.query-bar textarea",
    'form.query-bar button[type="submit"]',
    'form.query-bar button[aria-haspopup="menu"]',
  ],
  composer: [".tiptap.ProseMirror", "textarea.chat-input"],
  labelled: [
    'button[type="submit"]',
    'button[aria-haspopup="menu"]',
    '[role="menuitem"]',
    '[role="menuitemradio"]',
    ".follow-up-suggestion",
    ".action-button",
  ],
  wrappable: ['form.query-bar button[aria-haspopup="menu"]', 'form.query-bar button[type="submit"]', ".follow-up-suggestions"],
  rotatable: [".message-row", ".message-bubble", ".composer-bar", ".follow-up-suggestion", ".action-button"],
  // grok.md §2 names these classes: composer, bubbles, rows and the markdown body
  keepClasses: ["tiptap", "ProseMirror", "message-bubble", "response-content-markdown", "items-start", "items-end", "query-bar"],
  siblings: [
    {
      // a newer "DeepSearch" toggle before the mode picker: a button of the composer bar, but a toggle, not a menu
      before: 'form.query-bar button[aria-haspopup="menu"]',
      html: '<button type="button" aria-pressed="false" aria-label="DeepSearch">DeepSearch</button>',
      what: "DeepSearch toggle before the mode picker",
    },
    {
      // a "Personas" menu button of a newer build, before the mode picker (a menu with other items)
      before: 'form.query-bar button[aria-haspopup="menu"]',
      html: '<button type="button" aria-haspopup="menu" aria-expanded="false" aria-label="Personas">Personas</button>',
      what: "Personas menu button before the mode picker",
    },
    {
      // Imagine's prompt box rolled out above the composer: an editable box, but not the sheet's ProseMirror editor
      before: "form.query-bar",
      html: '<div class="imagine-box" style="margin:8px auto;width:min(760px,100% - 32px)"><div contenteditable="true" role="textbox" aria-label="Describe an image" style="min-height:24px;border:1px dashed #555;padding:6px"></div></div>',
      what: "Imagine prompt box before the composer",
    },
    {
      // voice mode's button placed before the send button
      before: 'form.query-bar button[type="submit"]',
      html: '<button type="button" aria-label="Enter voice mode">Voice</button>',
      what: "voice mode button before the send button",
    },
  ],
};

/** Draws Grok's own classes of a page load; every choice is noted on the draw. */
export function drawGrokVariation(draw: VariationDraw): { page: GrokPageVariation; wire: GrokWireVariation } {
  const page: GrokPageVariation = { ...NO_PAGE_VARIATION };
  const wire: GrokWireVariation = { ...NO_WIRE_VARIATION };

  if (draw.chance("late_lists", 0.85)) {
    const mode = draw.pick("late_lists", ["late", "batches", "behind_button"] as const);
    page.lists = { mode, delayMs: draw.int("late_lists", 0, 4_000), batches: draw.int("late_lists", 2, 3) };
    draw.note(
      "late_lists",
      `follow-ups and sources ${mode === "late" ? `${page.lists.delayMs} ms after the answer` : mode === "batches" ? `in ${page.lists.batches} batches` : "behind a Sources button"}`,
    );
  }
  if (draw.chance("late_lists", 0.6)) {
    wire.extrasInBatches = true;
    draw.note("late_lists", "streamed search results and cards in batches, some after the answer tokens");
  }

  if (draw.chance("sheet_alternatives", 0.4)) {
    page.actionButtons = false;
    draw.note("sheet_alternatives", "no action buttons under the answer");
  }
  if (draw.chance("sheet_alternatives", 0.5)) {
    page.deepLinkSubmits = true;
    draw.note("sheet_alternatives", "?q= deep link submits");
  }
  if (draw.chance("sheet_alternatives", 0.4)) {
    page.legacyModeField = true;
    draw.note("sheet_alternatives", "request names the mode as modelMode:MODEL_MODE_*");
  }
  if (draw.chance("sheet_alternatives", 0.5)) {
    page.describedItems = true;
    draw.note("sheet_alternatives", "menu items with a description after the title");
  }
  if (draw.chance("sheet_alternatives", 0.5)) {
    page.heavyItem = true;
    draw.note("sheet_alternatives", "Heavy in the mode menu");
  }
  if (draw.chance("sheet_alternatives", 0.5)) {
    wire.streamedFollowUps = true;
    draw.note("sheet_alternatives", "follow-ups as a streamed followUpSuggestions line");
  }
  if (draw.chance("sheet_alternatives", 0.4)) {
    wire.finalListsOmitted = true;
    draw.note("sheet_alternatives", "modelResponse without webSearchResults/xposts when the streamed ones say the same");
  }
  return { page, wire };
}
