/**
 * Citations of a Gemini answer, read from the DOM (gemini.md §2, §4): the wire does not name its sources, the page
 * renders them as inline chips (`sources-carousel-inline > source-inline-chip`, older `source-footnote` /
 * `sup.superscript`) and source cards (`inline-source-card` in the side panel, a dialog or the `sources-list`).
 *
 * - One citation per distinct source a chip cites, in order of its first chip (gemini.md §4). A card no chip points at
 *   (a panel or list may show more sources than the answer cites) is not a citation.
 * - A chip names its site (`span.source-title`, else the aria-label "…citation from <Site>. …"); it is matched to the
 *   card of that site (card site text, else the URL's host), footnotes by their number; what stays unmatched is paired
 *   in order with unclaimed cards that show no site of their own. A chip without any card has no URL and is left out.
 * - `highlights`: for every chip of the source, the answer text it marks: the sentence (or clause) that ends at the
 *   chip, starting after the previous chip of the same block; a chip right after another repeats that one's span.
 *   The block is the nearest paragraph, list item, table cell, heading or quote that holds text besides chips: a chip
 *   inside wrapper elements (`div`, `span`, `display: contents`) counts for the sentence around the wrapper, in list
 *   items and table cells as anywhere else.
 * - Card fields are read leniently (class names inside cards are not part of the sheet): the link is the first http(s)
 *   `a[href]`; site, title and snippet come from class hints when present, else from the order of the card's texts.
 */
import type { AnyNode, Element } from "../shared/decode/html";
import { attributeOf, isTag, isText, parseHtml, queryAll, queryOne, textOf } from "../shared/decode/html";
import { GEMINI_DOM } from "./selectors";
import { hostOf, normaliseSourceUrl } from "./source-url";

export interface GeminiCitation {
  title: string;
  url: string;
  snippet: string;
  website_name: string;
  highlights: string[];
}

/** What the navigation snapshots of the page once the answer settled. */
export interface GeminiPageSnapshot {
  /** outerHTML of the newest `model-response` (answer, chips, an end-of-answer `sources-list`). */
  responseHtml: string | null;
  /** outerHTML of every `inline-source-card` outside that response (side panel, dialogs). */
  sourceCardsHtml: readonly string[];
  /** outerHTML of the mode picker button. */
  modePickerHtml: string | null;
}

/** A chip: the site it names and, for numbered footnotes, the card number. */
interface ChipRef {
  site: string | null;
  number: number | null;
}

interface CitationPoint {
  chips: ChipRef[];
  span: string;
}

interface SourceCard {
  url: string;
  title: string | null;
  site: string | null;
  snippet: string;
}

const BLOCK_TAGS = new Set([
  "p",
  "li",
  "td",
  "th",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "blockquote",
  "dd",
  "dt",
  "figcaption",
  "caption",
  "pre",
  "div",
]);
/** Blocks a sentence cannot run across (a `div` is only a wrapper here; it still separates text in textBefore). */
const TEXT_BLOCK_TAGS = new Set([...BLOCK_TAGS].filter((tag) => tag !== "div"));
const SKIPPED_TAGS = new Set(["script", "style", "template", "mat-icon", "button", "img", "svg"]);
const CITATION_TAGS = new Set(["sources-carousel-inline", "source-inline-chip", "source-footnote"]);
/** Marks a block boundary in the text before a citation: a sentence never runs across it. */
const BLOCK_BREAK = "\u2029";
const CITATION_LABEL = /citation from\s+(.+)$/i;
const LABEL_SUFFIX = /\.\s*(?:Opens side panel|Press Enter to open sources dialog)\.?\s*$/i;
const TITLE_CLASS = /(?:^|[-_])(?:title|headline|heading)(?:$|[-_])/i;
const SITE_CLASS = /(?:^|[-_])(?:site|domain|host|publisher|attribution|source-name|display-url)(?:$|[-_])/i;
const SNIPPET_CLASS = /(?:^|[-_])(?:snippet|description|summary|excerpt|abstract)(?:$|[-_])/i;

export function readGeminiCitations(snapshot: GeminiPageSnapshot): GeminiCitation[] {
  const response = snapshot.responseHtml === null ? null : parseHtml(snapshot.responseHtml);
  const panel = response === null ? null : answerPanel(response);
  const points = panel === null ? [] : citationPoints(panel);
  const knownSites = new Set(points.flatMap((point) => point.chips.flatMap((chip) => (chip.site === null ? [] : [nameKey(chip.site)]))));

  const cardElements = [
    ...(response === null ? [] : queryAll(response, GEMINI_DOM.sourceCard)),
    ...snapshot.sourceCardsHtml.flatMap((html) => queryAll(parseHtml(html), GEMINI_DOM.sourceCard)),
  ];
  let cards = uniqueCards(cardElements.map((element) => readCard(element, knownSites)));
  if (cards.length === 0 && response !== null)
    cards = uniqueCards(queryAll(response, `${GEMINI_DOM.sourcesList} a[href]`).map(readListLink));

  return resolveCitations(points, cards);
}

