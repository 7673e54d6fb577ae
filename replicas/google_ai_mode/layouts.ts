/**
 * Markup variants of the Google AI Mode replica (DESIGN.md §6). Each is something www.google.com could serve according
 * to google_ai_mode.md: the sheet's alternative anchors, rotating obfuscated class names, other wrappers and element
 * order. None adds a `data-*` attribute, id, class or text the sheet does not name.
 *
 * | Layout    | Answer container                     | Page transport | Differences                                              |
 * |-----------|--------------------------------------|----------------|----------------------------------------------------------|
 * | `classic` | `[data-container-id="main-col"]`     | fetch reader   | the sheet's observed classes; empty citation buttons;   |
 * |           |                                      |                | panel in `[data-target-container-id]` after the answer;  |
 * |           |                                      |                | comments at the end; disclaimer "AI responses may …"     |
 * | `rotated` | `.mZJni` > `[data-scope-id="turn"]`  | XHR progress   | class names that change per scenario; paragraphs wrapped |
 * |           |                                      |                | in spans; labelled chips with favicon and "+N"; a        |
 * |           |                                      |                | "Thinking" status and "AI Mode response is ready" inside |
 * |           |                                      |                | the fragment; "N sites" button inside the answer opening |
 * |           |                                      |                | a `[role="dialog"]`; comments after each block; the      |
 * |           |                                      |                | disclaimer "AI can make mistakes, …"                     |
 * | `consent` | as `classic`                         | fetch reader   | an EU visitor: the first `/search` shows the "Before you |
 * |           |                                      |                | continue to Google" dialog (`#L2AGLb` accepts)           |
 */

export const AI_MODE_LAYOUTS = ["classic", "rotated", "consent"] as const;
export type AiModeLayoutId = (typeof AI_MODE_LAYOUTS)[number];

export function isAiModeLayout(value: string): value is AiModeLayoutId {
  return AI_MODE_LAYOUTS.some((layout) => layout === value);
}

/** Class names of one rendering; obfuscated like Google's (they mean nothing to a scraper). */
export interface FragmentClasses {
  container: string;
  turn: string;
  subtree: string;
  thinking: string;
  paragraph: string;
  span: string;
  heading: string;
  list: string;
  listItem: string;
  tableWrap: string;
  code: string;
  chip: string;
  disclaimer: string;
  feedback: string;
  feedbackButton: string;
  sitesButton: string;
  panel: string;
  panelEntry: string;
  panelMeta: string;
  ready: string;
}

export interface AiModeLayout {
  id: AiModeLayoutId;
  /** How the page's script reads `/async/folwr`. */
  transport: "fetch" | "xhr";
  /** `main-col` = `[data-container-id="main-col"]`; `mZJni` = the sheet's observed alternative class. */
  container: "main-col" | "mZJni";
  turnWrapper: boolean;
  /** Text of paragraphs inside a `<span>` in their `<div>`. */
  spanWrappedText: boolean;
  /** Citation buttons carry a favicon, the site name and "+N" (otherwise they are empty, as in the sheet's sample). */
  labelledChips: boolean;
  /** The fragment itself starts with a "Thinking" status and ends with the screen-reader "ready" text. */
  statusTexts: boolean;
  disclaimer: string;
  /** `after-answer`: `[data-target-container-id]` with the "N sites" button and the list after the container;
   *  `dialog`: the button at the end of the answer, the list in a `[role="dialog"]` after the container. */
  panel: "after-answer" | "dialog";
  /** Where the `Sv6Kpe` comments go. */
  comments: "end" | "after-block";
  /** The first `/search` of a visitor without the consent cookie shows the consent dialog. */
  consent: boolean;
}

const LAYOUTS: Readonly<Record<AiModeLayoutId, AiModeLayout>> = {
  classic: {
    id: "classic",
    transport: "fetch",
    container: "main-col",
    turnWrapper: false,
    spanWrappedText: false,
    labelledChips: false,
    statusTexts: false,
    disclaimer: "AI responses may include mistakes.",
    panel: "after-answer",
    comments: "end",
    consent: false,
  },
  rotated: {
    id: "rotated",
    transport: "xhr",
    container: "mZJni",
    turnWrapper: true,
    spanWrappedText: true,
    labelledChips: true,
    statusTexts: true,
    disclaimer: "AI can make mistakes, so double-check responses",
    panel: "dialog",
    comments: "after-block",
    consent: false,
  },
  consent: {
    id: "consent",
    transport: "fetch",
    container: "main-col",
    turnWrapper: false,
    spanWrappedText: false,
    labelledChips: false,
    statusTexts: false,
    disclaimer: "AI responses may include mistakes.",
    panel: "after-answer",
    comments: "end",
    consent: true,
  },
};

export function aiModeLayout(id: string): AiModeLayout {
  return isAiModeLayout(id) ? LAYOUTS[id] : LAYOUTS.classic;
}

/** The classes observed on the real site (google_ai_mode.md §2), used by the classic layouts. */
const OBSERVED_CLASSES: FragmentClasses = {
  container: "RJPOee",
  turn: "CKgc1d",
  subtree: "pWvJNd",
  thinking: "qewEec",
  paragraph: "Y3BBE",
  span: "T286Pc",
  heading: "otQkpb",
  list: "KsbFXc",
  listItem: "pTRUV",
  tableWrap: "n6owBd",
  code: "r1PmQe",
  chip: "Sv6Kpe hbL65e",
  disclaimer: "rBl3me",
  feedback: "uJ19be",
  feedbackButton: "ya9Iof",
  sitesButton: "gUMPPd",
  panel: "txxDge",
  panelEntry: "MFrAxb",
  panelMeta: "v4bSkd",
  ready: "DBd2Wb",
};

/** A deterministic obfuscated class name (5–6 letters and digits, starting with a letter), like Google's. */
function obfuscated(seed: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < seed.length; index += 1) {
    hash ^= seed.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const alphabet = `${letters}0123456789`;
  let name = letters[hash % letters.length] ?? "a";
  for (let index = 0; index < 4 + (hash % 2); index += 1) {
    hash = Math.imul(hash ^ (hash >>> 13), 0x5bd1e995) >>> 0;
    name += alphabet[hash % alphabet.length] ?? "0";
  }
  return name;
}

/** Class names of a rendering: the observed ones in `classic`/`consent`, names that rotate per scenario in `rotated`. */
export function classesFor(layout: AiModeLayout, scenarioId: string): FragmentClasses {
  if (layout.id !== "rotated") return OBSERVED_CLASSES;
  const name = (role: string): string => obfuscated(`${layout.id}/${scenarioId}/${role}`);
  return {
    container: name("container"),
    turn: name("turn"),
    subtree: name("subtree"),
    thinking: name("thinking"),
    paragraph: name("paragraph"),
    span: name("span"),
    heading: name("heading"),
    list: name("list"),
    listItem: name("listItem"),
    tableWrap: name("tableWrap"),
    code: name("code"),
    chip: name("chip"),
    disclaimer: name("disclaimer"),
    feedback: name("feedback"),
    feedbackButton: name("feedbackButton"),
    sitesButton: name("sitesButton"),
    panel: name("panel"),
    panelEntry: name("panelEntry"),
    panelMeta: name("panelMeta"),
    ready: name("ready"),
  };
}
