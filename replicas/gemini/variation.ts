/**
 * Page fuzzing of the Gemini replica (issue 29): the generic profile of `/app` (shared/page-variation.ts) and Gemini's
 * own classes, drawn from the page load's VariationDraw. What a page load drew reaches the page as
 * `client/gemini-variation.js` (late lists, DOM alternatives), inlined only on a fuzzed page after the page's own
 * script, and the StreamGenerate answers of that page (keyed by the page's `f.sid`) as a GeminiWireVariation that
 * stream.ts plays. Every choice names the sheet line (providers/gemini.md) or the general web behaviour that allows it.
 */
import type { VariationProfile } from "../shared/page-variation";
import type { VariationDraw } from "../shared/variation";
import { GEMINI_LAYOUTS, type GeminiLayout } from "./layouts";

/** How a list the sheet's §4 maps to a field reaches the page. */
export type ListArrival = "immediate" | "late" | "batches";

/** What client/gemini-variation.js plays (JSON). */
export interface GeminiPageVariation {
  /**
   * late_lists, gemini.md §2 "Citations may appear a few seconds **after** the text settles": the chips (and the
   * Sources button) of the answer appear 0–4 s after it settled, or in 2–3 batches.
   */
  chips: { arrival: ListArrival; delayMs: number; batches: number; gapMs: number };
  /**
   * late_lists, gemini.md §2 Sources panel "opens a side panel of `inline-source-card` entries; end-of-answer list
   * element `sources-list`" and VARIATION_GROUNDS.late_lists ("a control that opens a list may be the only way to see
   * it"): the cards of the side panel or the end-of-answer list arrive late or in batches, or the list exists only once
   * a Sources button is clicked (a <template> instantiated on demand); a chip's dialog shows its cards late the first
   * time it loads them.
   */
  cards: { arrival: ListArrival | "behind_button"; delayMs: number; batches: number; gapMs: number; firstDialogDelayMs: number };
  /** sheet_alternatives, §2 Inline citations: the aria-label variant "… Press Enter to open sources dialog." (or "Opens side panel."). */
  chipSuffix: "side_panel" | "dialog" | null;
  /** sheet_alternatives, §2 Sources panel cards "(title, site, url, snippet)": their inner markup is not stated; the other card style. */
  otherCardStyle: boolean;
  /** sheet_alternatives, §4 citations are "one entry per distinct source, in order of first chip": a list may also show a source no chip cites. */
  uncitedSource: boolean;
  /** sheet_alternatives, §2 Model label "aria-label like 'Open mode picker, currently Flash'": another wording. */
  pickerWording: number;
  /** sheet_alternatives, §2 Composer "(Quill editor; placeholder text unverified)": another placeholder. */
  placeholder: number;
}

/** What the StreamGenerate answers of a fuzzed page play (stream.ts). */
export interface GeminiWireVariation {
  /** sheet_alternatives, §3 "the model's display name … appears near the end of the inner array (exact index unverified)". */
  modelNameIndex: number;
  /** sheet_alternatives, §5 "Error code 1096 has been seen in trailing error envelopes of otherwise normal answers (unverified)". */
  trailingError1096: boolean;
}

export const NO_GEMINI_WIRE_VARIATION: GeminiWireVariation = { modelNameIndex: 31, trailingError1096: false };

/** An uncited source a list may show besides the cited ones (uncitedSource). */
export const UNCITED_SOURCE = {
  url: "https://www.example.org/further-reading/overview",
  title: "Further reading - an overview",
  site: "Example Reference",
  snippet: "A general overview the answer does not cite.",
} as const;

/**
 * The generic classes on Gemini's page. The anchors the sheet names (§2) are kept as classes; the decoys are controls
 * of newer features a staged rollout may put next to the real ones, none carrying the sheet's anchors of the real
 * control (no `rich-textarea`, no `ql-editor`, no role textbox, no `send-button` class, no "Send message" /
 * "Sources" name, no `legacy-sources-sidebar-button`).
 */
