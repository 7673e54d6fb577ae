/**
 * The body of `GET /async/folwr` (google_ai_mode.md §3): a `text/html` fragment with the answer container, the citation
 * buttons, the disclaimer, the feedback buttons, the "N sites" panel and the `<!--Sv6Kpe[…]-->` comments that resolve
 * the buttons. Built from a scenario in one of the layouts; exported so tests and fixtures use the exact bytes.
 */
import { type AiModeLayout, classesFor, type FragmentClasses } from "./layouts";
import { type AiModeVariant, NO_VARIANT, sitesLabel } from "./variation";
import {
  type AiModeChip,
  type AiModeScenario,
  type AiModeSource,
  type Block,
  type Inline,
  type PanelEntry,
  type UrlWire,
  chipOrder,
} from "./scenarios";

/** The faults that change the fragment itself (the others are HTTP-level). */
export type FragmentFault = "malformed_stream" | "disconnect" | "empty_answer";

export interface FolwrBody {
  bytes: Uint8Array;
  /** `eof`: the body ends normally; `cut`: the server destroys the connection after the last byte. */
  ending: "eof" | "cut";
}

const LEARN_MORE_URL = "https://support.google.com/websearch?p=ai_mode";
const FEEDBACK_ICON =
  '<svg focusable="false" aria-hidden="true" viewBox="0 0 24 24" width="18" height="18"><path d="M1 21h4V9H1v12z"></path></svg>';

// ---------------------------------------------------------------------------------------------------------------
// Escaping and URLs

const TEXT_REFERENCES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "\u00a0": "&nbsp;",
  "©": "&copy;",
  "—": "&mdash;",
  "€": "&#8364;",
};

/** Text as Google writes it: the HTML specials and a few others as (named or numeric) character references. */
export function escapeText(text: string): string {
  return text.replace(/[&<>"'\u00a0©—€]/g, (char) => TEXT_REFERENCES[char] ?? char);
}

function escapeAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (char) => TEXT_REFERENCES[char] ?? char);
}

/** Percent-encodes what a text fragment directive must not contain raw. */
function textDirective(words: string): string {
  return encodeURIComponent(words).replace(/-/g, "%2D").replace(/,/g, "%2C");
}

function firstWords(text: string, count = 3): string {
  return text.split(/\s+/).slice(0, count).join(" ");
}

/** A stand-in for Google's opaque click-tracking values: derived from the URL so it is deterministic. */
function opaqueToken(seed: string, length: number): string {
  let hash = 2166136261;
  for (let index = 0; index < seed.length; index += 1) hash = Math.imul(hash ^ seed.charCodeAt(index), 16777619) >>> 0;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  let token = "";
  while (token.length < length) {
    hash ^= hash << 13;
    hash ^= hash >>> 17;
    hash ^= hash << 5;
    hash >>>= 0;
    token += alphabet[hash % alphabet.length] ?? "A";
  }
  return token;
}

function withTextFragment(url: string, words: string): string {
  return url.includes("#") ? `${url}:~:text=${textDirective(words)}` : `${url}#:~:text=${textDirective(words)}`;
}

/** How `url` is written on the wire for `wire` (see UrlWire); `words` feed the `#:~:text=` directive. */
export function wireUrl(url: string, wire: UrlWire, words: string): string {
  switch (wire) {
    case "plain":
      return url;
    case "text_fragment":
      return withTextFragment(url, firstWords(words));
    case "redirect":
      return `https://www.google.com/url?q=${encodeURIComponent(url)}&sa=U&ved=2ahUKEwj${opaqueToken(url, 22)}&usg=AOvVaw${opaqueToken(`${url}u`, 22)}`;
    case "relative_redirect":
      return `/url?sa=t&source=web&rct=j&opi=89978449&q=${encodeURIComponent(url)}&ved=2ahUKEwj${opaqueToken(url, 22)}`;
    case "redirect_text_fragment":
      return `https://www.google.com/url?q=${encodeURIComponent(withTextFragment(url, firstWords(words)))}&sa=U&usg=AOvVaw${opaqueToken(url, 22)}`;
  }
}

