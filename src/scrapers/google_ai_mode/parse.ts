/**
 * Pure parser for Google AI Mode's answer: the `/async/folwr` HTML fragment the page received (google_ai_mode.md §3),
 * captured bytes in, the fields of spec §2.6 out, or a ServiceError saying why there is no answer. Field mapping:
 * google_ai_mode.md §4; failure signatures: §5. The fragment is read with the platform's HTML parser; provider text
 * never reaches an error `detail` (only its `cause`).
 */
import { z } from "@hono/zod-openapi";
import { UnexpectedResultError, UpstreamError, ScraperDriftError } from "../../errors";
import type { StreamCapture } from "../../browser/page/capture/types";
import { nodesToMarkdown } from "../shared/decode/html-to-markdown";
import {
  type AnyNode,
  attributeOf,
  commentsOf,
  type Document,
  type Element,
  isTag,
  parseHtml,
  queryAll,
  queryOne,
  removeNode,
  textOf,
} from "../shared/decode/html";
import { decodeUtf8Chunks } from "../shared/decode/lines";
import { markdownToPlainText } from "../shared/markdown";
import { GOOGLE_AI_MODE_ID, type GoogleAiModeAnswer } from "./declaration";
import {
  ANSWER_CHROME,
  ANSWER_ROOTS,
  BLOCK_SIGNATURES,
  CITATION_CHIP,
  CITATION_UUID_ATTRIBUTE,
  CODE,
  COMPLETION_SELECTORS,
  DISCLAIMERS,
  NOISE_CLASSES,
  PANEL_ROOTS,
  READY_TEXT,
  SITES_LABEL,
  SITES_LABEL_IN_HTML,
  SOURCE_ANCHOR,
  SOURCE_RECORD_COMMENT,
  THINKING_TEXT,
} from "./selectors";
import { hostnameOf, isGoogleUrl, resolveLink, sourceUrl } from "./urls";
import { parseJsonOrUndefined } from "../../util/json-record";

type Citation = GoogleAiModeAnswer["citations"][number];
type SearchResult = GoogleAiModeAnswer["search_results"][number];

/** What the navigation captured for one answer. */
export interface AiModeCapture {
  /** The page's `/async/folwr` exchange. */
  exchange: StreamCapture;
  /**
   * The page showed a finished response after the exchange ended (`data-complete="true"`, feedback buttons or the
   * disclaimer in the DOM): the completion signal when the fragment itself carries none of them.
   */
  pageCompleted: boolean;
  /**
   * The entries of the "N sites" panel as the page showed them once opened (navigation's panel.ts), raw; null or absent
   * when the page had no panel button or was not read (older capture files).
   */
  panel?: PanelEntrySnapshot[] | null;
}

/** One entry of the sources panel as read in the page: its `aria-label`, text and `href`, unchanged. */
export const PanelEntrySnapshotSchema = z.object({ label: z.string().nullable(), text: z.string(), href: z.string() });
export type PanelEntrySnapshot = z.infer<typeof PanelEntrySnapshotSchema>;

/** Whether the fragment carries an "N sites" button (as a label or as text), so the page should show one. */
export function fragmentHasSitesButton(exchange: StreamCapture): boolean {
  const body = decodeUtf8Chunks(exchange.chunks);
  return SITES_LABEL_IN_HTML.test(body);
}

const DETAIL = {
  challenge: "Google answered with its unusual-traffic check (CAPTCHA). Safe to retry, ideally later or from another session.",
  login: "Google asked the browser session to sign in before answering in AI Mode.",
  rateLimit: "Google AI Mode is rate limiting this session. Safe to retry later.",
  unreachable: "Google could not be reached. Safe to retry.",
  httpError: "Google AI Mode's answer request failed. Safe to retry.",
  truncated: "Google AI Mode's answer ended before it was complete. Safe to retry.",
  empty: "Google AI Mode returned an empty answer. Safe to retry.",
} as const;