export const GEMINI_VARIATION_PROFILE: VariationProfile = {
  hydrating: ["rich-textarea", "div.text-input-field", "button.send-button.submit", 'button[data-test-id="bard-mode-menu-button"]'],
  composer: [".ql-editor"],
  // the chips' aria-label is quoted by the sheet word for word (§2), so chips are not restyled; the controls are
  labelled: [
    "button.send-button",
    'button[data-test-id="bard-mode-menu-button"]',
    "button.legacy-sources-sidebar-button",
    '[role="menuitem"]',
    'button[aria-label="Good response"]',
    'button[aria-label="Bad response"]',
  ],
  // wrappers only where no sheet selector joins parent and child with `>` (sources-carousel-inline > source-inline-chip
  // > button stays as it is)
  wrappable: ["button.legacy-sources-sidebar-button", "sources-list", "bard-mode-switcher", "input-area-v2 .trailing-actions-wrapper"],
  rotatable: [
    "inline-source-card *",
    "button.send-button",
    ".response-container",
    ".conversation-container",
    ".top-bar",
    "model-response *",
  ],
  // gemini.md §2 names these classes: the Quill editor, the send button, the answer panel, chip titles, the Sources button
  keepClasses: [
    "ql-editor",
    "textarea",
    "send-button",
    "stop",
    "submit",
    "model-response-text",
    "markdown",
    "markdown-main-panel",
    "source-title",
    "legacy-sources-sidebar-button",
    "superscript",
    // the replica's own script finds these (not the scraper's business, but the page must keep working)
    "response-content",
    "thoughts-header-button",
    "thoughts-body",
    "response-footer",
    "message-actions",
    "mode-label",
    "mode-menu",
    "close-button",
    "chat-history",
    "trailing-actions-wrapper",
    "speech_dictation_mic_button",
    "processing-state-visible",
    "has-thoughts",
    "overlay-dialog",
    "sidebar",
    "sources-sidebar",
    "ql-blank",
  ],
  siblings: [
    {
      // Canvas / image prompt box of a newer build above the composer: a textarea, not the sheet's Quill editor
      before: "input-container",
      html: '<div class="image-prompt-row" style="display:flex;justify-content:center;margin:8px 0"><textarea aria-label="Describe an image to create" placeholder="Describe an image to create" rows="1" style="width:min(760px,100% - 32px)"></textarea></div>',
      what: "image prompt textarea before the composer",
    },
    {
      // Gemini Live's button placed before the send button (a button of the input area, not `send-button`)
      before: "input-area-v2 .trailing-actions-wrapper",
      html: '<button type="button" class="gemini-live-button" aria-label="Use Gemini Live">Live</button>',
      what: "Gemini Live button before the send button",
    },
    {
      // a "Deep Research" button before the mode picker: a newer feature's control in the same top bar
      before: "bard-mode-switcher",
      html: '<button type="button" class="deep-research-chip" aria-label="Deep Research" aria-pressed="false">Deep Research</button>',
      what: "Deep Research toggle before the mode picker",
    },
  ],
};

