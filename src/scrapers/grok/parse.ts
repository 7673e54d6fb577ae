/**
 * Pure parser for grok.com's answer stream (`POST /rest/app-chat/conversations/new`, NDJSON): captured bytes in,
 * the Grok fields of spec §2.2 out, or a ServiceError saying why there is no answer. Wire format and field mapping:
 * providers/grok.md §3–§5.
 */
import { UnexpectedResultError, UpstreamError } from "../../errors";
import type { Conversation, SocialResult, WebSource } from "../../schemas/responses";
import type { GrokAnswer } from "./declaration";
import { markdownToPlainText } from "../shared/markdown";
import { decodeUtf8Chunks } from "../shared/decode/lines";
import { decodeNdjson } from "../shared/decode/ndjson";
import type { StreamCapture } from "../../browser/page/capture/types";
import { isRecord, type JsonRecord, listOf, parseJsonOrUndefined, trimmedOrNull } from "../../util/json-record";
import { isHttpUrl } from "../../util/http-url";
import { providerTimestampOrNull } from "../../util/time";

interface StreamedToken {
  text: string;
  thinking: boolean;
  tag: string | null;
}

/** Everything of interest read from the stream, before it is mapped to response fields. */
interface GrokStream {
  conversation: { value: Conversation; line: number } | null;
  newTitle: { value: string; line: number } | null;
  modelResponse: JsonRecord | null;
  tokens: StreamedToken[];
  streamedWebResults: unknown[];
  streamedPosts: unknown[];
  /** Raw streamed `cardAttachment.jsonData` values (modelResponse cards are added when mapping). */
  streamedCards: unknown[];
  followUps: unknown[];
  streamedFollowUps: unknown[];
  /** The first in-stream error object (or string), if any. */
  error: unknown;
  hasError: boolean;
}

const DETAIL = {
  antiBot: "Grok rejected the request with an anti-bot challenge. Safe to retry.",
  login: "Grok requires a login: the browser session is not signed in to grok.com.",
  rateLimit: "Grok's rate limit was reached. Retry shortly.",
  unreachable: "Grok could not be reached. Safe to retry.",
  region: "Grok is not available in the region this request was routed through. Try another country.",
  streamError: "Grok reported an error while answering. Safe to retry.",
  moderated: "Grok declined to answer: the content was moderated.",
  truncated: "Grok's stream ended before the answer was complete. Safe to retry.",
  empty: "Grok returned an empty answer. Safe to retry.",
} as const;

const CHALLENGE_MARKERS = /anti-bot|just a moment|challenge-platform|cf-chl|cf_chl|attention required/i;
const REGION_MARKER = /not available in your region/i;
const RATE_LIMIT_MARKERS = /rate[ _-]?limit|usage[ _-]?limit|too many requests|resource[ _-]?exhausted/i;
const MODERATION_MARKER = /moderat/i;

/**
 * Parses one captured grok.com answer exchange.
 *
 * - `result_markdown` is `modelResponse.message`; when it is missing or blank, the concatenated answer tokens
 *   (`isThinking` not true and `messageTag:"final"`; untagged tokens count only when no token of the stream carries a
 *   `messageTag`, i.e. on builds that do not tag at all). Citation tags become `[n](url)` where `n` is the url's
 *   1-based position in `web_sources`, or, for a url that is not a web source (an X post, a page only in the cards),
 *   the next number after `web_sources`, one per distinct url in order of first appearance. The tag's own
 *   `citation_id` is not used: it indexes Grok's internal search results (values like 30 or 95 are common) and would
 *   collide with web-source numbers. Unresolvable citations, image cards and any other `grok:render` tag are removed;
 *   `xaiArtifact` wrappers are unwrapped (a raw-code artifact is fenced with the language of its `contentType`);
 *   fence languages like `x-pythonsrc` become `python`.
 * - `web_sources` / `social_results` come from `modelResponse` when it lists at least one valid entry, else from the
 *   streamed search results; both are de-duplicated (by url / post id) in first-seen order.
 * - Without `modelResponse` the final tokens are the answer only when the body ended normally (`capture.complete`
 *   and not cut mid-line); a stream cut after `modelResponse` still yields the answer (only the title can be missing).
 *
 * @throws UpstreamError for HTTP failures, anti-bot challenges, login walls, rate limits, region blocks, in-stream
 *   errors and streams that ended before the answer; UnexpectedResultError for an empty answer. Details never carry
 *   provider text.
 */