function faviconUrl(url: string): string {
  return `https://encrypted-tbn0.gstatic.com/faviconV2?url=${new URL(url).origin}&client=AIM&size=128&type=FAVICON&fallback_opts=TYPE,SIZE,URL`;
}

// ---------------------------------------------------------------------------------------------------------------
// Sv6Kpe comments

/** Slot layout of a source record (google_ai_mode.md §2): 39 slots, the date in `[37]`. */
export function sourceRecord(source: AiModeSource): unknown[] {
  const siteName = source.siteName === null ? null : source.siteName === "" ? [] : [source.siteName];
  const record: unknown[] = [
    source.title,
    source.snippet,
    faviconUrl(source.url),
    new URL(source.url).origin,
    siteName,
    wireUrl(source.url, source.wire, source.snippet),
    null,
    null,
    "1",
    null,
    [],
    [],
    0,
    [],
  ];
  while (record.length < 37) record.push(null);
  record.push(source.date, 0);
  return record;
}

/** One `<!--Sv6Kpe[["uuid",[record]]]-->` comment; `<`, `>` and `&` are JSON-escaped as on the real page. */
export function sv6KpeComment(uuid: string, source: AiModeSource): string {
  const json = JSON.stringify([[uuid, sourceRecord(source)]]).replace(
    /[<>&]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `<!--Sv6Kpe${json}-->`;
}

function commentsOfChips(scenario: AiModeScenario, chipKeys: readonly string[]): string {
  if (!scenario.comments) return "";
  const sources = new Map(scenario.sources.map((source) => [source.key, source]));
  const chips = new Map(scenario.chips.map((chip) => [chip.key, chip]));
  return chipKeys
    .flatMap((key) => {
      const chip = chips.get(key);
      if (chip === undefined) return [];
      return chip.sources.flatMap((sourceKey) => {
        const source = sources.get(sourceKey);
        return source === undefined ? [] : [sv6KpeComment(chip.uuid, source)];
      });
    })
    .join("");
}

// ---------------------------------------------------------------------------------------------------------------
// Answer markup

interface RenderContext {
  layout: AiModeLayout;
  classes: FragmentClasses;
  chips: ReadonlyMap<string, AiModeChip>;
  sources: ReadonlyMap<string, AiModeSource>;
}

function chipHtml(chip: AiModeChip, context: RenderContext): string {
  const { classes, layout } = context;
  const label = escapeAttribute(chip.label);
  if (!layout.labelledChips) {
    return `<span class="notranslate"><button class="${classes.chip}" data-icl-uuid="${chip.uuid}" aria-label="${label}"></button></span>`;
  }
  const more = chip.sources.length > 1 ? `<span>+${chip.sources.length - 1}</span>` : "";
  const first = context.sources.get(chip.sources[0] ?? "");
  const favicon = first === undefined ? "" : `<img src="${escapeAttribute(faviconUrl(first.url))}" alt="" width="16" height="16">`;
  return `<span class="notranslate"><button class="${classes.chip}" data-icl-uuid="${chip.uuid}" aria-label="${label}">${favicon}<span>${escapeText(chip.label)}</span>${more}</button></span>`;
}

function inlineHtml(items: readonly Inline[], context: RenderContext): string {
  const { layout } = context;
  return items
    .map((item) => {
      if (typeof item === "string") return escapeText(item);
      if ("strong" in item)
        return layout.id === "rotated"
          ? `<strong>${inlineHtml(item.strong, context)}</strong>`
          : `<b>${inlineHtml(item.strong, context)}</b>`;
      if ("em" in item)
        return layout.id === "rotated" ? `<em>${inlineHtml(item.em, context)}</em>` : `<i>${inlineHtml(item.em, context)}</i>`;
      if ("code" in item) return `<code>${escapeText(item.code)}</code>`;
      if ("link" in item) {
        const href = escapeAttribute(wireUrl(item.link, item.wire, item.text));
        return `<a href="${href}" target="_blank" rel="noopener">${escapeText(item.text)}</a>`;
      }
      if ("googleLink" in item) return `<a href="${escapeAttribute(item.googleLink)}">${escapeText(item.text)}</a>`;
      const chip = context.chips.get(item.chip);
      return chip === undefined ? "" : chipHtml(chip, context);
    })
    .join("");
}

/** Inline content, wrapped in a span in layouts that do so. */
function textHtml(items: readonly Inline[], context: RenderContext): string {
  const inner = inlineHtml(items, context);
  return context.layout.spanWrappedText ? `<span class="${context.classes.span}">${inner}</span>` : inner;
}

function blockHtml(block: Block, context: RenderContext): string {
  const { classes } = context;
  switch (block.kind) {
    case "paragraph":
      return `<div class="${classes.paragraph}">${textHtml(block.inline, context)}</div>`;
    case "heading":
      return `<h${block.level} class="${classes.heading}">${inlineHtml(block.inline, context)}</h${block.level}>`;
    case "bullets": {
      const items = block.items.map((item) => {
        const children =
          item.children === undefined || item.children.length === 0
            ? ""
            : `<ul class="${classes.list}">${item.children.map((child) => `<li class="${classes.listItem}">${textHtml(child, context)}</li>`).join("")}</ul>`;
        return `<li class="${classes.listItem}">${textHtml(item.inline, context)}${children}</li>`;
      });
      return `<ul class="${classes.list}">${items.join("")}</ul>`;
    }
    case "numbered":
      return `<ol class="${classes.list}">${block.items.map((item) => `<li class="${classes.listItem}">${textHtml(item, context)}</li>`).join("")}</ol>`;
    case "table": {
      const head = block.head.map((cell) => `<th>${inlineHtml(cell, context)}</th>`).join("");
      const rows = block.rows.map((row) => `<tr>${row.map((cell) => `<td>${inlineHtml(cell, context)}</td>`).join("")}</tr>`).join("");
      return `<div class="${classes.tableWrap}"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
    }
    case "code":
      return `<div class="${classes.code}"><pre><code>${escapeText(block.text)}</code></pre></div>`;
  }
}

function panelEntryHtml(entry: PanelEntry, context: RenderContext): string {
  const { classes, layout } = context;
  const href = escapeAttribute(wireUrl(entry.url, entry.wire, entry.snippet));
  const title = escapeAttribute(entry.title);
  if (layout.panel === "after-answer") {
    const meta = entry.date === null ? escapeText(entry.snippet) : `${escapeText(entry.date)} — ${escapeText(entry.snippet)}`;
    return `<div class="${classes.panelEntry}"><a target="_blank" rel="noopener" aria-label="${title}" href="${href}"></a><div class="${classes.panelMeta}">${meta}</div><div>${escapeText(entry.publisher)}</div></div>`;
  }
  const date = entry.date === null ? "" : `<span class="${classes.panelMeta}">${escapeText(entry.date)}</span>`;
  return `<li class="${classes.panelEntry}"><a target="_blank" rel="noopener" aria-label="${title}" href="${href}"><div>${escapeText(entry.title)}</div></a>${date}<div>${escapeText(entry.snippet)}</div><div>${escapeText(entry.publisher)}</div></li>`;
}

/** What else shapes a fragment besides the scenario and layout: the page's language and its fuzzed variant. */
export interface FragmentOptions {
  /** The chrome without any answer (the `empty_answer` fault). */
  empty?: boolean;
  /** The `hl` of the request: the "N sites" label is in the page's language. Default `en`. */
  hl?: string;
  /** The page's variant (variation.ts); default none. */
  variant?: AiModeVariant;
}

/** The layout as the variant's sheet alternatives change it (disclaimer wording, comment placement, turn wrapper). */
function variedLayout(layout: AiModeLayout, variant: AiModeVariant): AiModeLayout {
  return {
    ...layout,
    disclaimer:
      variant.disclaimer === "responses_may"
        ? "AI responses may include mistakes."
        : variant.disclaimer === "can_make"
          ? "AI can make mistakes, so double-check responses"
          : layout.disclaimer,
    comments: variant.comments === "layout" ? layout.comments : variant.comments,
    turnWrapper: variant.turnWrapper === "layout" ? layout.turnWrapper : variant.turnWrapper === "present",
  };
}

/** The "N sites" button: its name as aria-label and text, or only one of them (sheet §2 "aria-label / text"). */
function sitesButton(className: string, label: string, form: AiModeVariant["sitesLabel"], dialog: boolean): string {
  const aria = form === "text" ? "" : ` aria-label="${escapeAttribute(label)}"`;
  const popup = dialog ? ' aria-haspopup="dialog"' : "";
  const inner = form === "aria" ? FEEDBACK_ICON : dialog ? `<span>${escapeText(label)}</span>` : escapeText(label);
  return `<button class="${className}"${aria}${popup}>${inner}</button>`;
}

/**
 * The entries of the sources panel as the page shows them, for a list the page builds itself (the `late`, `template`
 * and `on_click` deliveries of variation.ts); one entry per array item so the page can add them in batches.
 */
export function panelEntriesHtml(scenario: AiModeScenario, layout: AiModeLayout): string[] {
  const classes = classesFor(layout, scenario.id);
  const context: RenderContext = {
    layout,
    classes,
    chips: new Map(scenario.chips.map((chip) => [chip.key, chip])),
    sources: new Map(scenario.sources.map((source) => [source.key, source])),
  };
  return (scenario.panel ?? []).map((entry) => panelEntryHtml(entry, context));
}

/** Renders the whole fragment of a scenario in a layout; `empty` renders the chrome without any answer. */
export function renderFolwrFragment(scenario: AiModeScenario, baseLayout: AiModeLayout, options: FragmentOptions = {}): string {
  const variant = options.variant ?? NO_VARIANT;
  const layout = variedLayout(baseLayout, variant);
  const hl = options.hl ?? "en";
  const delivery = variant.panel.delivery;
  const classes = classesFor(layout, scenario.id);
  const chips = new Map(scenario.chips.map((chip) => [chip.key, chip]));
  const sources = new Map(scenario.sources.map((source) => [source.key, source]));
  const context: RenderContext = { layout, classes, chips, sources };
  const blocks = options.empty === true ? [] : scenario.blocks;
  const panel = options.empty === true ? null : scenario.panel;
  const commentScenario = options.empty === true ? { ...scenario, comments: false } : scenario;

  const parts: string[] = [];
  parts.push(
    layout.container === "main-col"
      ? `<div data-container-id="main-col" class="${classes.container}">`
      : `<div class="mZJni ${classes.container}">`,
  );
  if (layout.turnWrapper) parts.push(`<div data-scope-id="turn" class="${classes.turn}">`);
  parts.push(`<div data-subtree="aimc" class="${classes.subtree}">`);
  if (layout.statusTexts) parts.push(`<div class="${classes.thinking}" aria-live="polite"><span>Thinking</span></div>`);

  const seen = new Set<string>();
  for (const block of blocks) {
    parts.push(blockHtml(block, context));
    if (layout.comments === "after-block") {
      const fresh = chipOrder([block]).filter((key) => !seen.has(key));
      for (const key of fresh) seen.add(key);
      const comments = commentsOfChips(commentScenario, fresh);
      if (comments !== "") parts.push(comments);
    }
  }

  const learnMore = layout.disclaimer.startsWith("AI responses") ? ` <a href="${escapeAttribute(LEARN_MORE_URL)}">Learn more</a>` : "";
  parts.push(`<div class="${classes.disclaimer}">${escapeText(layout.disclaimer)}${learnMore}</div>`);
  parts.push(
    `<div class="${classes.feedback}"><button class="${classes.feedbackButton}" aria-label="Helpful">${FEEDBACK_ICON}</button>` +
      `<button class="${classes.feedbackButton}" aria-label="Not helpful">${FEEDBACK_ICON}</button></div>`,
  );
  if (panel !== null && layout.panel === "dialog")
    parts.push(sitesButton(classes.sitesButton, sitesLabel(panel.length, hl), variant.sitesLabel, true));
  if (layout.statusTexts) parts.push(`<span class="${classes.ready}">AI Mode response is ready</span>`);
  parts.push("</div>");
  if (layout.turnWrapper) parts.push("</div>");
  parts.push("</div>");

  if (panel !== null) {
    const listed = panel.map((entry) => panelEntryHtml(entry, context)).join("");
    // template: the entries travel inert until the page builds the list; on_click: the page loads them on opening
    const entries = delivery === "template" ? `<template>${listed}</template>` : delivery === "on_click" ? "" : listed;
    const button = sitesButton(classes.sitesButton, sitesLabel(panel.length, hl), variant.sitesLabel, false);
    parts.push(
      layout.panel === "after-answer"
        ? `<div data-target-container-id="13" class="${classes.panel}">${button}<div>${entries}</div></div>`
        : `<div role="dialog" class="${classes.panel}" hidden><ul>${entries}</ul></div>`,
    );
  }
  if (layout.comments === "end") {
    const comments = commentsOfChips(commentScenario, chipOrder(blocks));
    if (comments !== "") parts.push(comments);
  }
  return `${parts.join("\n")}\n`;
}

/**
 * The bytes the replica sends for an exchange. `malformed_stream` ends normally after a truncated fragment (cut
 * inside the answer, before the disclaimer and feedback buttons); `disconnect` sends the same prefix, then cuts the
 * connection; `empty_answer` is the chrome without an answer.
 */
export function renderFolwrBody(
  scenario: AiModeScenario,
  layout: AiModeLayout,
  fault: FragmentFault | null,
  options: Omit<FragmentOptions, "empty"> = {},
): FolwrBody {
  const encoder = new TextEncoder();
  if (fault === "empty_answer")
    return { bytes: encoder.encode(renderFolwrFragment(scenario, layout, { ...options, empty: true })), ending: "eof" };
  const html = renderFolwrFragment(scenario, layout, options);
  if (fault === null) return { bytes: encoder.encode(html), ending: "eof" };
  return {
    bytes: encoder.encode(truncatedFragment(html, variedLayout(layout, options.variant ?? NO_VARIANT))),
    ending: fault === "disconnect" ? "cut" : "eof",
  };
}

/** The fragment cut at 60% of the way to the disclaimer: inside the answer, usually inside a tag. */
export function truncatedFragment(html: string, layout: AiModeLayout): string {
  const disclaimerAt = html.indexOf(escapeText(layout.disclaimer));
  const end = disclaimerAt > 0 ? disclaimerAt : html.length;
  return html.slice(0, Math.floor(end * 0.6));
}

/**
 * Cuts a body into the 2–5 pieces the real endpoint delivers (more pieces for longer bodies), each cut moved to the
 * next byte inside a multi-byte UTF-8 character when one is near, so that pieces split characters as networks do.
 */
export function splitIntoPieces(bytes: Uint8Array): Uint8Array[] {
  const count = bytes.length < 2 ? 1 : bytes.length < 4_000 ? 2 : bytes.length < 20_000 ? 3 : bytes.length < 80_000 ? 4 : 5;
  const cuts: number[] = [];
  for (let piece = 1; piece < count; piece += 1) {
    let cut = Math.round((bytes.length * piece) / count);
    for (let probe = cut; probe < Math.min(bytes.length - 1, cut + 256); probe += 1) {
      const byte = bytes[probe] ?? 0;
      if (byte >= 0x80 && byte < 0xc0) {
        cut = probe;
        break;
      }
    }
    if (cut > (cuts.at(-1) ?? 0) && cut < bytes.length) cuts.push(cut);
  }
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const cut of cuts) {
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}
