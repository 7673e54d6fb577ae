/**
 * Page fuzzing of the ChatGPT replica (issue 29; shared/variation.ts). The generic classes (hydration, interruptions,
 * controlled inputs, decoration, rollout siblings) are described by CHATGPT_VARIATION_PROFILE and played by the shared
 * runtime; ChatGPT's own classes are drawn here from the same VariationDraw:
 *
 * - late_lists — the lists the page shows: the citation pills inside `.markdown` and the sources behind the footnote
 *   pill (chatgpt.md §2: "footnote pill `button.group\/footnote` opens `section[screen-anchor="top"] div[slot="content"] a`",
 *   a list that exists only once its button is clicked, as the site builds it). They may appear 0–4 s after the answer
 *   ends and the panel's entries may arrive in 2–3 batches (VARIATION_GROUNDS.late_lists). The API fields come from the
 *   stream (chatgpt.md §4), so none of this may change an answer.
 * - sheet_alternatives — every point chatgpt.md leaves open, taken either way, on the page and on the wire:
 *   · `model`: "`model` (`"auto"` or a slug)" (§3);
 *   · `system_hints` when not searching: the sheet names it only "`system_hints:["search"]` when searching" (§3), so a
 *     turn without search may send `[]` or no key at all;
 *   · "optional `history_and_training_disabled`" (§3): sent or not;
 *   · completion: "Scrapeless waits until more than one copy button exists: one for the user turn, one for the answer"
 *     (§2) — the user turn's copy button is there or not; its label is an `aria-label` (§2: localised, not an anchor);
 *   · SSE framing: "`event:` line optional" (§3): `event: delta` lines kept or left out;
 *   · "`c` = its index, may be absent" (§3);
 *   · tool messages "`author.name:"web.run"` or `"web"`" (§3);
 *   · "PUA characters may be raw UTF-8 … or JSON `\u` escapes" (§3).
 * The wire alternatives belong to the page load that draws them: its page sends its build number
 * (`oai-client-build-number`, a header the real site sends too) and the server streams that build's framing.
 */
import type { VariationProfile } from "../shared/page-variation";
import type { VariationDraw } from "../shared/variation";
import type { ChatgptScenario } from "./scenarios";

/** What the page's script does differently on this page load (client/chatgpt-page.js reads it as `SETTINGS.variant`). */
export interface ChatgptPageVariant {
  /** The page load's build number, sent as `oai-client-build-number` so the server can stream this build's framing. */
  build: number;
  /** Citation pills inside `.markdown` shown this long after the answer ended (null: with the text, as before). */
  pillsLateMs: number | null;
  /** The footnote pill (sources button) added this long after the answer ended (null: at once). */
  sourcesLateMs: number | null;
  /** Entries of the sources panel arrive in this many batches after the click (1: all at once). */
  panelBatches: number;
  /** `model` of the request. */
  model: string;
  /** `system_hints` when the turn asks for no tool: an empty list, or no key. */
  hintsWithoutSearch: "empty" | "absent";
  /** Whether the request carries `history_and_training_disabled: false`. */
  historyField: boolean;
  /** Whether the user turn has its own copy button (Scrapeless counts two). */
  userCopyButton: boolean;
  /** The copy buttons' label (an `aria-label`: localised or reworded, never an anchor). */
  copyLabel: string | null;
}

/** How the server frames this page load's stream. */
export interface ChatgptWireVariant {
  eventLines: boolean;
  messageIndex: "as_scenario" | "absent";
  toolName: "as_scenario" | "swapped";
  nonAscii: "as_scenario" | "raw" | "escaped";
}

export interface ChatgptVariation {
  page: ChatgptPageVariant;
  wire: ChatgptWireVariant;
}

/**
 * The generic classes on ChatGPT's page. Selectors name the page's own elements; the sheet's anchors (`#prompt-textarea`,
 * `[placeholder="Ask anything"]`, `data-testid`, `data-message-*`, `.markdown`) are never rotated or removed.
 */
export const CHATGPT_VARIATION_PROFILE: VariationProfile = {
  // the composer form (editor, fallback textarea, send/stop) renders once the app hydrates (VARIATION_GROUNDS.hydration)
  hydrating: ["form.composer"],
  composer: ["#prompt-textarea", 'form.composer textarea[placeholder="Ask anything"]'],
  // chatgpt.md §2: "Avoid … `aria-label`s as anchors (obfuscated / localised)": they may read any way
  labelled: [
    'button[data-testid="send-button"]',
    'button[data-testid="stop-button"]',
    'button[data-testid="copy-turn-action-button"]',
    "header button",
  ],
  // no sheet selector joins these with `>`: extra wrappers keep every anchor of §2 true
  wrappable: ['button[data-testid="send-button"]', "#prompt-textarea", ".markdown"],
  // §2: "Avoid Tailwind classes … (obfuscated)"; the classes the sheet names (`markdown`, `group/footnote`) stay
  rotatable: [
    "form.composer",
    "section[data-turn]",
    "div[data-message-author-role]",
    ".markdown",
    'button[data-testid="copy-turn-action-button"]',
  ],
  keepClasses: [
    "markdown",
    "prose",
    "group/footnote",
    "composer",
    "ProseMirror",
    "input-area",
    "placeholder",
    "turn-actions",
    "whitespace-pre-wrap",
    "thought-recap",
    "error-message",
  ],
  siblings: [
    {
      // a newer feature's editor before the real one: a textbox, but neither `#prompt-textarea` nor "Ask anything"
      before: "form.composer .input-area",
      html: '<div class="canvas-input"><div contenteditable="true" role="textbox" aria-label="Describe an image" data-placeholder="Describe an image"></div></div>',
      what: "an image-prompt editor before the composer",
    },
    {
      // a voice-mode button where the send button sits; another data-testid, not `send-button`
      before: 'form.composer button[data-testid="send-button"]',
      html: '<button type="button" data-testid="composer-speech-button" aria-label="Start voice mode">&#127908;</button>',
      what: "a voice-mode button before the send button",
    },
    {
      // a newer "Search" toggle beside the composer (the real site has one); it is not how the deep link asks for search
      before: "form.composer .input-area",
      html: '<button type="button" aria-pressed="false" aria-label="Search the web">Search</button>',
      what: "a search toggle before the composer",
    },
  ],
};