/** Longest text an element may have and still be only the disclaimer (its wording plus a "Learn more" link). */
const DISCLAIMER_MAX_CHARS = 160;
const SUPPORT_HOST = "support.google.com";
const BLOCK_ELEMENTS = new Set(["div", "p", "footer", "section", "aside"]);

/**
 * Parses the captured folwr exchange.
 *
 * - `result_markdown`: the AI response subtree (`[data-subtree="aimc"]`, else the answer container) converted to
 *   markdown after removing the chrome: buttons (citation chips, feedback, "N sites"), icons, hidden content, the
 *   sources panel, the disclaimer, "Thinking", the screen-reader "ready" text and the sheet's noise classes. Links to
 *   Google's own pages keep their text only; `/url?q=` links are unwrapped.
 * - `result`: the plain text of that markdown.
 * - `citations`: citation chips in order of first appearance, each resolved through the `Sv6Kpe` records of its uuid
 *   (title `[0]`, url `[5]`, site name `[4][0]` else the hostname of `[3]`), de-duplicated by url. When no chip
 *   resolves (the comments are absent), the panel's entries stand in, named by their hostname.
 * - `search_results`: every entry of the "N sites" panel, in order, de-duplicated by url: the panel as the page showed
 *   it once opened when that lists more entries than the fragment (a list built or loaded on opening), else the
 *   fragment's. Both are read with the same rules (title from `aria-label`, url normalised by `sourceUrl`).
 * - One URL rule for every field (`sourceUrl`: `/url?q=` unwrapped, `#:~:text=` removed): citations, search results
 *   and the links of `result_markdown`.
 * - The answer is complete when the body ended normally and a finished-response marker is in the fragment
 *   (`data-complete="true"`, the feedback buttons, the disclaimer or the "ready" text) or was seen in the page.
 *
 * @throws UpstreamError for a non-200 answer, a CAPTCHA page, a sign-in demand, a broken or truncated fragment;
 *   ScraperDriftError when the fragment has no answer container; UnexpectedResultError for an empty answer.
 */