// ---------------------------------------------------------------------------------------------------------------
// Chips and the spans they mark

function answerPanel(root: AnyNode): Element | null {
  for (const selector of GEMINI_DOM.answerPanel) {
    const found = queryOne(root, selector);
    if (found !== null) return found;
  }
  return null;
}

function isCitationMarkup(element: Element): boolean {
  if (CITATION_TAGS.has(element.name)) return true;
  return element.name === "sup" && classTokens(element).includes("superscript");
}

/** The outermost citation elements of the answer, in document order, each with its chips and highlight span. */
function citationPoints(panel: Element): CitationPoint[] {
  const outermost = queryAll(panel, GEMINI_DOM.citationMarkup).filter((element) => !hasCitationAncestor(element, panel));
  const points: CitationPoint[] = [];
  const lastInBlock = new Map<Element, { before: string; span: string }>();
  for (const element of outermost) {
    const block = nearestBlock(element, panel);
    const before = collapseWhitespace(textBefore(block, element)).replace(/^ /, "");
    const previous = lastInBlock.get(block);
    const start = Math.max(sentenceStart(before), previous?.before.length ?? 0);
    let span = collapseWhitespace(before.slice(start).replaceAll(BLOCK_BREAK, " ")).trim();
    if (span === "") span = previous?.span ?? collapseWhitespace(textOutsideCitations(block)).trim();
    lastInBlock.set(block, { before, span });
    points.push({ chips: chipsOf(element), span });
  }
  return points;
}

function hasCitationAncestor(element: Element, panel: Element): boolean {
  for (let node = element.parent; node !== null && node !== panel; node = node.parent) {
    if (isTag(node) && isCitationMarkup(node)) return true;
  }
  return false;
}

/**
 * The block whose sentence a citation ends: the nearest text block (not a bare `div`, which sites use as wrappers) that
 * holds text outside citations; the panel when none does (a wrapper that an HTML parser closed early leaves the chip
 * after its sentence's block: the panel's text before the chip still ends with that sentence).
 */
function nearestBlock(element: Element, panel: Element): Element {
  for (let node = element.parent; node !== null && node !== panel; node = node.parent) {
    if (isTag(node) && TEXT_BLOCK_TAGS.has(node.name) && collapseWhitespace(textOutsideCitations(node)).trim() !== "") return node;
  }
  return panel;
}

/** Text of `block` before `point` in document order, without other citations and page chrome. */
function textBefore(block: Element, point: Element): string {
  let text = "";
  let reached = false;
  const visit = (node: AnyNode): void => {
    if (reached) return;
    if (node === point) {
      reached = true;
      return;
    }
    if (isText(node)) {
      text += node.data;
      return;
    }
    if (!isTag(node) || isCitationMarkup(node) || isChrome(node)) return;
    const boundary = BLOCK_TAGS.has(node.name) && node !== block;
    if (boundary) text += BLOCK_BREAK;
    for (const child of node.children) visit(child);
    if (boundary && !reached) text += BLOCK_BREAK;
  };
  visit(block);
  return text;
}

function textOutsideCitations(block: Element): string {
  let text = "";
  const visit = (node: AnyNode): void => {
    if (isText(node)) text += node.data;
    else if (isTag(node) && !isCitationMarkup(node) && !isChrome(node)) for (const child of node.children) visit(child);
  };
  visit(block);
  return text;
}

function isChrome(element: Element): boolean {
  return SKIPPED_TAGS.has(element.name) || classTokens(element).includes("cdk-visually-hidden");
}

/**
 * Where the sentence ending at the end of `text` starts: after the last sentence terminator followed by a space (or
 * an ideographic full stop) before the sentence's own closing punctuation.
 */