const MODEL_SLUGS = ["auto", "gpt-5", "gpt-5-mini"] as const;
const COPY_LABELS = ["Copy", "Copy response", "Kopieren"] as const;

/** ChatGPT's own draws of one page load; every decision is noted on the draw. */
export function drawChatgptVariation(draw: VariationDraw): ChatgptVariation {
  const page: ChatgptPageVariant = {
    build: draw.pageLoad,
    pillsLateMs: null,
    sourcesLateMs: null,
    panelBatches: 1,
    model: "auto",
    hintsWithoutSearch: "empty",
    historyField: false,
    userCopyButton: true,
    copyLabel: null,
  };
  const wire: ChatgptWireVariant = { eventLines: true, messageIndex: "as_scenario", toolName: "as_scenario", nonAscii: "as_scenario" };

  if (draw.chance("late_lists", 0.8)) {
    if (draw.chance("late_lists", 0.6)) {
      page.pillsLateMs = draw.int("late_lists", 0, 4_000);
      draw.note("late_lists", `citation pills ${page.pillsLateMs} ms after the answer`);
    }
    if (draw.chance("late_lists", 0.6)) {
      page.sourcesLateMs = draw.int("late_lists", 0, 4_000);
      draw.note("late_lists", `sources button ${page.sourcesLateMs} ms after the answer`);
    }
    page.panelBatches = draw.int("late_lists", 1, 3);
    if (page.panelBatches > 1) draw.note("late_lists", `sources panel entries in ${page.panelBatches} batches`);
  }

  if (draw.on("sheet_alternatives")) {
    page.model = draw.pick("sheet_alternatives", MODEL_SLUGS);
    page.hintsWithoutSearch = draw.pick("sheet_alternatives", ["empty", "absent"] as const);
    page.historyField = draw.chance("sheet_alternatives", 0.5);
    page.userCopyButton = draw.chance("sheet_alternatives", 0.5);
    page.copyLabel = draw.chance("sheet_alternatives", 0.5) ? draw.pick("sheet_alternatives", COPY_LABELS) : null;
    wire.eventLines = draw.chance("sheet_alternatives", 0.5);
    wire.messageIndex = draw.pick("sheet_alternatives", ["as_scenario", "absent"] as const);
    wire.toolName = draw.pick("sheet_alternatives", ["as_scenario", "swapped"] as const);
    wire.nonAscii = draw.pick("sheet_alternatives", ["as_scenario", "raw", "escaped"] as const);
    draw.note(
      "sheet_alternatives",
      `model ${page.model}, hints without search ${page.hintsWithoutSearch}, history field ${page.historyField ? "sent" : "absent"}, ` +
        `user copy button ${page.userCopyButton ? "shown" : "absent"}, copy label ${page.copyLabel ?? "as layout"}; ` +
        `wire: event lines ${wire.eventLines ? "kept" : "left out"}, message index ${wire.messageIndex}, tool name ${wire.toolName}, non-ASCII ${wire.nonAscii}`,
    );
  }
  return { page, wire };
}

/**
 * The wire variants of recent page loads by build number: the conversation request names its page's build. Bounded:
 * a page older than the last few hundred loads streams as the scenario says.
 */
export class ChatgptWireVariants {
  private readonly byBuild = new Map<number, ChatgptWireVariant>();

  remember(build: number, wire: ChatgptWireVariant): void {
    this.byBuild.set(build, wire);
    if (this.byBuild.size > 256) {
      const oldest = this.byBuild.keys().next();
      if (oldest.done !== true) this.byBuild.delete(oldest.value);
    }
  }

  of(header: string | undefined): ChatgptWireVariant | null {
    const build = Number(header);
    return Number.isInteger(build) ? (this.byBuild.get(build) ?? null) : null;
  }
}

/** The scenario as this build frames it: the same answer, with the sheet's wire alternatives taken as drawn. */
export function withWireVariant(scenario: ChatgptScenario, wire: ChatgptWireVariant): ChatgptScenario {
  return {
    ...scenario,
    withMessageIndex: wire.messageIndex === "absent" ? false : scenario.withMessageIndex,
    escapeNonAscii: wire.nonAscii === "as_scenario" ? scenario.escapeNonAscii : wire.nonAscii === "escaped",
    searches:
      wire.toolName === "as_scenario"
        ? scenario.searches
        : scenario.searches.map((search) => ({ ...search, toolName: search.toolName === "web" ? "web.run" : "web" })),
  };
}