/** Gemini's own classes of one page load; every choice is noted on the draw. */
export function drawGeminiVariation(
  draw: VariationDraw,
  layout: GeminiLayout,
): { layout: GeminiLayout; page: GeminiPageVariation; wire: GeminiWireVariation } {
  const page: GeminiPageVariation = {
    chips: { arrival: "immediate", delayMs: 0, batches: 1, gapMs: 0 },
    cards: { arrival: "immediate", delayMs: 0, batches: 1, gapMs: 0, firstDialogDelayMs: 0 },
    chipSuffix: null,
    otherCardStyle: false,
    uncitedSource: false,
    pickerWording: 0,
    placeholder: 0,
  };
  const wire: GeminiWireVariation = { ...NO_GEMINI_WIRE_VARIATION };

  // sheet_alternatives, §2: the sources as a side panel behind `button.legacy-sources-sidebar-button`, as the
  // end-of-answer `sources-list`, or (chip aria-label "Press Enter to open sources dialog.") as each chip's dialog.
  // Only the default layout is redrawn, so a test that chose a layout keeps it.
  let chosen = layout;
  if (layout === GEMINI_LAYOUTS[0] && draw.chance("sheet_alternatives", 0.5)) {
    chosen = draw.pick("sheet_alternatives", GEMINI_LAYOUTS);
    draw.note("sheet_alternatives", `sources presented as the ${chosen} layout`);
  }

  if (draw.chance("late_lists", 0.8)) {
    const arrival = draw.pick("late_lists", ["late", "batches"] as const);
    page.chips = {
      arrival,
      delayMs: draw.int("late_lists", 0, 4_000),
      batches: arrival === "batches" ? draw.int("late_lists", 2, 3) : 1,
      gapMs: draw.int("late_lists", 200, 700),
    };
    draw.note(
      "late_lists",
      arrival === "late"
        ? `chips ${page.chips.delayMs} ms after the answer settled`
        : `chips in ${page.chips.batches} batches from ${page.chips.delayMs} ms, ${page.chips.gapMs} ms apart`,
    );
  }
  if (draw.chance("late_lists", 0.8)) {
    const arrival = draw.pick("late_lists", ["late", "batches", "behind_button"] as const);
    page.cards = {
      arrival,
      delayMs: draw.int("late_lists", 0, 3_000),
      batches: arrival === "batches" ? draw.int("late_lists", 2, 3) : 1,
      gapMs: draw.int("late_lists", 200, 700),
      firstDialogDelayMs: draw.int("late_lists", 0, 1_500),
    };
    draw.note(
      "late_lists",
      arrival === "behind_button"
        ? "the sources list only once its Sources button is clicked"
        : arrival === "late"
          ? `source cards ${page.cards.delayMs} ms late`
          : `source cards in ${page.cards.batches} batches, ${page.cards.gapMs} ms apart`,
    );
    if (page.cards.firstDialogDelayMs > 0)
      draw.note("late_lists", `a chip's dialog loads its cards ${page.cards.firstDialogDelayMs} ms late the first time`);
  }

  if (draw.chance("sheet_alternatives", 0.5)) {
    page.chipSuffix = draw.pick("sheet_alternatives", ["side_panel", "dialog"] as const);
    draw.note(
      "sheet_alternatives",
      `chip aria-labels end "${page.chipSuffix === "dialog" ? "Press Enter to open sources dialog." : "Opens side panel."}"`,
    );
  }
  if (draw.chance("sheet_alternatives", 0.5)) {
    page.otherCardStyle = true;
    draw.note("sheet_alternatives", "source cards in the other markup (title before site, no class hints, or the reverse)");
  }
  if (draw.chance("sheet_alternatives", 0.5)) {
    page.uncitedSource = true;
    draw.note("sheet_alternatives", "the sources list also shows a source no chip cites");
  }
  if (draw.chance("sheet_alternatives", 0.4)) {
    page.pickerWording = draw.int("sheet_alternatives", 1, 2);
    draw.note("sheet_alternatives", `mode picker aria-label wording ${page.pickerWording}`);
  }
  if (draw.chance("sheet_alternatives", 0.4)) {
    page.placeholder = draw.int("sheet_alternatives", 1, 2);
    draw.note("sheet_alternatives", `composer placeholder ${page.placeholder}`);
  }
  if (draw.chance("sheet_alternatives", 0.6)) {
    wire.modelNameIndex = draw.int("sheet_alternatives", 28, 44);
    draw.note("sheet_alternatives", `model name at [${wire.modelNameIndex}] of the final inner array`);
  }
  if (draw.chance("sheet_alternatives", 0.3)) {
    wire.trailingError1096 = true;
    draw.note("sheet_alternatives", "a trailing 1096 error envelope after the complete answer");
  }
  return { layout: chosen, page, wire };
}
