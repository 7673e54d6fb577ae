/**
 * Pure parser for Rufus's answer stream (`POST /rufus/cl/streaming`): the captured bytes in, the fields of spec §2.6
 * (shopping assistant) out, or a ServiceError saying why there is no answer. Wire format and mapping:
 * amazon_rufus.md §3–§5.
 *
 * The stream is SSE-style blocks. `inference` events carry JSON patches of one UI node tree per `groupId`;
 * `affordance` events carry HTML (the question echo and the follow-up pills). The answer is the state of the trees
 * once the HTTP response has ended (there is no end event):
 * - `result_markdown`: the text of every `markdown_processor_*` group (its last value; later patches rewrite it), in the
 *   order the groups first appeared, joined by a blank line. Product cards are not repeated in the text (they are the
 *   `products` field); only an answer that has cards and no prose at all gets a list of the product titles, so that
 *   `result` is never empty when Rufus did answer.
 * - `products`: one per distinct ASIN, in card order (`asin_cards_*` groups in order of appearance, cards in tree
 *   order); the first card of an ASIN gives all its fields. The URL is built on the real marketplace domain.
 * - `footer`: the text of the card's `asinFooter` group: the group whose id names the card's ASIN, else
 *   `<cards group>_asinFooter_<index in that group>`, else (ids with neither) the footers of a group in order.
 * - `related_questions`: the labels of `button.rufus-pill` in the affordance HTML, in order, without repeats.
 */
import { UnexpectedResultError, UpstreamError } from "../../errors";
import type { StreamCapture } from "../../browser/page/capture/types";
import { decodeUtf8Chunks } from "../shared/decode/lines";
import { applyJsonPatch } from "../shared/decode/json-patch";
import { parseHtml, queryAll, queryOne, textOf } from "../shared/decode/html";
import { decodeSse, parseSseJson, type SseEvent } from "../shared/decode/sse";
import { markdownToPlainText } from "../shared/markdown";
import type { RufusAnswer, RufusProduct } from "./declaration";
import { isRecord } from "../../util/json-record";
import { asinOfUrl, cardRating, cardTitle, collapseSpaces, findCards, nodeText, type CardNode } from "./node-tree";

const DETAIL = {
  challenge: "Amazon answered with a robot check (CAPTCHA) instead of Rufus. Safe to retry.",
  login: "Amazon asked the browser session to sign in: Rufus answers only signed-in sessions.",
  rateLimit: "Amazon is rate limiting the browser session (503). Retry shortly.",
  token: "Amazon rejected Rufus's answer request (stale session token). Safe to retry.",
  http: "Rufus's answer request failed upstream. Safe to retry.",
  unreachable: "Amazon could not be reached. Safe to retry.",
  unexpectedPage: "Amazon answered Rufus's request with an unexpected page. Safe to retry.",
  truncated: "Rufus's answer stream ended before the answer was complete. Safe to retry.",
  malformed: "Rufus's answer stream could not be read. Safe to retry.",
  empty: "Rufus returned an empty answer. Safe to retry.",
} as const;

/** Events whose `data:` line must be JSON (as must an unnamed block's); an undecodable one means the stream is broken (sheet §5). */
const JSON_EVENTS = new Set(["inference", "affordance"]);

/**
 * Parses one captured Rufus answer exchange. `marketplaceDomain` (e.g. `amazon.de`) builds the product URLs.
 *
 * @throws UpstreamError for HTTP failures, robot checks, sign-in walls, rate limiting, and streams that were cut or
 *   could not be decoded; UnexpectedResultError when the stream ended with neither prose nor product cards. Details
 *   never carry provider text.
 */