export function parseAiModeCapture(capture: AiModeCapture): GoogleAiModeAnswer {
  const { exchange } = capture;
  const body = decodeUtf8Chunks(exchange.chunks);
  const document = parseHtml(body);
  const cause = (what: string): Error =>
    new Error(`google_ai_mode folwr: ${what} (HTTP ${exchange.status}, complete=${exchange.complete}, error=${exchange.error ?? "none"})`);

  const root = answerRoot(document);
  // an answer may well talk about CAPTCHAs: only a page without an answer can be the challenge page
  const challengePage = root === null && isChallengePage(document);
  if (exchange.status !== 200) throw httpFailure(exchange.status, challengePage, cause("non-200 answer"));
  if (challengePage) throw new UpstreamError(DETAIL.challenge, { retryable: true, cause: cause("challenge page"), reason: "challenge" });
  if (!exchange.complete) throw new UpstreamError(DETAIL.truncated, { retryable: true, cause: cause("body broke off") });

  if (root === null) {
    if (textOf(document).trim() === "") throw new UnexpectedResultError(DETAIL.empty, cause("blank body"));
    throw new ScraperDriftError(GOOGLE_AI_MODE_ID, "answer_container_missing", "the folwr fragment has none of the answer anchors");
  }
  if (!hasCompletionMarker(document) && !capture.pageCompleted) {
    throw new UpstreamError(DETAIL.truncated, { retryable: true, cause: cause("no completion marker") });
  }

  const panel = choosePanel(panelEntries(document, root), capture.panel ?? []);
  const citations = citationsOf(citationUuids(root), sourceRecords(document), panel);

  cleanAnswer(root);
  const markdown = tidyMarkdown(nodesToMarkdown(root.children));
  if (markdown === "") throw new UnexpectedResultError(DETAIL.empty, cause("no answer text"));
  return {
    result: markdownToPlainText(markdown),
    result_markdown: markdown,
    citations,
    search_results: panel.map(({ title, url }) => ({ title, url })),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Failures

function httpFailure(status: number, challengePage: boolean, cause: Error): UpstreamError {
  if (status === 0) return new UpstreamError(DETAIL.unreachable, { retryable: true, cause });
  // the /sorry/ page (any status) is the unusual-traffic check; 403 the same block without the page; a bare 429 is a
  // rate limit (sheet §5: the challenge is the /sorry/ page with its CAPTCHA form and text)
  if (challengePage || status === 403) return new UpstreamError(DETAIL.challenge, { retryable: true, cause, reason: "challenge" });
  if (status === 429) return new UpstreamError(DETAIL.rateLimit, { retryable: true, cause, reason: "rate_limited" });
  if (status === 401) return new UpstreamError(DETAIL.login, { retryable: false, cause, reason: "login_wall" });
  return new UpstreamError(DETAIL.httpError, { retryable: true, cause });
}

function isChallengePage(document: Document): boolean {
  if (BLOCK_SIGNATURES.challenge.selectors.some((selector) => queryOne(document, selector) !== null)) return true;
  const text = textOf(document);
  return BLOCK_SIGNATURES.challenge.text.some((pattern) => pattern.test(text));
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the fragment

function answerRoot(document: Document): Element | null {
  for (const anchor of ANSWER_ROOTS) {
    const root = queryOne(document, anchor);
    if (root !== null) return root;
  }
  return null;
}

function normalisedText(node: AnyNode): string {
  return textOf(node).replace(/\s+/g, " ").trim();
}

function hasCompletionMarker(document: Document): boolean {
  if (COMPLETION_SELECTORS.some((selector) => queryOne(document, selector) !== null)) return true;
  const text = normalisedText(document);
  return DISCLAIMERS.some((phrase) => text.includes(phrase)) || /AI Mode response is ready/i.test(text);
}

/** The uuids of the citation chips in the answer, in order of first appearance. */
function citationUuids(root: Element): string[] {
  const uuids: string[] = [];
  for (const chip of queryAll(root, CITATION_CHIP)) {
    const uuid = attributeOf(chip, CITATION_UUID_ATTRIBUTE)?.trim() ?? "";
    if (uuid !== "" && !uuids.includes(uuid)) uuids.push(uuid);
  }
  return uuids;
}

/** uuid → source records, from every `<!--Sv6Kpe[["uuid",[record]], …]-->` comment; unreadable comments are skipped. */
function sourceRecords(document: Document): Map<string, unknown[][]> {
  const records = new Map<string, unknown[][]>();
  const add = (pair: unknown): void => {
    if (!Array.isArray(pair)) return;
    const [uuid, record] = pair;
    if (typeof uuid !== "string" || !Array.isArray(record)) return;
    const key = uuid.trim();
    records.set(key, [...(records.get(key) ?? []), record]);
  };
  for (const comment of commentsOf(document)) {
    const data = comment.trim();
    if (!data.startsWith(SOURCE_RECORD_COMMENT)) continue;
    const parsed = parseJsonOrUndefined(data.slice(SOURCE_RECORD_COMMENT.length));
    if (!Array.isArray(parsed)) continue;
    // a list of [uuid, record] pairs; a bare pair is accepted too
    if (typeof parsed[0] === "string") add(parsed);
    else for (const pair of parsed) add(pair);
  }
  return records;
}

function toCitation(record: unknown[]): Citation | null {
  const page = stringOrNull(record[5]);
  const root = stringOrNull(record[3]);
  const url = (page !== null ? sourceUrl(page) : null) ?? (root !== null ? sourceUrl(root) : null);
  if (url === null) return null;
  const siteNames = record[4];
  const named = Array.isArray(siteNames) ? stringOrNull(siteNames[0]) : null;
  const websiteName = named ?? hostnameOf(root !== null ? (sourceUrl(root) ?? url) : url) ?? url;
  return { title: stringOrNull(record[0]) ?? websiteName, url, website_name: websiteName };
}

function citationsOf(uuids: readonly string[], records: ReadonlyMap<string, unknown[][]>, panel: readonly PanelEntry[]): Citation[] {
  const resolved = uuids.flatMap((uuid) => (records.get(uuid) ?? []).map(toCitation));
  const citations = uniqueBy(resolved, (citation) => citation.url);
  if (citations.length > 0 || uuids.length === 0) return citations;
  // chips whose records are missing: the sheet's fallback is the sources panel
  return panel.map(({ title, url }) => ({ title, url, website_name: hostnameOf(url) ?? url }));
}

type PanelEntry = SearchResult;

/** A panel entry from its anchor's parts; null when the href is not a source URL. */
function panelEntryOf(label: string | null, text: string, href: string): PanelEntry | null {
  const url = sourceUrl(href);
  if (url === null) return null;
  const title = (label ?? "").replace(/\s+/g, " ").trim() || text.replace(/\s+/g, " ").trim() || url;
  return { title, url };
}

/** The page's list when it shows more entries than the fragment's (built or loaded on opening), else the fragment's. */
function choosePanel(fromFragment: readonly PanelEntry[], fromPage: readonly PanelEntrySnapshot[]): PanelEntry[] {
  const page = uniqueBy(
    fromPage.map((entry) => panelEntryOf(entry.label, entry.text, entry.href)),
    (entry) => entry.url,
  );
  return page.length > fromFragment.length ? page : [...fromFragment];
}

/**
 * The sources panel's entries. The panel is a `[role="dialog"]`, a `[data-target-container-id]` container, or the
 * parent of the "N sites" button; without any of them, every source-like anchor outside the answer counts.
 */
function panelEntries(document: Document, answer: Element): PanelEntry[] {
  const roots = new Set<Element>(PANEL_ROOTS.flatMap((selector) => queryAll(document, selector)));
  for (const button of queryAll(document, 'button, [role="button"]')) {
    const label = attributeOf(button, "aria-label") ?? normalisedText(button);
    const parent = button.parent;
    if (SITES_LABEL.test(label) && parent !== null && isTag(parent) && queryOne(parent, SOURCE_ANCHOR) !== null) roots.add(parent);
  }
  const anchors = queryAll(document, SOURCE_ANCHOR).filter((anchor) =>
    roots.size > 0 ? hasAncestorIn(anchor, roots) : !hasAncestorIn(anchor, new Set([answer])),
  );
  const entries = anchors.map((anchor) =>
    panelEntryOf(attributeOf(anchor, "aria-label") ?? null, textOf(anchor), attributeOf(anchor, "href") ?? ""),
  );
  return uniqueBy(entries, (entry) => entry.url);
}

function hasAncestorIn(node: AnyNode, ancestors: ReadonlySet<AnyNode>): boolean {
  for (let current = node.parent; current !== null; current = current.parent) if (ancestors.has(current)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Cleaning the answer

/** Removes the page chrome from the answer subtree (in place) and rewrites its links; see parseAiModeCapture. */
function cleanAnswer(root: Element): void {
  for (const selector of ANSWER_CHROME) removeWithin(root, queryAll(root, selector));
  const noise = NOISE_CLASSES.flatMap((selector) => queryAll(root, selector));
  removeWithin(
    root,
    noise.filter((element) => !["pre", "code"].includes(element.name) && queryOne(element, CODE) === null),
  );
  removeWithin(
    root,
    queryAll(root, "[aria-label]").filter((element) => SITES_LABEL.test(attributeOf(element, "aria-label") ?? "")),
  );
  removeSupportFooters(root);
  removeWithin(
    root,
    queryAll(root, "*").filter((element) => {
      const text = normalisedText(element);
      return THINKING_TEXT.test(text) || READY_TEXT.test(text) || isDisclaimer(text);
    }),
  );
  for (const link of queryAll(root, "a[href]")) rewriteLink(link);
}

/**
 * The disclaimer in another language: a short block whose only link goes to Google's help centre ("Learn more").
 * Longer blocks keep their text and lose only the link (see rewriteLink).
 */
function removeSupportFooters(root: Element): void {
  for (const link of queryAll(root, "a[href]")) {
    const target = resolveLink(attributeOf(link, "href") ?? "");
    if (target === null || target.hostname !== SUPPORT_HOST) continue;
    let block = link.parent;
    while (block !== null && block !== root && !(isTag(block) && BLOCK_ELEMENTS.has(block.name))) block = block.parent;
    if (block === null || block === root || !isTag(block)) continue;
    if (normalisedText(block).length <= DISCLAIMER_MAX_CHARS && queryAll(block, "a[href]").length === 1) removeWithin(root, [block]);
  }
}

function isDisclaimer(text: string): boolean {
  return text.length <= DISCLAIMER_MAX_CHARS && DISCLAIMERS.some((phrase) => text.startsWith(phrase));
}

/** Detaches elements that are still inside `root` (outer ones first, so nested matches go with them). */
function removeWithin(root: Element, elements: readonly Element[]): void {
  for (const element of elements) if (element !== root && hasAncestorIn(element, new Set([root]))) removeNode(element);
}

/**
 * A link keeps the URL `sourceUrl` gives it (the rule of citations and search results: `/url?q=` unwrapped, text
 * fragment removed); a link to Google's own pages, or to nothing usable, becomes its text. Other schemes (mailto:)
 * stay as written.
 */
function rewriteLink(link: Element): void {
  const href = attributeOf(link, "href") ?? "";
  const resolved = resolveLink(href);
  if (resolved === null) return;
  const url = sourceUrl(href);
  const target = url === null ? null : resolveLink(url);
  if (url !== null && target !== null && !isGoogleUrl(target)) {
    link.attribs.href = url;
    return;
  }
  if (url !== null || isGoogleUrl(resolved) || resolved.protocol === "http:" || resolved.protocol === "https:") unwrap(link);
}

/** Replaces an element by its children. */
function unwrap(element: Element): void {
  const parent = element.parent;
  if (parent === null) return;
  const index = parent.children.indexOf(element);
  const children = [...element.children];
  for (const child of children) child.parent = parent;
  parent.children.splice(index, 1, ...children);
  // keep the sibling links consistent for the serialiser and css-select
  for (let position = 0; position < parent.children.length; position += 1) {
    const node = parent.children[position];
    if (node === undefined) continue;
    node.prev = parent.children[position - 1] ?? null;
    node.next = parent.children[position + 1] ?? null;
  }
  element.parent = null;
  element.prev = null;
  element.next = null;
  element.children = [];
}

/**
 * Trailing spaces left where chrome was removed are dropped at the end of a paragraph (a line followed by a blank
 * line or by nothing); a line break inside a paragraph keeps its two spaces. Code blocks are left as they are.
 */
function tidyMarkdown(markdown: string): string {
  const lines = markdown.split("\n");
  let inFence = false;
  const tidied = lines.map((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (inFence) return line;
    const next = lines[index + 1];
    return next === undefined || next.trim() === "" ? line.trimEnd() : line;
  });
  return tidied.join("\n").trim();
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

function stringOrNull(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.replace(/\s+/g, " ").trim();
  return text === "" ? null : text;
}

function uniqueBy<T>(items: ReadonlyArray<T | null>, key: (item: T) => string): T[] {
  const seen = new Set<string>();
  const unique: T[] = [];
  for (const item of items) {
    if (item === null) continue;
    const id = key(item);
    if (seen.has(id)) continue;
    seen.add(id);
    unique.push(item);
  }
  return unique;
}
