/**
 * Page fuzzing of the Google AI Mode replica (issue 29, replicas/shared/variation.ts). The generic classes (hydration,
 * interruptions, controlled inputs, decoration, rollout siblings) are played by the shared runtime from the profile
 * below; the provider's own classes (`late_lists`, `sheet_alternatives`) are drawn here into an AiModeVariant, which
 * the folwr fragment (fragment.ts) and the page's script (client/ai-mode-page.js) follow. Every choice is noted on the
 * draw; beside each one is the sheet line (providers/google_ai_mode.md) or the general web behaviour that allows it.
 */
import type { VariationProfile } from "../shared/page-variation";
import type { VariationDraw } from "../shared/variation";

/**
 * How the "N sites" list reaches the page. Sheet §2: "button whose aria-label / text is "N sites" … opens a list
 * (`[role="dialog"]` or side panel)" — the list may be behind its button; §4: search_results are "every entry of the
 * N sites panel", wherever it renders.
 *  - `as_sent`: the entries are in the fragment and in the page as the fragment puts them.
 *  - `late`: the page shows the entries 0–4 s after the answer ended, in 1–3 batches, without a click.
 *  - `template`: the fragment carries the entries in a `<template>`; the page builds the list when the button is
 *    clicked, in 1–3 batches.
 *  - `on_click`: the fragment carries only the button; the page loads the list when the button is clicked (a side
 *    panel that loads its content on open, §3 lists several `/async/*` endpoints besides folwr) and shows it in 1–3
 *    batches, 0–4 s later.
 */
export type PanelDelivery = "as_sent" | "late" | "template" | "on_click";

export interface AiModeVariant {
  panel: {
    delivery: PanelDelivery;
    /** ms after the answer ended (late) or after the click (template, on_click) before the first batch. */
    delayMs: number;
    /** How many batches the entries arrive in, `batchMs` apart. */
    batches: number;
    batchMs: number;
    /** Sheet §2 "opens a list (`[role="dialog"]` or side panel)": where the opened list renders. */
    container: "dialog" | "side_panel";
  };
  /** Citation chips appear in the page 0–4 s after the answer (sheet §2 lists them with the answer; the wire keeps them). */
  lateChipsMs: number;
  /** Sheet §2 completion: `[data-complete="true"]` is (unverified): set or not. */
  dataComplete: boolean;
  /** Sheet §2 completion: the disclaimer has two wordings ("AI responses may include mistakes." / "AI can make mistakes, …"). */
  disclaimer: "layout" | "responses_may" | "can_make";
  /** Sheet §2 "button whose aria-label / text is "N sites"": label as aria-label and text, aria-label only, or text only. */
  sitesLabel: "both" | "aria" | "text";
  /** Sheet §2 citation metadata comment: "layout unverified against live pages": after each block or at the end. */
  comments: "layout" | "end" | "after-block";
  /** Sheet §2 per-turn `[data-scope-id="turn"]` (unverified): present or not. */
  turnWrapper: "layout" | "present" | "absent";
}

/** The variant of a page without fuzzing: the layout as it is. */
export const NO_VARIANT: AiModeVariant = {
  panel: { delivery: "as_sent", delayMs: 0, batches: 1, batchMs: 0, container: "dialog" },
  lateChipsMs: 0,
  dataComplete: true,
  disclaimer: "layout",
  sitesLabel: "both",
  comments: "layout",
  turnWrapper: "layout",
};

/** Draws the provider's own classes of one page load; every choice that changes the page is noted. */
export function drawAiModeVariant(draw: VariationDraw): AiModeVariant {
  const variant: AiModeVariant = structuredClone(NO_VARIANT);

  // late_lists — sheet §2 "Sources panel: button … "N sites" … opens a list ([role="dialog"] or side panel)"
  if (draw.chance("late_lists", 0.85)) {
    const delivery = draw.pick("late_lists", ["late", "template", "on_click", "on_click"] as const);
    variant.panel = {
      delivery,
      delayMs: draw.int("late_lists", 0, 4_000),
      batches: draw.int("late_lists", 1, 3),
      batchMs: draw.int("late_lists", 200, 900),
      container: draw.pick("late_lists", ["dialog", "side_panel"] as const),
    };
    draw.note(
      "late_lists",
      `sources list ${delivery} (${variant.panel.container}), first entries after ${variant.panel.delayMs} ms in ${variant.panel.batches} batch(es) ${variant.panel.batchMs} ms apart`,
    );
  }
  // late_lists — citation chips render after the text settles (VARIATION_GROUNDS.late_lists); the fragment keeps them
  if (draw.chance("late_lists", 0.5)) {
    variant.lateChipsMs = draw.int("late_lists", 200, 4_000);
    draw.note("late_lists", `citation chips shown ${variant.lateChipsMs} ms after the answer`);
  }

  // sheet_alternatives — each point the sheet marks (unverified) or gives alternatives for, taken either way
  if (draw.on("sheet_alternatives")) {
    variant.dataComplete = draw.chance("sheet_alternatives", 0.5);
    variant.disclaimer = draw.pick("sheet_alternatives", ["layout", "responses_may", "can_make"] as const);
    variant.sitesLabel = draw.pick("sheet_alternatives", ["both", "aria", "text"] as const);
    variant.comments = draw.pick("sheet_alternatives", ["layout", "end", "after-block"] as const);
    variant.turnWrapper = draw.pick("sheet_alternatives", ["layout", "present", "absent"] as const);
    draw.note(
      "sheet_alternatives",
      `data-complete ${variant.dataComplete ? "set" : "never set"}, disclaimer ${variant.disclaimer}, "N sites" label ${variant.sitesLabel}, comments ${variant.comments}, turn wrapper ${variant.turnWrapper}`,
    );
  }
  return variant;
}

