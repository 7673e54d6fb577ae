/**
 * Perplexity's own page-fuzzing classes (issue 29), drawn from the page load's VariationDraw and played by
 * client/perplexity-page.js (the page) and app.ts (the stream of that page's requests). The generic classes
 * (hydration, interruptions, controlled inputs, decoration, rollout siblings) are the shared runtime's, configured by
 * PERPLEXITY_VARIATION_PROFILE in page.ts. Every choice is within providers/perplexity.md; the line that allows it is
 * quoted beside it.
 */
import type { VariationDraw } from "../shared/variation";

/** How a list of the answer renders in the DOM. */
export interface LateList {
  /** `with_answer`: as today; `late`: all at once `delayMs` after the answer ends; `batches`: in `batches` steps over `delayMs`. */
  mode: "with_answer" | "late" | "batches";
  delayMs: number;
  batches: number;
}

/** The request the page sends, where the sheet leaves it open. */
export interface RequestAlternatives {
  /** `skip_search_enabled` with Web on: the sheet states it only for Web off. */
  skipSearchWithWeb: "false" | "true" | "absent";
  /** With Web off: `skip_search_enabled:true` (current UI) or not sent (older clients). */
  skipSearchWithoutWeb: "true" | "absent";
  /** With Web off: `search_focus` "internet" or the older clients' "writing". */
  focusWithoutWeb: "internet" | "writing";
  /** "diff_blocks" in `supported_block_use_cases` (diff mode) or not (materialized blocks). */
  diffBlocks: boolean;
  mode: "copilot" | "concise";
}

/** What the page itself plays (serialised into the page's `__NEXT_DATA__`). */
export interface PerplexityPageVariation {
  /** The page's `frontend_context_uuid`, so the stream of its requests can follow the page's draw. */
  frontendContextUuid: string;
  pills: LateList | null;
  related: LateList | null;
  request: RequestAlternatives | null;
  /** The answer in `.prose` blocks alone or inside `div[id^="markdown-content-"]`, whatever the layout; null = the layout's. */
  answerWrapper: "prose" | "markdown-content" | null;
  /** The sources menu trigger's label (unstated in the sheet); null = the layout's. */
  sourcesLabel: string | null;
}

/** What the stream of that page's requests does where the sheet leaves it open. */
export interface StreamAlternatives {
  /** §3: "an `end_of_stream` event with `{}` may precede close". */
  endOfStream: boolean | null;
  /** §4: `related_query_items[].text` (fallback `related_queries[]`): the items list sent or not. */
  relatedItems: boolean | null;
}

export interface PerplexityDraw {
  page: PerplexityPageVariation;
  stream: StreamAlternatives;
}

function lateList(draw: VariationDraw, what: string): LateList | null {
  if (!draw.chance("late_lists", 0.75)) return null;
  const mode = draw.pick("late_lists", ["late", "batches"] as const);
  const delayMs = draw.int("late_lists", 0, 4_000);
  const batches = mode === "batches" ? draw.int("late_lists", 2, 3) : 1;
  draw.note("late_lists", `${what} ${mode === "late" ? `${delayMs} ms after the answer` : `in ${batches} batches over ${delayMs} ms`}`);
  return { mode, delayMs, batches };
}

/** Draws Perplexity's own classes for one page load; `frontendContextUuid` is the page's (fixed per load). */
export function drawPerplexityVariation(draw: VariationDraw, frontendContextUuid: string): PerplexityDraw {
  // late_lists — VARIATION_GROUNDS.late_lists and §2 ("Related" follow-up list rendered under the answer; citation
  // pills in the rendered answer): pills and the Related list render after the text settles, or in batches. The sheet
  // puts neither behind a control, so neither is hidden behind one.
  const pills = lateList(draw, "citation pills");
  const related = lateList(draw, "Related list");

  let request: RequestAlternatives | null = null;
  let answerWrapper: PerplexityPageVariation["answerWrapper"] = null;
  let sourcesLabel: string | null = null;
  const stream: StreamAlternatives = { endOfStream: null, relatedItems: null };
  if (draw.on("sheet_alternatives")) {
    request = {
      // §1 names params.sources as the Web choice; skip_search_enabled is stated only for Web off ("current UI also
      // sends skip_search_enabled:true"), so with Web on it may be anything or absent
      skipSearchWithWeb: draw.pick("sheet_alternatives", ["false", "true", "absent"] as const),
      // §1 "current UI also sends skip_search_enabled:true … Older clients used search_focus:"writing""
      skipSearchWithoutWeb: draw.pick("sheet_alternatives", ["true", "absent"] as const),
      focusWithoutWeb: draw.pick("sheet_alternatives", ["internet", "writing"] as const),
      // §3 "supported_block_use_cases … ("diff_blocks" in it turns on diff mode)"; "Without diff mode a block is materialized"
      diffBlocks: draw.chance("sheet_alternatives", 0.6),
      // §3 mode:"copilot" (or "concise")
      mode: draw.pick("sheet_alternatives", ["copilot", "concise"] as const),
    };
    // §2 Answer: ".prose blocks … before: div[id^="markdown-content-"] wrapping .prose. Both layouts are live (rollout)."
    answerWrapper = draw.pick("sheet_alternatives", ["prose", "markdown-content"] as const);
    // §1 names the "Web" item of the sources menu, not the menu's own label: any wording
    sourcesLabel = draw.pick("sheet_alternatives", [
      "Sources",
      "Set sources for search",
      "Choose sources",
      "Search sources",
      "Connectors and sources",
    ] as const);
    // §3 end_of_stream "may precede close"; §4 related_query_items with related_queries[] as the fallback
    stream.endOfStream = draw.chance("sheet_alternatives", 0.5);
    stream.relatedItems = draw.chance("sheet_alternatives", 0.5);
    draw.note(
      "sheet_alternatives",
      `skip_search_enabled with Web ${request.skipSearchWithWeb}, without Web ${request.skipSearchWithoutWeb}; search_focus without Web ${request.focusWithoutWeb}; ` +
        `${request.diffBlocks ? "diff" : "materialized"} blocks; mode ${request.mode}; answer in ${answerWrapper}; sources trigger "${sourcesLabel}"; ` +
        `end_of_stream ${stream.endOfStream ? "sent" : "not sent"}; related_query_items ${stream.relatedItems ? "sent" : "not sent"}`,
    );
  }
  return { page: { frontendContextUuid, pills, related, request, answerWrapper, sourcesLabel }, stream };
}