export function parseRufusCapture(capture: StreamCapture, marketplaceDomain: string): RufusAnswer {
  const blocked = blockedPageFailure(capture);
  if (blocked !== null) throw blocked;
  if (capture.status !== 200) throw httpFailure(capture);

  const decoded = decodeSse(capture.chunks);
  if (!capture.complete || capture.error !== null || decoded.endedMidEvent) {
    const cause = new Error(
      `rufus stream cut (complete=${capture.complete}, endedMidEvent=${decoded.endedMidEvent}, error=${capture.error})`,
    );
    throw new UpstreamError(DETAIL.truncated, { retryable: true, cause });
  }

  const trees = new GroupTrees();
  const affordanceHtml: string[] = [];
  for (const event of decoded.events) {
    // a block without an `event:` line is read by its content (patches or sections); a named unknown event is ignored
    if (event.event !== undefined && !JSON_EVENTS.has(event.event)) continue;
    const data = parseSseJson(event);
    if (data === undefined) throw malformed(event);
    if (!isRecord(data)) continue;
    const name = event.event ?? (Array.isArray(data.patches) ? "inference" : "affordance");
    if (name === "inference") trees.applyAll(data.patches);
    else affordanceHtml.push(...affordanceSections(data));
  }

  const prose = withProductLinks(
    trees
      .groups((id) => id.startsWith("markdown_processor"))
      .map((group) => nodeText(group.value).replace(/\r\n?/g, "\n").trim())
      .filter((text) => text !== "")
      .join("\n\n"),
    marketplaceDomain,
  );
  const products = productsOf(trees, marketplaceDomain);
  if (prose === "" && products.length === 0) throw new UnexpectedResultError(DETAIL.empty);

  const resultMarkdown = prose !== "" ? prose : products.map((product) => `- ${product.title}`).join("\n");
  return {
    result: markdownToPlainText(resultMarkdown),
    result_markdown: resultMarkdown,
    products,
    related_questions: pillLabels(affordanceHtml),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Product URLs: one rule for every field that carries one

/**
 * A product's URL: `https://www.<marketplace>/dp/<ASIN>` on the real marketplace (sheet §4 `url`), whatever form the
 * site used (relative, with a slug, a ref or a query) and whatever origin the page was loaded from.
 */
export function productUrl(marketplaceDomain: string, asin: string): string {
  return `https://www.${marketplaceDomain}/dp/${asin}`;
}

/** A markdown link's destination (`](dest)` or `](<dest>)`, an optional title after it). */
const MARKDOWN_LINK_DESTINATION = /\]\(\s*(<[^<>\n]*>|[^\s()<>]+)(\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;

/**
 * The prose with every markdown link that opens a product page written as `productUrl` (the same URL `products[].url`
 * carries); other links are left as they are.
 */
export function withProductLinks(markdown: string, marketplaceDomain: string): string {
  return markdown.replace(MARKDOWN_LINK_DESTINATION, (whole: string, destination: string, title: string | undefined) => {
    const asin = asinOfUrl(destination.replace(/^<|>$/g, ""));
    return asin === null ? whole : `](${productUrl(marketplaceDomain, asin)}${title ?? ""})`;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Failures

function httpFailure(capture: StreamCapture): UpstreamError {
  const cause = new Error(`rufus HTTP ${capture.status}${capture.error !== null ? ` (${capture.error})` : ""}`);
  if (capture.status === 0) return new UpstreamError(DETAIL.unreachable, { retryable: true, cause });
  if (capture.status === 401 || capture.status === 403) return new UpstreamError(DETAIL.token, { retryable: true, cause });
  if (capture.status === 429 || capture.status === 503)
    return new UpstreamError(DETAIL.rateLimit, { reason: "rate_limited", retryable: true, cause });
  return new UpstreamError(DETAIL.http, { retryable: true, cause });
}

const CHALLENGE_TEXT = [
  /enter the characters you see below/i,
  /type the characters you see in this image/i,
  /api-services-support@amazon\.com/i,
];
const DOGS_TEXT = /sorry! something went wrong/i;

/**
 * An HTML page where the stream should be: the robot check, the sign-in page (a redirect the page's fetch followed) or
 * the 503 dogs page. Null when the body is not an HTML page (the normal case).
 */
function blockedPageFailure(capture: StreamCapture): UpstreamError | null {
  const body = decodeUtf8Chunks(capture.chunks);
  // by the body, not the content type: a stream mislabelled text/html is still a stream
  if (!/^\s*</.test(body)) return null;
  const cause = new Error(`rufus: HTML page instead of the stream (HTTP ${capture.status})`);
  const document = parseHtml(body);
  const text = textOf(document);
  const titleElement = queryOne(document, "title");
  const title = titleElement === null ? "" : collapseSpaces(textOf(titleElement));
  if (queryOne(document, 'form[action*="/errors/validateCaptcha"]') !== null || CHALLENGE_TEXT.some((pattern) => pattern.test(text))) {
    return new UpstreamError(DETAIL.challenge, { reason: "challenge", retryable: true, cause });
  }
  if (queryOne(document, 'form[name="signIn"], form[action*="/ap/signin"]') !== null || /\/ap\/signin/.test(capture.url)) {
    return new UpstreamError(DETAIL.login, { reason: "login_wall", retryable: false, cause });
  }
  if (DOGS_TEXT.test(text) || /\b503\b|robot/i.test(title) || capture.status === 503) {
    return new UpstreamError(DETAIL.rateLimit, { reason: "rate_limited", retryable: true, cause });
  }
  if (capture.status !== 200) return httpFailure(capture);
  return new UpstreamError(DETAIL.unexpectedPage, { retryable: true, cause });
}

function malformed(event: SseEvent): UpstreamError {
  const cause = new Error(`rufus: undecodable data in ${event.event ?? "message"} event ${event.id ?? ""} (${event.data.length} chars)`);
  return new UpstreamError(DETAIL.malformed, { retryable: true, cause });
}

// ---------------------------------------------------------------------------------------------------------------
// Group trees

interface Group {
  id: string;
  value: unknown;
}

/** The UI node tree of every group, patched in stream order; groups keep the order in which they first appeared. */
class GroupTrees {
  private readonly values = new Map<string, unknown>();
  private readonly order: string[] = [];

  applyAll(patches: unknown): void {
    if (!Array.isArray(patches)) return;
    for (const patch of patches) this.apply(patch);
  }

  groups(include: (id: string) => boolean): Group[] {
    return this.order.filter((id) => include(id) && this.values.has(id)).map((id) => ({ id, value: this.values.get(id) }));
  }

  private apply(patch: unknown): void {
    if (!isRecord(patch) || typeof patch.groupId !== "string") return;
    const { groupId, op } = patch;
    const path = typeof patch.path === "string" ? patch.path : "/";
    // the sheet's "/" (and "") address the group's whole tree
    if (path === "/" || path === "") {
      if (op === "remove") this.values.delete(groupId);
      else if (op === "add" || op === "replace") this.set(groupId, patch.value);
      return;
    }
    if (!this.values.has(groupId)) return;
    const outcome = applyJsonPatch(this.values.get(groupId), [{ op, path, value: patch.value, from: patch.from }]);
    this.set(groupId, outcome.document);
  }

  private set(groupId: string, value: unknown): void {
    if (!this.order.includes(groupId)) this.order.push(groupId);
    this.values.set(groupId, value);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Products

const FOOTER_MARKER = "asinFooter";

interface CardInGroup extends CardNode {
  groupId: string;
  index: number;
}

function productsOf(trees: GroupTrees, marketplaceDomain: string): RufusProduct[] {
  const cardGroups = trees.groups((id) => id.startsWith("asin_cards") && !id.includes(FOOTER_MARKER));
  const cards: CardInGroup[] = cardGroups.flatMap((group) =>
    findCards(group.value).map((card, index) => ({ ...card, groupId: group.id, index })),
  );
  const footers = footerTexts(
    trees.groups((id) => id.includes(FOOTER_MARKER)),
    cards,
  );
  const seen = new Set<string>();
  const products: RufusProduct[] = [];
  cards.forEach((card, position) => {
    if (seen.has(card.asin)) return;
    seen.add(card.asin);
    const { rating, reviews } = cardRating(card.node);
    products.push({
      asin: card.asin,
      title: cardTitle(card.node),
      rating,
      reviews,
      url: productUrl(marketplaceDomain, card.asin),
      footer: footers.get(position) ?? "",
    });
  });
  return products;
}

/** Footer text per card position (index into `cards`). */
function footerTexts(footerGroups: Group[], cards: CardInGroup[]): Map<number, string> {
  const byPosition = new Map<number, string>();
  const unresolved: Array<{ prefix: string; text: string }> = [];
  for (const group of footerGroups) {
    const text = collapseSpaces(nodeText(group.value));
    if (text === "") continue;
    const position = footerPosition(group.id, cards);
    if (position === null) unresolved.push({ prefix: prefixOf(group.id), text });
    else if (!byPosition.has(position)) byPosition.set(position, text);
  }
  // ids that name neither an ASIN nor an index: the footers of a group follow its cards in order
  for (const { prefix, text } of unresolved) {
    const position = cards.findIndex((card, at) => (prefix === "" || card.groupId === prefix) && !byPosition.has(at));
    if (position >= 0) byPosition.set(position, text);
  }
  return byPosition;
}

/** The group id before `_asinFooter` ("" when the footer id does not start with one). */
function prefixOf(footerId: string): string {
  const at = footerId.indexOf(FOOTER_MARKER);
  return at <= 0 ? "" : footerId.slice(0, at).replace(/[_-]+$/, "");
}

function footerPosition(footerId: string, cards: CardInGroup[]): number | null {
  const prefix = prefixOf(footerId);
  const tokens = footerId.split(/[^A-Za-z0-9]+/);
  // by ASIN: prefer the card of the group the footer id names
  const byAsin = cards
    .map((card, position) => ({ card, position }))
    .filter(({ card }) => tokens.includes(card.asin))
    .sort((a, b) => Number(b.card.groupId === prefix) - Number(a.card.groupId === prefix));
  if (byAsin[0] !== undefined) return byAsin[0].position;
  const index = /asinFooter[_-]?(\d+)$/.exec(footerId)?.[1];
  if (index === undefined) return null;
  const wanted = Number(index);
  const known = cards.some((card) => card.groupId === prefix);
  const position = known ? cards.findIndex((card) => card.groupId === prefix && card.index === wanted) : wanted;
  return position >= 0 && position < cards.length ? position : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Pills

function affordanceSections(data: unknown): string[] {
  if (!isRecord(data) || !Array.isArray(data.sections)) return [];
  return data.sections.flatMap((section) => {
    const content = isRecord(section) ? section.content : undefined;
    return isRecord(content) && typeof content.data === "string" ? [content.data] : [];
  });
}

function pillLabels(sections: string[]): string[] {
  const labels: string[] = [];
  for (const html of sections) {
    for (const pill of queryAll(parseHtml(html), "button.rufus-pill")) {
      const label = collapseSpaces(textOf(pill));
      if (label !== "" && !labels.includes(label)) labels.push(label);
    }
  }
  return labels;
}