/** The "N sites" label in the page's language (Google localises its UI by `hl`; the sheet shows the English one). */
export function sitesLabel(count: number, hl: string): string {
  const language = hl.toLowerCase().split("-")[0] ?? "en";
  switch (language) {
    case "de":
      return `${count} ${count === 1 ? "Website" : "Websites"}`;
    case "es":
      return `${count} ${count === 1 ? "sitio" : "sitios"}`;
    case "it":
      return `${count} ${count === 1 ? "sito" : "siti"}`;
    case "nl":
      return `${count} ${count === 1 ? "website" : "websites"}`;
    case "ja":
      return `${count} 件のサイト`;
    default:
      return `${count} ${count === 1 ? "site" : "sites"}`;
  }
}

/**
 * How the page lends itself to the generic classes. Selectors name only what the sheet names (roles, aria-labels,
 * placeholders, the sheet's data-* anchors); the sources list's entries are data (their aria-label is the page title),
 * so they are never relabelled.
 */
export const AI_MODE_VARIATION_PROFILE: VariationProfile = {
  // the search box, the AI Mode composer and the "N sites" button hydrate (sheet §2 input rows; §2 sources panel)
  hydrating: [
    'textarea[aria-label="Search"]',
    'textarea[placeholder="Ask anything"]',
    'button[aria-haspopup="dialog"]',
    "[data-target-container-id] > button",
  ],
  composer: ['textarea[placeholder="Ask anything"]'],
  // labels any Google page restyles: the search box, the feedback buttons (sheet §2 `[aria-label="Helpful"]`), the
  // "N sites" button (its name is found case- and space-insensitively)
  labelled: ['textarea[aria-label="Search"]', 'button[aria-label="Not helpful"]', 'button[aria-haspopup="dialog"]'],
  // never a selector a wrapper (a `display: contents` div) could match itself, or wrapping would never end
  wrappable: ['[data-subtree="aimc"] ul', '[data-subtree="aimc"] table', 'a[target="_blank"][aria-label]'],
  // Google's class names are obfuscated and rotate (sheet, top); the ones the sheet names are kept
  rotatable: ['[data-subtree="aimc"] *', "[data-target-container-id] *", '[role="dialog"] *'],
  keepClasses: [
    "mZJni",
    "Y3BBE",
    "pTRUV",
    "n6owBd",
    "Sv6Kpe",
    "hbL65e",
    "gUMPPd",
    "ya9Iof",
    "v4bSkd",
    "DBd2Wb",
    "txxDge",
    "notranslate",
    "rBl3me",
    "uJ19be",
  ],
  siblings: [
    {
      // a newer feature's count button ("N videos") before the sources button: same role, another name
      before: 'button[aria-haspopup="dialog"]',
      html: '<button type="button" aria-haspopup="dialog" aria-label="3 videos"><span>3 videos</span></button>',
      what: '"3 videos" button before the "N sites" button',
    },
    {
      // a newer image-question box before the AI Mode composer; it does not carry the composer's placeholder
      before: 'textarea[placeholder="Ask anything"]',
      html: '<textarea aria-label="Ask about an image" placeholder="Ask about an image" rows="1"></textarea>',
      what: "image-question box before the composer",
    },
    {
      // a newer "Listen" control in the feedback row, before "Helpful"
      before: 'button[aria-label="Helpful"]',
      html: '<button type="button" aria-label="Listen"><span>Listen</span></button>',
      what: '"Listen" button before the feedback buttons',
    },
  ],
};
