/**
 * Pure parser for chatgpt.com's conversation exchange (`POST /backend-api/f/conversation`, chatgpt.md §3–§5): captured
 * bytes in, the ChatGPT fields of spec §2.6 out, or a ServiceError saying why there is no answer.
 */
import { UpstreamError } from "../../errors";
import type { StreamCapture } from "../../browser/page/capture/types";
import { decodeUtf8Chunks } from "../shared/decode/lines";
import { markdownToPlainText } from "../shared/markdown";
import { isRecord, type JsonRecord, trimmedOrNull } from "../../util/json-record";
import { type ConversationStream, readConversationStream } from "./conversation-stream";
import type { ChatgptParsedAnswer } from "./declaration";
import { CHATGPT_DETAIL as DETAIL, challengeFailure, emptyAnswerFailure, loginWallFailure, rateLimitFailure } from "./failures";
import { linksOf, resolveAnswerMarkdown } from "./references";

const CHALLENGE_MARKERS = /just a moment|challenge-platform|cf-chl|cf_chl|turnstile|unusual activity|attention required/i;
const RATE_LIMIT_MARKERS = /too many requests|rate[ _-]?limit|reached our limit|reached the limit|usage cap|limit of messages/i;
const REGION_MARKERS = /unsupported[_ ]country|not (?:yet )?(?:available|supported) in your (?:country|region)/i;

/** Statuses that mean the answer message is done (`finished_partial_completion` comes with `max_tokens`). */
const FINISHED_STATUSES = new Set(["finished_successfully", "finished_partial_completion"]);

/**
 * Parses one captured conversation exchange.
 *
 * - The answer is the last message by the assistant addressed to everyone (`recipient` "all" or absent) with text
 *   content on the final channel (`channel` "final" or absent), not hidden; tool calls (another recipient), tool
 *   results, thoughts and commentary never count. Its text is `content.parts[0]`.
 * - The answer is complete when its status is finished (or `end_turn`/`finish_details` say so), or the stream ended
 *   with `message_stream_complete` / `[DONE]`. A `max_tokens` finish is a complete (if cut) answer, as the site shows it.
 * - `result_markdown`: markers resolved (references.ts); `result`: its plain text; `links`: its hyperlinks;
 *   `search_queries`: `search_model_queries` of the web tool messages; `llm_model`: `resolved_model_slug`, else
 *   `model_slug`.
 *
 * @throws UpstreamError for HTTP failures, challenges, login walls, rate limits, region blocks, in-stream errors and
 *   streams that end before the answer; UnexpectedResultError for an empty answer. Details never carry provider text.
 */
