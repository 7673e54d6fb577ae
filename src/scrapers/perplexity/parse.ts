/**
 * Pure parser for perplexity.ai's answer stream (`POST /rest/sse/perplexity_ask`, SSE snapshots with `diff_block`
 * patches): the captured exchange in (plus, optionally, the rendered answer's HTML for the DOM fallback of sources), the
 * answer-engine fields of spec §2.6 out, or a ServiceError saying why there is no answer. Wire format, mapping and
 * failure signatures: providers/perplexity.md §3–§5.
 */
import { UnexpectedResultError, UpstreamError } from "../../errors";
import type { StreamCapture } from "../../browser/page/capture/types";
import { decodeUtf8Chunks } from "../shared/decode/lines";
import { markdownToPlainText } from "../shared/markdown";
import type { PerplexityAnswer, PerplexitySource } from "./declaration";
import { sourcesFromAnswerHtml } from "./dom-sources";
import { isRecord, type JsonRecord, listOf, parseJsonOrUndefined, trimmedOrNull } from "../../util/json-record";
import { normaliseMarkdownLinks } from "./markdown-links";
import { mapCitationMarkers } from "./markers";
import { findBlock, type PerplexityStream, readPerplexityStream } from "./snapshots";
import { normaliseSourceUrl } from "./urls";

const DETAIL = {
  challenge: "Perplexity answered with an anti-bot challenge. Safe to retry.",
  login: "Perplexity requires a login: the browser session is not signed in or its anonymous quota is used up.",
  rateLimit: "Perplexity's rate limit was reached. Retry shortly.",
  unreachable: "Perplexity could not be reached. Safe to retry.",
  refused: "Perplexity refused the request (HTTP 403). Safe to retry.",
  streamError: "Perplexity reported an error while answering. Safe to retry.",
  malformed: "Perplexity's answer stream could not be read. Safe to retry.",
  notCompleted: "Perplexity ended the answer without completing it. Safe to retry.",
  truncated: "Perplexity's stream ended before the answer was complete. Safe to retry.",
  empty: "Perplexity returned an empty answer. Safe to retry.",
} as const;

const CHALLENGE_MARKERS = /just a moment|challenge-platform|cf-chl|cf_chl|attention required|verify you are human/i;
const RATE_LIMIT_MARKERS = /rate[ _-]?limit|too many requests|quota/i;

/** Usages that carry the answer's markdown: `ask_text` first, then its twins (`ask_text_0_markdown`, …). */
const ANSWER_USAGES = ["ask_text", (usage: string) => usage.startsWith("ask_text")] as const;
const ANY_USAGE = (): boolean => true;

/**
 * Parses one captured `perplexity_ask` exchange.
 *
 * - The run is complete only with an envelope carrying `final_sse_message:true` and `status:"COMPLETED"`; a stream
 *   that ends without one failed (disconnect, malformed stream), even when `text_completed` was set.
 * - `result_markdown`: the `ask_text` `markdown_block.answer` as the terminal frame left it (authoritative: it may
 *   renumber `[n]` relative to the chunks), else the joined chunks, else the `workflow_block` text payload, else the
 *   `FINAL` step of the older `text` field. `[n]` markers are kept as sent; `\r\n` becomes `\n`; link URLs are normalised as `sources[].url` is.
 * - `sources`: `web_result_block.web_results` (fallback `sources_mode_block.web_results`, then the `FINAL` step's),
 *   in order, `{title: name, url, snippet ?? ""}`; results without a usable URL are dropped and the markers renumbered
 *   so that they stay 1-based indexes into `sources`. Without any, the citation pills of `answerHtml` (if given).
 * - `related_questions`: `related_query_items[].text`, else `related_queries[]`.
 *
 * @throws UpstreamError for HTTP failures, challenges, login walls, rate limits, in-stream errors, malformed and cut
 *   streams; UnexpectedResultError when the completed answer is empty. Details never carry provider text.
 */