export function parseGrokCapture(capture: StreamCapture): GrokAnswer {
  if (capture.status !== 200) throw httpFailure(capture);

  const decoded = decodeNdjson(capture.chunks);
  const stream = readGrokStream(decoded.values);
  if (stream.hasError) throw streamFailure(stream.error);
  if (decoded.values.length === 0) {
    // a 200 can still be a challenge page or the region notice; anything else is an empty or cut stream
    const blocked = blockedBodyFailure(decodeUtf8Chunks(capture.chunks));
    if (blocked) throw blocked;
  }

  const modelResponse = stream.modelResponse;
  const finalTokens = answerTokenText(stream.tokens);
  // without modelResponse the tokens are only an answer if the body really ended (not broken off, not cut mid-line)
  if (modelResponse === null && (!capture.complete || decoded.endedMidLine || finalTokens.trim() === "")) {
    const cause = new Error(`grok stream: no modelResponse (complete=${capture.complete}, endedMidLine=${decoded.endedMidLine})`);
    throw new UpstreamError(DETAIL.truncated, { retryable: true, cause });
  }

  const message = modelResponse !== null && typeof modelResponse.message === "string" ? modelResponse.message : "";
  const rawMarkdown = message.trim() !== "" ? message : finalTokens;
  if (rawMarkdown.trim() === "") throw new UnexpectedResultError(DETAIL.empty);

  const webSources = toWebSources(preferNonEmpty(listOf(modelResponse?.webSearchResults), stream.streamedWebResults, toWebSource));
  const socialResults = toSocialResults(preferNonEmpty(listOf(modelResponse?.xposts), stream.streamedPosts, toSocialResult));
  const cards = cardUrls([...stream.streamedCards, ...listOf(modelResponse?.cardAttachmentsJson)]);

  const resultMarkdown = toResultMarkdown(rawMarkdown, cards, webSources);
  if (resultMarkdown === "") throw new UnexpectedResultError(DETAIL.empty);

  return {
    result: markdownToPlainText(resultMarkdown),
    result_markdown: resultMarkdown,
    web_sources: webSources,
    social_results: socialResults,
    related_questions: relatedQuestions([...stream.followUps, ...stream.streamedFollowUps]),
    conversation: conversationOf(stream),
    llm_model: modelResponse !== null ? trimmedOrNull(modelResponse.model) : null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Failures

function httpFailure(capture: StreamCapture): UpstreamError {
  const cause = new Error(`grok HTTP ${capture.status}${capture.error !== null ? ` (${capture.error})` : ""}`);
  const blocked = blockedBodyFailure(decodeUtf8Chunks(capture.chunks));
  if (blocked) return blocked;
  if (capture.status === 401 || capture.status === 403)
    return new UpstreamError(DETAIL.login, { retryable: false, cause, reason: "login_wall" });
  if (capture.status === 429) return new UpstreamError(DETAIL.rateLimit, { retryable: true, cause, reason: "rate_limited" });
  if (capture.status === 0) return new UpstreamError(DETAIL.unreachable, { retryable: true, cause });
  return new UpstreamError(`Grok answered with HTTP ${capture.status}. Safe to retry.`, { retryable: true, cause });
}

/** Challenge pages and the region notice, recognised by their text whatever the status. */
function blockedBodyFailure(body: string): UpstreamError | null {
  if (CHALLENGE_MARKERS.test(body))
    return new UpstreamError(DETAIL.antiBot, { retryable: true, cause: new Error("grok anti-bot challenge"), reason: "challenge" });
  if (REGION_MARKER.test(body)) return new UpstreamError(DETAIL.region, { retryable: false, cause: new Error("grok region block") });
  return null;
}

function streamFailure(error: unknown): UpstreamError {
  // the provider's message goes to the log (cause) only; matching on it is safe, echoing it is not
  const described = typeof error === "string" ? error : (JSON.stringify(error) ?? "");
  const cause = new Error(`grok stream error: ${described.slice(0, 500)}`);
  if (MODERATION_MARKER.test(described)) return new UpstreamError(DETAIL.moderated, { retryable: false, cause });
  if (CHALLENGE_MARKERS.test(described)) return new UpstreamError(DETAIL.antiBot, { retryable: true, cause, reason: "challenge" });
  if (RATE_LIMIT_MARKERS.test(described)) return new UpstreamError(DETAIL.rateLimit, { retryable: true, cause, reason: "rate_limited" });
  return new UpstreamError(DETAIL.streamError, { retryable: true, cause });
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the stream

function readGrokStream(values: unknown[]): GrokStream {
  const stream: GrokStream = {
    conversation: null,
    newTitle: null,
    modelResponse: null,
    tokens: [],
    streamedWebResults: [],
    streamedPosts: [],
    streamedCards: [],
    followUps: [],
    streamedFollowUps: [],
    error: null,
    hasError: false,
  };
  const noteError = (error: unknown): void => {
    if (error === undefined || error === null || stream.hasError) return;
    stream.error = error;
    stream.hasError = true;
  };

  values.forEach((value, line) => {
    if (!isRecord(value)) return;
    noteError(value.error);
    const result = value.result;
    if (!isRecord(result)) return;

    if (isRecord(result.conversation)) {
      const conversation = toConversation(result.conversation);
      if (conversation) stream.conversation = { value: conversation, line };
    }
    if (isRecord(result.title)) {
      const title = trimmedOrNull(result.title.newTitle);
      if (title !== null) stream.newTitle = { value: title, line };
    }

    // the follow-up endpoint of older builds puts the response fields directly under `result`
    const payload = isRecord(result.response) ? result.response : result;
    noteError(payload.error);

    if (typeof payload.token === "string") {
      stream.tokens.push({
        text: payload.token,
        thinking: payload.isThinking === true,
        tag: typeof payload.messageTag === "string" ? payload.messageTag : null,
      });
    }
    stream.streamedWebResults.push(...resultsOf(payload.webSearchResults));
    stream.streamedPosts.push(...resultsOf(payload.xSearchResults));
    if (isRecord(payload.cardAttachment)) stream.streamedCards.push(payload.cardAttachment.jsonData);
    if (isRecord(payload.finalMetadata)) stream.followUps.push(...listOf(payload.finalMetadata.followUpSuggestions));
    const suggestions = payload.followUpSuggestions;
    stream.streamedFollowUps.push(...(isRecord(suggestions) ? listOf(suggestions.suggestions) : listOf(suggestions)));
    if (isRecord(payload.modelResponse)) stream.modelResponse = payload.modelResponse;
  });
  return stream;
}

/** Answer text from the deltas: final-tagged tokens, or every non-thinking token on builds that tag nothing. */
function answerTokenText(tokens: StreamedToken[]): string {
  const tagged = tokens.some((token) => token.tag !== null);
  return tokens
    .filter((token) => !token.thinking && (tagged ? token.tag === "final" : true))
    .map((token) => token.text)
    .join("");
}

// ---------------------------------------------------------------------------------------------------------------
// Field mapping

function toConversation(raw: JsonRecord): Conversation | null {
  const id = trimmedOrNull(raw.conversationId);
  if (id === null) return null;
  return {
    conversation_id: id,
    title: trimmedOrNull(raw.title),
    temporary: raw.temporary === true,
    create_time: providerTimestampOrNull(raw.createTime),
    modify_time: providerTimestampOrNull(raw.modifyTime),
  };
}

function conversationOf(stream: GrokStream): Conversation | null {
  const { conversation, newTitle } = stream;
  if (conversation === null) return null;
  if (newTitle !== null && newTitle.line > conversation.line) return { ...conversation.value, title: newTitle.value };
  return conversation.value;
}

/** The final list when it has at least one usable entry, else the streamed one (builds differ in what they fill). */
function preferNonEmpty<T>(final: unknown[], streamed: unknown[], convert: (raw: unknown) => T | null): unknown[] {
  return final.some((raw) => convert(raw) !== null) ? final : streamed;
}

function toWebSource(raw: unknown): WebSource | null {
  if (!isRecord(raw)) return null;
  const url = trimmedOrNull(raw.url);
  if (url === null || !isHttpUrl(url)) return null;
  return {
    title: trimmedOrNull(raw.title) ?? trimmedOrNull(raw.siteName) ?? url,
    url,
    preview: trimmedOrNull(raw.preview),
  };
}

function toWebSources(list: unknown[]): WebSource[] {
  return uniqueBy(list.map(toWebSource), (source) => source.url);
}

function toSocialResult(raw: unknown): SocialResult | null {
  if (!isRecord(raw)) return null;
  const postId = idString(raw.postId);
  if (postId === null) return null;
  return {
    post_id: postId,
    user_name: (trimmedOrNull(raw.username) ?? "").replace(/^@+/, ""),
    name: trimmedOrNull(raw.name) ?? "",
    text: typeof raw.text === "string" ? raw.text : "",
    view_count: viewCount(raw.viewCount),
    profile_image_url: httpUrlOrNull(raw.profileImageUrl),
    create_time: providerTimestampOrNull(raw.createTime),
  };
}

function toSocialResults(list: unknown[]): SocialResult[] {
  return uniqueBy(list.map(toSocialResult), (post) => post.post_id);
}

/** Views arrive as a number or a numeric string; anything else (absent, negative, "1.2K") counts as 0. */
function viewCount(raw: unknown): number {
  const value = typeof raw === "number" ? raw : typeof raw === "string" && /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? Math.trunc(value) : 0;
}

function relatedQuestions(suggestions: unknown[]): string[] {
  const labels = suggestions.map((raw) => (typeof raw === "string" ? trimmedOrNull(raw) : isRecord(raw) ? trimmedOrNull(raw.label) : null));
  return uniqueBy(labels, (label) => label);
}

/** Card id → url of every card that carries an http(s) url; entries are JSON strings (or, leniently, objects). */
function cardUrls(entries: unknown[]): Map<string, string> {
  const urls = new Map<string, string>();
  for (const entry of entries) {
    const card = typeof entry === "string" ? parseJsonOrUndefined(entry) : entry;
    if (!isRecord(card)) continue;
    const id = idString(card.id);
    const url = trimmedOrNull(card.url);
    if (id !== null && url !== null && isHttpUrl(url)) urls.set(id, url);
  }
  return urls;
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown clean-up

// marks where a tag was removed until blank lines are tidied; these control characters never belong in an answer
const REMOVED = "\u0000";
// marks the edges of an unwrapped artifact until the blank lines around it are normalised
const BLOCK_EDGE = "\u0001";
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0001 is the private marker inserted above, never provider text.
const BLOCK_EDGES = /\n*\u0001(?:\n*\u0001)*\n*/g;
const ARTIFACT = /<xaiArtifact\b([^>]*)>([\s\S]*?)<\/xaiArtifact\s*>/g;
const STRAY_ARTIFACT_TAG = /<\/?xaiArtifact\b[^>]*>/g;
// a render tag, its <argument> children and its closing tag; the closing tag is optional, and the last argument may
// be unclosed at the very end of the text, so that a tag cut off by the end of the answer is still consumed whole
const RENDER_TAG = /<grok:render\b([^>]*)>((?:\s*<argument\b[^>]*>(?:[\s\S]*?<\/argument\s*>|[^<]*$))*)(?:\s*<\/grok:render\s*>)?/g;
const STRAY_RENDER_TAG = /<\/?grok:render\b[^>]*>?/g;
const ATTRIBUTE = /([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const FENCE_LANGUAGE = /^([ \t]*(?:`{3,}|~{3,})[ \t]*)(x-[\w+#.-]+)/gm;

function toResultMarkdown(raw: string, cards: Map<string, string>, webSources: WebSource[]): string {
  const numbers = new Map<string, number>(webSources.map((source, index) => [source.url, index + 1]));
  const citationNumber = (url: string): number => {
    const known = numbers.get(url);
    if (known !== undefined) return known;
    const next = numbers.size + 1;
    numbers.set(url, next);
    return next;
  };

  let markdown = raw.replace(/\r\n?/g, "\n").replaceAll(REMOVED, "").replaceAll(BLOCK_EDGE, "");
  markdown = markdown.replace(
    ARTIFACT,
    (_match, attributes: string, content: string) => `${BLOCK_EDGE}${unwrapArtifact(attributes, content)}${BLOCK_EDGE}`,
  );
  // an artifact is a block of its own: exactly one blank line around it, also between two adjacent artifacts
  markdown = markdown.replace(BLOCK_EDGES, "\n\n");
  markdown = markdown.replace(STRAY_ARTIFACT_TAG, "");
  markdown = markdown.replace(FENCE_LANGUAGE, (_match, fence: string, language: string) => `${fence}${normaliseLanguage(language)}`);
  markdown = markdown.replace(RENDER_TAG, (_match, attributeText: string) => {
    const attributes = parseAttributes(attributeText);
    const isCitation = attributes.get("card_type") === "citation_card" || attributes.get("type") === "render_inline_citation";
    const url = isCitation ? cards.get(attributes.get("card_id") ?? "") : undefined;
    return url === undefined ? REMOVED : `[${citationNumber(url)}](${markdownDestination(url)})`;
  });
  markdown = dropRemovedTagLines(markdown);
  // a tag broken in a way the pattern above cannot read must still not reach the client; repeat because a removal
  // can join the text around it into a new tag
  let previous: string;
  do {
    previous = markdown;
    markdown = markdown.replace(STRAY_RENDER_TAG, "").replaceAll("<grok:render", "");
  } while (markdown !== previous);
  return markdown.replace(/^(?:[ \t]*\n)+/, "").trimEnd();
}

/**
 * Removes the placeholders of removed tags. A line that held nothing but removed tags (an image card between two
 * paragraphs) goes away with one of the blank lines around it, so the paragraphs keep a single blank line between them.
 */
function dropRemovedTagLines(markdown: string): string {
  const lines = markdown.split("\n");
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    if (line.includes(REMOVED) && line.replaceAll(REMOVED, "").trim() === "") {
      if ((kept.at(-1) ?? "").trim() === "" && (lines[index + 1] ?? "").trim() === "") index += 1;
      continue;
    }
    kept.push(line.replaceAll(REMOVED, ""));
  }
  return kept.join("\n");
}

/** An artifact's content as markdown: already-fenced or markdown content as is, raw code fenced. */
function unwrapArtifact(attributeText: string, content: string): string {
  const body = content.replace(/^(?:[ \t]*\n)+/, "").replace(/(?:\n[ \t]*)+$/, "");
  const contentType = (parseAttributes(attributeText).get("contentType") ?? "").trim().toLowerCase();
  const subtype = contentType.split(/[/;]/)[1]?.trim() ?? "";
  if (/^\s*(```|~~~)/.test(body) || contentType === "" || /(^|-)markdown$/.test(subtype)) return body;
  const language = subtype === "plain" ? "" : normaliseLanguage(subtype);
  const longestRun = Math.max(0, ...Array.from(body.matchAll(/`+/g), (run) => run[0].length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${body}\n${fence}`;
}

/** `x-pythonsrc` / `x-python` → `python`: Grok's internal MIME-derived names are not what highlighters know. */
function normaliseLanguage(language: string): string {
  const match = /^x-(.+?)(?:src)?$/.exec(language);
  return match?.[1] ?? language;
}

function parseAttributes(text: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of text.matchAll(ATTRIBUTE)) {
    const [, name, doubleQuoted, singleQuoted] = match;
    if (name !== undefined) attributes.set(name, doubleQuoted ?? singleQuoted ?? "");
  }
  return attributes;
}

/**
 * A url as a markdown link destination. Balanced parentheses are valid there (Wikipedia urls keep their exact form);
 * a url with spaces, angle brackets or unbalanced parentheses gets those characters percent-encoded.
 */
function markdownDestination(url: string): string {
  if (!/[\s<>]/.test(url) && parenthesesBalanced(url)) return url;
  return url.replace(/[\s()<>]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

function parenthesesBalanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    if (char === "(") depth += 1;
    else if (char === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Narrowing helpers

/** Streamed search results come as `{results:[…]}`; a bare list is accepted too. */
function resultsOf(value: unknown): unknown[] {
  return isRecord(value) ? listOf(value.results) : listOf(value);
}

/** Ids are strings on the wire; a numeric id (older builds, hand-edited data) is accepted when it is exact. */
function idString(value: unknown): string | null {
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return trimmedOrNull(value);
}

function httpUrlOrNull(value: unknown): string | null {
  const url = trimmedOrNull(value);
  return url !== null && isHttpUrl(url) ? url : null;
}

function uniqueBy<T>(items: (T | null)[], key: (item: T) => string): T[] {
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