export function parseChatgptCapture(capture: StreamCapture): ChatgptParsedAnswer {
  if (capture.status !== 200) throw httpFailure(capture);

  const stream = readConversationStream(capture.chunks);
  if (stream.error !== null) throw streamFailure(stream.error.value);
  if (stream.events === 0) {
    // a 200 that is no event stream (a challenge page, a region notice) or a body cut before its first frame; a real
    // stream is never searched for such words: it echoes the prompt, which may contain anything
    const blocked = blockedBodyFailure(decodeUtf8Chunks(capture.chunks), capture.status);
    if (blocked !== null) throw blocked;
  }

  // a delta that could not be read is text or metadata lost: the answer cannot be trusted, even if the stream ended
  if (stream.usedDeltas && stream.unreadableFrames > 0) throw unreadable(capture, stream);
  const ended = stream.sawDone || stream.sawStreamComplete;
  const answer = answerMessage(stream.messages);
  if (answer === null) {
    if (ended) throw emptyAnswerFailure();
    throw truncated(capture, stream);
  }
  if (!isFinished(answer) && !ended) throw truncated(capture, stream);

  const metadata = isRecord(answer.metadata) ? answer.metadata : {};
  const references = Array.isArray(metadata.content_references) ? metadata.content_references : [];
  const markdown = resolveAnswerMarkdown(answerText(answer), references);
  if (markdown.trim() === "") throw emptyAnswerFailure();

  return {
    result: markdownToPlainText(markdown),
    result_markdown: markdown,
    links: linksOf(markdown),
    search_queries: searchQueries(stream.messages),
    llm_model: trimmedOrNull(metadata.resolved_model_slug) ?? trimmedOrNull(metadata.model_slug),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Failures

function httpFailure(capture: StreamCapture): UpstreamError {
  const body = decodeUtf8Chunks(capture.chunks);
  const cause = new Error(`chatgpt HTTP ${capture.status}${capture.error !== null ? ` (${capture.error})` : ""}: ${body.slice(0, 300)}`);
  const blocked = blockedBodyFailure(body, capture.status, cause);
  if (blocked !== null) return blocked;
  switch (capture.status) {
    case 0:
      return new UpstreamError(DETAIL.unreachable, { retryable: true, cause });
    case 401:
      return loginWallFailure(cause);
    case 403:
      // Turnstile required, or Cloudflare refused the session: a new session or IP can pass
      return challengeFailure(cause);
    case 422:
      return new UpstreamError(DETAIL.rejected, { retryable: false, cause });
    case 429:
      return rateLimitFailure(cause);
    default:
      return new UpstreamError(DETAIL.serverError, { retryable: true, cause });
  }
}

/** A body that names its own failure (challenge page, rate-limit or region notice), whatever its status. */
function blockedBodyFailure(body: string, status: number, cause: unknown = new Error(`chatgpt HTTP ${status}: ${body.slice(0, 300)}`)) {
  if (CHALLENGE_MARKERS.test(body)) return challengeFailure(cause);
  if (REGION_MARKERS.test(body)) return new UpstreamError(DETAIL.region, { retryable: false, cause });
  if (RATE_LIMIT_MARKERS.test(body)) return rateLimitFailure(cause);
  return null;
}

function streamFailure(error: unknown): UpstreamError {
  const text = typeof error === "string" ? error : JSON.stringify(error);
  const cause = new Error(`chatgpt stream error: ${text.slice(0, 300)}`);
  if (RATE_LIMIT_MARKERS.test(text)) return rateLimitFailure(cause);
  if (CHALLENGE_MARKERS.test(text)) return challengeFailure(cause);
  return new UpstreamError(DETAIL.streamError, { retryable: true, cause });
}

function unreadable(capture: StreamCapture, stream: ConversationStream): UpstreamError {
  const cause = new Error(`chatgpt stream: ${stream.unreadableFrames} unreadable frame(s) (complete=${capture.complete})`);
  return new UpstreamError(DETAIL.unreadable, { retryable: true, cause });
}

function truncated(capture: StreamCapture, stream: ConversationStream): UpstreamError {
  const cause = new Error(
    `chatgpt stream ended early (complete=${capture.complete}, error=${capture.error ?? "none"}, endedMidEvent=${stream.endedMidEvent}, ` +
      `messages=${stream.messages.length}, unreadable=${stream.unreadableFrames})`,
  );
  return new UpstreamError(DETAIL.truncated, { retryable: true, cause });
}

// ---------------------------------------------------------------------------------------------------------------
// The answer message and the other fields

function answerMessage(messages: readonly JsonRecord[]): JsonRecord | null {
  const candidates = messages.filter(isAnswerCandidate);
  const withText = candidates.filter((message) => answerText(message).trim() !== "");
  return withText.at(-1) ?? candidates.at(-1) ?? null;
}

function isAnswerCandidate(message: JsonRecord): boolean {
  const author = isRecord(message.author) ? message.author : {};
  const content = isRecord(message.content) ? message.content : {};
  const metadata = isRecord(message.metadata) ? message.metadata : {};
  const recipient = message.recipient ?? "all";
  const channel = message.channel ?? "final";
  return (
    author.role === "assistant" &&
    recipient === "all" &&
    channel === "final" &&
    (content.content_type ?? "text") === "text" &&
    metadata.is_visually_hidden_from_conversation !== true
  );
}

function answerText(message: JsonRecord): string {
  const content = isRecord(message.content) ? message.content : {};
  const parts = Array.isArray(content.parts) ? content.parts : [];
  const first = parts[0];
  if (typeof first === "string") return first;
  return parts.filter((part): part is string => typeof part === "string").join("");
}

function isFinished(message: JsonRecord): boolean {
  const metadata = isRecord(message.metadata) ? message.metadata : {};
  return (
    (typeof message.status === "string" && FINISHED_STATUSES.has(message.status)) ||
    message.end_turn === true ||
    isRecord(metadata.finish_details)
  );
}

/** `search_model_queries` of every web tool message in order (older builds: `search_queries` of `{q}`), without repeats. */
function searchQueries(messages: readonly JsonRecord[]): string[] {
  const queries: string[] = [];
  for (const message of messages) {
    const author = isRecord(message.author) ? message.author : {};
    const name = typeof author.name === "string" ? author.name : "";
    if (author.role !== "tool" || !(name === "web" || name.startsWith("web."))) continue;
    const metadata = isRecord(message.metadata) ? message.metadata : {};
    const modelQueries = metadata.search_model_queries;
    const listed = isRecord(modelQueries) ? modelQueries.queries : (modelQueries ?? metadata.search_queries);
    for (const entry of Array.isArray(listed) ? listed : []) {
      const query = trimmedOrNull(isRecord(entry) ? (entry.q ?? entry.query) : entry);
      if (query !== null) queries.push(query);
    }
  }
  return [...new Set(queries)];
}