function sentenceStart(text: string): number {
  const body = text.trimEnd().replace(/[.!?。！？…]+["'”’)\]]*$/u, "");
  let start = 0;
  for (const match of body.matchAll(/[.!?…]+["'”’)\]]*\s+|[。！？]+|\u2029/gu)) start = match.index + match[0].length;
  return start;
}

function chipsOf(element: Element): ChipRef[] {
  if (element.name === "sources-carousel-inline") {
    const chips = queryAll(element, GEMINI_DOM.chip);
    if (chips.length > 0) return chips.map(chipRef);
    const labelled = queryAll(element, "[aria-label]").filter((node) => CITATION_LABEL.test(attributeOf(node, "aria-label") ?? ""));
    if (labelled.length > 0) return labelled.map(chipRef);
  }
  return [chipRef(element)];
}

function chipRef(chip: Element): ChipRef {
  const titled = queryOne(chip, GEMINI_DOM.chipSiteName);
  let site =
    titled === null
      ? ""
      : collapseWhitespace(textOf(titled))
          .trim()
          .replace(/\s*\+\s*\d+$/, "");
  if (site === "") {
    const labels = [chip, ...queryAll(chip, "[aria-label]")].map((node) => attributeOf(node, "aria-label") ?? "");
    site = labels.map(siteFromLabel).find((name) => name !== null) ?? "";
  }
  const text = collapseWhitespace(textOf(chip)).trim();
  const numbered = /^\[?(\d{1,3})\]?$/.exec(text);
  return { site: site === "" ? null : site, number: site === "" && numbered !== null ? Number(numbered[1]) : null };
}

/** "View source details for citation from <Site>. Opens side panel." → "<Site>". */
function siteFromLabel(label: string): string | null {
  const match = CITATION_LABEL.exec(label.trim());
  if (match === null) return null;
  const rest = match[1] ?? "";
  const withoutSuffix = rest.replace(LABEL_SUFFIX, "");
  const site = (withoutSuffix !== rest ? withoutSuffix : rest.replace(/\.\s.*$/, "")).replace(/\.$/, "").trim();
  return site === "" ? null : site;
}

// ---------------------------------------------------------------------------------------------------------------
// Source cards

interface TextBlock {
  text: string;
  element: Element;
}

function readCard(card: Element, knownSites: ReadonlySet<string>): SourceCard | null {
  const links = [card, ...queryAll(card, "a[href]")].filter((node) => attributeOf(node, "href") !== null);
  let url: string | null = null;
  let link: Element | null = null;
  for (const candidate of links) {
    url = normaliseSourceUrl(attributeOf(candidate, "href") ?? "");
    if (url !== null) {
      link = candidate;
      break;
    }
  }
  if (url === null) return null;

  const blocks = textBlocks(card);
  const hinted = (pattern: RegExp): TextBlock | undefined => blocks.find((block) => hasClassHint(block.element, card, pattern));
  const siteBlock =
    blocks.find((block) => knownSites.has(nameKey(block.text))) ??
    hinted(SITE_CLASS) ??
    blocks.find((block) => classTokens(block.element).includes("source-title")) ??
    blocks.find((block) => /^[\w-]+(\.[\w-]+)+$/.test(block.text));
  const others = blocks.filter((block) => block !== siteBlock);
  const linkBlocks = link === null || link === card ? [] : others.filter((block) => contains(link, block.element));
  const titleBlock =
    others.find((block) => hasClassHint(block.element, card, TITLE_CLASS)) ??
    others.find((block) => /^h[1-6]$/.test(block.element.name) || attributeOf(block.element, "role") === "heading") ??
    (linkBlocks.length === 1 ? linkBlocks[0] : undefined) ??
    others[0];
  const rest = others.filter((block) => block !== titleBlock);
  const snippetBlock = rest.find((block) => hasClassHint(block.element, card, SNIPPET_CLASS));
  const snippet = snippetBlock !== undefined ? snippetBlock.text : rest.map((block) => block.text).join(" ");
  return { url, title: titleBlock?.text ?? null, site: siteBlock?.text ?? null, snippet };
}

/** A plain link of a `sources-list` (when the page renders no cards): its text is the title. */
function readListLink(anchor: Element): SourceCard | null {
  const url = normaliseSourceUrl(attributeOf(anchor, "href") ?? "");
  if (url === null) return null;
  const title = collapseWhitespace(textOf(anchor)).trim();
  return { url, title: title === "" ? null : title, site: null, snippet: "" };
}

/** Outermost elements with text of their own, in document order, with their whole text (inline markup included). */
function textBlocks(root: Element): TextBlock[] {
  const blocks: TextBlock[] = [];
  const visit = (element: Element): void => {
    if (isChrome(element)) return;
    const ownText = element.children.some((child) => isText(child) && child.data.trim() !== "");
    if (ownText) {
      const text = collapseWhitespace(textOutsideCitations(element)).trim();
      if (text !== "") blocks.push({ text, element });
      return;
    }
    for (const child of element.children) if (isTag(child)) visit(child);
  };
  visit(root);
  return blocks;
}

function hasClassHint(element: Element, card: Element, pattern: RegExp): boolean {
  for (
    let node: Element | null = element;
    node !== null && node !== card;
    node = node.parent !== null && isTag(node.parent) ? node.parent : null
  ) {
    if (classTokens(node).some((token) => token !== "source-title" && pattern.test(token))) return true;
  }
  return false;
}

function contains(ancestor: Element, element: Element): boolean {
  for (let node: AnyNode | null = element; node !== null; node = node.parent) if (node === ancestor) return true;
  return false;
}

/** Cards by URL, first occurrence first; a later copy fills fields the first one lacks. */
function uniqueCards(cards: (SourceCard | null)[]): SourceCard[] {
  const byUrl = new Map<string, SourceCard>();
  for (const card of cards) {
    if (card === null) continue;
    const known = byUrl.get(card.url);
    if (known === undefined) byUrl.set(card.url, card);
    else
      byUrl.set(card.url, {
        url: card.url,
        title: known.title ?? card.title,
        site: known.site ?? card.site,
        snippet: known.snippet || card.snippet,
      });
  }
  return [...byUrl.values()];
}

// ---------------------------------------------------------------------------------------------------------------
// Chips → cards → citations

interface CitedSource {
  key: string;
  chip: ChipRef;
  highlights: string[];
  card: SourceCard | null;
}

function resolveCitations(points: CitationPoint[], cards: SourceCard[]): GeminiCitation[] {
  const sources = new Map<string, CitedSource>();
  for (const point of points) {
    for (const chip of point.chips) {
      const key = chip.site !== null ? `site:${nameKey(chip.site)}` : chip.number !== null ? `number:${chip.number}` : null;
      if (key === null) continue;
      let source = sources.get(key);
      if (source === undefined) {
        source = { key, chip, highlights: [], card: null };
        sources.set(key, source);
      }
      if (point.span !== "" && !source.highlights.includes(point.span)) source.highlights.push(point.span);
    }
  }

  const claimed = new Set<SourceCard>();
  const claim = (source: CitedSource, card: SourceCard | undefined): void => {
    if (card === undefined || claimed.has(card)) return;
    source.card = card;
    claimed.add(card);
  };
  const chipNames = new Set([...sources.values()].flatMap((source) => (source.chip.site === null ? [] : [nameKey(source.chip.site)])));
  for (const source of sources.values()) {
    const { site, number } = source.chip;
    if (number !== null) claim(source, cards[number - 1]);
    else if (site !== null)
      claim(
        source,
        cards.find((card) => !claimed.has(card) && card.site !== null && nameKey(card.site) === nameKey(site)),
      );
  }
  for (const source of sources.values()) {
    const site = source.chip.site;
    if (source.card === null && site !== null)
      claim(
        source,
        cards.find((card) => !claimed.has(card) && hostMatches(card.url, site)),
      );
  }
  // What is still unmatched pairs up, in order, with cards that name no site of their own and no chip's host.
  const spare = cards.filter(
    (card) => !claimed.has(card) && card.site === null && ![...chipNames].some((name) => hostMatches(card.url, name)),
  );
  for (const source of sources.values()) if (source.card === null) claim(source, spare.shift());

  const citations: GeminiCitation[] = [];
  const byUrl = new Map<string, GeminiCitation>();
  const add = (card: SourceCard, websiteName: string | null, highlights: string[]): void => {
    const known = byUrl.get(card.url);
    if (known !== undefined) {
      for (const span of highlights) if (!known.highlights.includes(span)) known.highlights.push(span);
      return;
    }
    const website = websiteName ?? card.site ?? hostOf(card.url);
    const citation = {
      title: card.title ?? website,
      url: card.url,
      snippet: card.snippet,
      website_name: website,
      highlights: [...highlights],
    };
    byUrl.set(card.url, citation);
    citations.push(citation);
  };
  for (const source of sources.values()) if (source.card !== null) add(source.card, source.chip.site, source.highlights);
  return citations;
}

/** Whether a site name is the URL's host's main label ("Wikipedia" ~ en.wikipedia.org, "NASA Science" ~ science.nasa.gov). */
function hostMatches(url: string, site: string): boolean {
  const labels = hostOf(url).toLowerCase().split(".");
  const main = labels.length >= 3 && /^(?:co|com|org|net|gov|ac|edu)$/.test(labels.at(-2) ?? "") ? labels.at(-3) : labels.at(-2);
  if (main === undefined || main.length < 3) return false;
  return nameKey(site).replace(/ /g, "").includes(main);
}

// ---------------------------------------------------------------------------------------------------------------
// Text helpers

function classTokens(element: Element): string[] {
  return (attributeOf(element, "class") ?? "").split(/\s+/).filter((token) => token !== "");
}

/** Runs of whitespace become one space; a block break (with the whitespace around it) stays one block break. */
function collapseWhitespace(text: string): string {
  return text.replace(/[^\S\u2029]+/g, " ").replace(/ ?\u2029[\s\u2029]*/g, BLOCK_BREAK);
}

/** Case-, punctuation- and whitespace-insensitive form of a site name. */
function nameKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}