export function parsePerplexityCapture(capture: StreamCapture, answerHtml: string | null = null): PerplexityAnswer {
  if (capture.status !== 200) throw httpFailure(capture);

  const stream = readPerplexityStream(capture.chunks);
  const final = finalStep(stream.text);
  const rawMarkdown = answerMarkdown(stream, final);

  if (stream.errorEnvelope !== null && (stream.terminal === null || rawMarkdown.trim() === "")) {
    throw streamFailure(stream.errorEnvelope);
  }
  if (stream.terminal === null) throw incompleteFailure(capture, stream);

  const raw = rawWebResults(stream, final);
  const converted = raw.map(toSource);
  // link URLs in the markdown follow the same rule as `sources[].url` (one normalisation per value)
  let markdown = normaliseMarkdownLinks(normaliseMarkdown(rawMarkdown));
  if (converted.some((source) => source === null)) markdown = renumberAfterDrops(markdown, converted);
  if (markdown === "") throw new UnexpectedResultError(DETAIL.empty);

  let sources = converted.filter((source): source is PerplexitySource => source !== null);
  if (sources.length === 0 && answerHtml !== null) sources = sourcesFromAnswerHtml(answerHtml);

  return {
    result: markdownToPlainText(markdown),
    result_markdown: markdown,
    sources,
    related_questions: relatedQuestions(stream),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Failures

function httpFailure(capture: StreamCapture): UpstreamError {
  const { status } = capture;
  const cause = new Error(`perplexity_ask HTTP ${status}${capture.error !== null ? ` (${capture.error})` : ""}`);
  if (status === 0) return new UpstreamError(DETAIL.unreachable, { retryable: true, cause });
  if (CHALLENGE_MARKERS.test(decodeUtf8Chunks(capture.chunks)))
    return new UpstreamError(DETAIL.challenge, { retryable: true, cause, reason: "challenge" });
  if (status === 401) return new UpstreamError(DETAIL.login, { retryable: false, cause, reason: "login_wall" });
  // a 403 with `{}` is how the site refuses a gone thread; a fresh attempt starts a new thread
  if (status === 403) return new UpstreamError(DETAIL.refused, { retryable: true, cause });
  if (status === 429) return new UpstreamError(DETAIL.rateLimit, { retryable: true, cause, reason: "rate_limited" });
  const retryable = status >= 500 || status === 408;
  return new UpstreamError(`Perplexity answered with HTTP ${status}.${retryable ? " Safe to retry." : ""}`, { retryable, cause });
}

function streamFailure(envelope: JsonRecord): UpstreamError {
  // the provider's words go to the log (cause) only; matching on them is safe, echoing them is not
  const described = `${String(envelope.error_code ?? "")} ${String(envelope.error_message ?? "")}`.slice(0, 500);
  const cause = new Error(`perplexity stream error: ${described}`);
  if (RATE_LIMIT_MARKERS.test(described)) return new UpstreamError(DETAIL.rateLimit, { retryable: true, cause, reason: "rate_limited" });
  return new UpstreamError(DETAIL.streamError, { retryable: true, cause });
}

function incompleteFailure(capture: StreamCapture, stream: PerplexityStream): UpstreamError {
  const cause = new Error(
    `perplexity stream without a COMPLETED final frame (envelopes=${stream.envelopes}, malformed=${stream.malformedEvents}, ` +
      `endedMidEvent=${stream.endedMidEvent}, complete=${capture.complete}, error=${capture.error ?? "none"})`,
  );
  if (stream.envelopes === 0 && CHALLENGE_MARKERS.test(decodeUtf8Chunks(capture.chunks))) {
    return new UpstreamError(DETAIL.challenge, { retryable: true, cause, reason: "challenge" });
  }
  if (stream.malformedEvents > 0) return new UpstreamError(DETAIL.malformed, { retryable: true, cause });
  if (stream.endedWithoutCompleting) return new UpstreamError(DETAIL.notCompleted, { retryable: true, cause });
  return new UpstreamError(DETAIL.truncated, { retryable: true, cause });
}

// ---------------------------------------------------------------------------------------------------------------
// Answer

/** The `FINAL` step of the older `text` field: a JSON string of steps whose last one holds the answer. */
interface FinalStep {
  answer: string;
  webResults: unknown[];
}

function answerMarkdown(stream: PerplexityStream, final: FinalStep | null): string {
  const answerBlocks = ANSWER_USAGES.flatMap((usage) =>
    stream.blocks.filter(
      (block) => block.field === "markdown_block" && (typeof usage === "string" ? block.usage === usage : usage(block.usage)),
    ),
  );
  for (const block of answerBlocks) {
    const answer = isRecord(block.document) ? block.document.answer : undefined;
    if (typeof answer === "string" && answer.trim() !== "") return answer;
  }
  for (const block of answerBlocks) {
    const joined = block.chunks.filter((chunk): chunk is string => typeof chunk === "string").join("");
    if (joined.trim() !== "") return joined;
  }
  return workflowAnswer(stream) ?? final?.answer ?? "";
}

/** The newer variant: the answer in a `workflow_block` at `/steps/N/items/N/payload/text_payload` (the last non-blank). */
function workflowAnswer(stream: PerplexityStream): string | null {
  const block = findBlock(stream, "workflow_block", [ANY_USAGE]);
  if (block === null || !isRecord(block.document)) return null;
  let answer: string | null = null;
  for (const step of listOf(block.document.steps)) {
    for (const item of isRecord(step) ? listOf(step.items) : []) {
      const payload = isRecord(item) && isRecord(item.payload) ? item.payload.text_payload : undefined;
      if (!isRecord(payload)) continue;
      const text =
        typeof payload.answer === "string" && payload.answer.trim() !== ""
          ? payload.answer
          : listOf(payload.chunks)
              .filter((chunk): chunk is string => typeof chunk === "string")
              .join("");
      if (text.trim() !== "") answer = text;
    }
  }
  return answer;
}

function finalStep(text: string | null): FinalStep | null {
  if (text === null) return null;
  const parsed = parseJsonOrUndefined(text);
  const steps = Array.isArray(parsed) ? parsed : [parsed];
  const final = steps.findLast((step) => isRecord(step) && step.step_type === "FINAL");
  // a bare object with an answer (the oldest builds) counts as the final step's content
  const content = isRecord(final) ? final.content : steps.length === 1 ? parsed : undefined;
  if (!isRecord(content)) return null;
  // the step's `answer` is itself a JSON string holding `answer` and `web_results` on the builds seen
  const inner = typeof content.answer === "string" ? parseJsonOrUndefined(content.answer) : content.answer;
  if (isRecord(inner) && typeof inner.answer === "string") {
    return {
      answer: inner.answer,
      webResults: listOf(inner.web_results).length > 0 ? listOf(inner.web_results) : listOf(content.web_results),
    };
  }
  return typeof content.answer === "string" ? { answer: content.answer, webResults: listOf(content.web_results) } : null;
}

function normaliseMarkdown(markdown: string): string {
  return markdown
    .replace(/\r\n?/g, "\n")
    .replace(/^(?:[ \t]*\n)+/, "")
    .trimEnd();
}

// ---------------------------------------------------------------------------------------------------------------
// Sources and related questions

function rawWebResults(stream: PerplexityStream, final: FinalStep | null): unknown[] {
  const candidates = [
    findBlock(stream, "web_result_block", ["web_results", ANY_USAGE]),
    findBlock(stream, "sources_mode_block", ["sources_answer_mode", ANY_USAGE]),
  ];
  for (const block of candidates) {
    const list = isRecord(block?.document) ? listOf(block.document.web_results) : [];
    if (list.some((raw) => toSource(raw) !== null)) return list;
  }
  return final?.webResults ?? [];
}

function toSource(raw: unknown): PerplexitySource | null {
  if (!isRecord(raw) || typeof raw.url !== "string") return null;
  const url = normaliseSourceUrl(raw.url);
  if (url === null) return null;
  const meta = isRecord(raw.meta_data) ? raw.meta_data : {};
  const title = trimmedOrNull(raw.name) ?? trimmedOrNull(raw.title) ?? trimmedOrNull(meta.citation_domain_name) ?? url;
  return { title, url, snippet: trimmedOrNull(raw.snippet) ?? "" };
}

/** Markers index the provider's list; after dropping unusable results they must index the returned one. */
function renumberAfterDrops(markdown: string, converted: ReadonlyArray<PerplexitySource | null>): string {
  const renumbered = new Map<number, number>();
  let kept = 0;
  converted.forEach((source, index) => {
    if (source === null) return;
    kept += 1;
    renumbered.set(index + 1, kept);
  });
  // a marker beyond the provider's list is not ours to judge: it stays as sent
  return mapCitationMarkers(markdown, (n) => (n > converted.length || n < 1 ? n : (renumbered.get(n) ?? null)));
}

function relatedQuestions(stream: PerplexityStream): string[] {
  const fromItems = listOf(stream.relatedQueryItems).map((item) => (isRecord(item) ? trimmedOrNull(item.text) : trimmedOrNull(item)));
  const texts = fromItems.some((text) => text !== null) ? fromItems : listOf(stream.relatedQueries).map(trimmedOrNull);
  return [...new Set(texts.filter((text): text is string => text !== null))];
}
