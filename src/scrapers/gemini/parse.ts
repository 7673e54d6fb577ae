/**
 * Pure parser of a Gemini answer: the captured StreamGenerate exchange (gemini.md §3) and the DOM snapshot taken once
 * the answer settled (§2, citations) in; the Gemini fields of spec §2.6 out, or a ServiceError saying why there is no
 * answer. Field mapping: gemini.md §4; failure signatures: §5. Details never carry provider text (that goes to `cause`).
 */
import { ScraperDriftError, UnexpectedResultError, UpstreamError } from "../../errors";
import type { StreamCapture } from "../../browser/page/capture/types";
import { decodeUtf8Chunks } from "../shared/decode/lines";
import { attributeOf, parseHtml, queryOne, removeAll, textOf } from "../shared/decode/html";
import { markdownToPlainText } from "../shared/markdown";
import { type GeminiCitation, type GeminiPageSnapshot, readGeminiCitations } from "./citations";
import { normaliseMarkdownUrls } from "./source-url";
import { type GeminiErrorEnvelope, type GeminiWire, readGeminiWire } from "./wire";

export interface GeminiAnswer {
  result: string;
  result_markdown: string | null;
  citations: GeminiCitation[];
  llm_model: string | null;
}

const DETAIL = {
  challenge: "Google answered with an anti-bot challenge (unusual traffic). Safe to retry.",
  login: "Gemini requires a signed-in Google session: the browser session is signed out or expired.",
  usageLimit: "Gemini's usage limit was reached. Retry later.",
  rateLimited: "Gemini's rate limit was reached (HTTP 429). Retry later.",
  sessionTrouble: "Gemini refused the session (rate limit or CAPTCHA). Retry later.",
  temporary: "Gemini reported a temporary error. Safe to retry.",
  region: "Gemini refused requests from this IP address or region. Retry, or try another country.",
  streamError: "Gemini reported an error while answering. Safe to retry.",
  badRequest: "Gemini rejected the request the page sent. Safe to retry.",
  httpError: "Gemini answered with an HTTP error. Safe to retry.",
  unreachable: "Gemini could not be reached. Safe to retry.",
  malformed: "Gemini's answer stream could not be read (malformed frames). Safe to retry.",
  truncated: "Gemini's stream ended before the answer was complete. Safe to retry.",
  empty: "Gemini returned an empty answer. Safe to retry.",
} as const;

const CHALLENGE_MARKERS = /unusual traffic|\/sorry\/index|captcha-form|g-recaptcha/i;
const SIGN_IN_MARKERS = /ServiceLogin|accounts\.google\.com\/(?:v3\/)?signin/i;
/** "Invalid response" (gemini.md §5). */
const INVALID_RESPONSE_STATUS = 8;
/** Model display names like "3.6 Flash", "2.5 Pro", "Gemini 3 Flash Thinking", "2.5 Flash-Lite". */
const MODEL_NAME = /^(?:Gemini\s+)?\d+(?:\.\d+)*\s+(?:Flash|Pro|Ultra|Nano|Lite|Thinking|Deep\s+Think|Experimental)\b[\w .()-]{0,30}$/i;
/** `[25]` of the inner array: the context string of the turn (gemini.md §3). */
const CONTEXT_SLOT = 25;
/** Strings of the inner array that are not a display label. */
const NOT_A_LABEL: readonly RegExp[] = [
  /^(?:c|r|rc|ctx)_/i, // conversation, response, candidate and context ids
  /^[0-9a-f]{8,}$/i, // hashes and hex ids
  /^[A-Za-z0-9_\-+/=]{20,}$/, // tokens
  /^[a-z]+:\/\/|^\/\//i, // URLs
  /^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/, // language tags ("zh", "pt-BR")
  /^[A-Z]{2}$/, // country codes ("JP")
  /^[A-Z0-9_]{6,}$/, // constants ("SWML_DESCRIPTION_FROM_YOUR_DEVICE")
  /^\d+(?:\.\d+)*$/, // numbers
];
const CARD_PLACEHOLDER = /^\s*http:\/\/googleusercontent\.com\/card_content\/\d+\s*$/;
const PLACEHOLDER = /http:\/\/googleusercontent\.com\/[A-Za-z_]+\/\d+/g;
const PLACEHOLDER_LINE = /^[ \t]*http:\/\/googleusercontent\.com\/[A-Za-z_]+\/\d+[ \t]*$/;

/**
 * Parses one captured StreamGenerate exchange plus the page snapshot.
 *
 * - `result_markdown`: the final candidate's text `[1][0]` (the card text `[22][0]` when `[1][0]` is a card_content
 *   placeholder), `googleusercontent.com/<kind>/<n>` placeholders removed, a trailing unfinished "\n```" dropped.
 *   Thoughts (`[37]`) and draft candidates are never read. Link destinations are normalised like citation URLs
 *   (Google redirects unwrapped, `#:~:text=` removed), so a URL reads the same in every field.
 * - `result`: that markdown as plain text (the chips are not part of the wire text).
 * - `citations`: from the DOM snapshot (see citations.ts).
 * - `llm_model`: the model label near the end of the final inner array as the site shows it ("3.6 Flash", "Fast"),
 *   else the mode picker's label; null if neither.
 *
 * The answer is complete once a candidate reached state 2 (`[8][0]`); builds that send no state at all count as
 * complete when the body ended normally. An error envelope after completion (1096 is seen on normal answers) is ignored.
 *
 * @throws UpstreamError for HTTP failures, challenges, sign-in walls, error envelopes, malformed and cut streams;
 *   ScraperDriftError when Gemini rejects the model header (1050/1052); UnexpectedResultError for an empty answer.
 */
export function parseGeminiAnswer(exchange: StreamCapture, page: GeminiPageSnapshot): GeminiAnswer {
  if (exchange.status !== 200) throw httpFailure(exchange);
  const wire = readGeminiWire(exchange.chunks);
  if (wire.frames === 0) {
    // a 200 that is an HTML page (an interstitial or a sign-in page) rather than frames
    const blocked = blockedBodyFailure(exchange);
    if (blocked !== null) throw blocked;
  }
  if (wire.error !== null && !wire.completed) throw errorEnvelopeFailure(wire.error);
  const final = wire.final;
  if (final === null || !isComplete(wire, exchange)) throw incompleteFailure(wire, exchange);

  // one URL normalisation for every field that carries a URL: links in the markdown read as citations[].url does
  const resultMarkdown = normaliseMarkdownUrls(cleanAnswerText(candidateText(final.candidate)));
  if (resultMarkdown === "") throw new UnexpectedResultError(DETAIL.empty, new Error("gemini: the final candidate has no text"));
  return {
    result: markdownToPlainText(resultMarkdown),
    result_markdown: resultMarkdown,
    citations: readGeminiCitations(page),
    llm_model: modelNameOnWire(wire, final.inner) ?? modelNameFromPicker(page.modePickerHtml),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Completion and failures

function isComplete(wire: GeminiWire, exchange: StreamCapture): boolean {
  if (wire.completed) return true;
  if (wire.sawState) return false;
  // builds without a state slot: a body that ended normally with the end trailer or the final context string
  const contextSet = wire.final !== null && wire.final.inner[25] !== undefined && wire.final.inner[25] !== null;
  return exchange.complete && !wire.endedMidFrame && wire.malformed === 0 && (wire.endTrailer || contextSet);
}

function incompleteFailure(wire: GeminiWire, exchange: StreamCapture): UnexpectedResultError | UpstreamError {
  const cause = new Error(
    `gemini stream: no complete candidate (complete=${exchange.complete}, endedMidFrame=${wire.endedMidFrame}, malformed=${wire.malformed}, frames=${wire.frames}, error=${exchange.error ?? "none"})`,
  );
  if (wire.malformed > 0) return new UpstreamError(DETAIL.malformed, { retryable: true, cause });
  // only trailer frames, ended normally: Gemini had nothing to say
  if (wire.final === null && exchange.complete && !wire.endedMidFrame) return new UnexpectedResultError(DETAIL.empty, cause);
  return new UpstreamError(DETAIL.truncated, { retryable: true, cause });
}

function errorEnvelopeFailure(error: GeminiErrorEnvelope): ServiceFailure {
  const cause = new Error(`gemini error envelope: status=${error.status ?? "none"} code=${error.code ?? "none"}`);
  switch (error.code) {
    case 1037:
      return new UpstreamError(DETAIL.usageLimit, { retryable: true, cause, reason: "rate_limited" });
    case 1152:
      return new UpstreamError(DETAIL.sessionTrouble, { retryable: true, cause, reason: "rate_limited" });
    case 1013:
      return new UpstreamError(DETAIL.temporary, { retryable: true, cause });
    case 1060:
      // gemini.md §5: 1060 "IP temporarily blocked / region not supported → `challenge`"
      return new UpstreamError(DETAIL.region, { retryable: true, cause, reason: "challenge" });
    case 1050:
    case 1052:
      return new ScraperDriftError("gemini", "model_header_rejected", `Gemini rejected the model header (error ${error.code})`);
    case null:
      if (error.status === INVALID_RESPONSE_STATUS) return new UnexpectedResultError(DETAIL.empty, cause);
      return new UpstreamError(DETAIL.streamError, { retryable: true, cause });
    default:
      return new UpstreamError(DETAIL.streamError, { retryable: true, cause });
  }
}

type ServiceFailure = UpstreamError | UnexpectedResultError;

function httpFailure(exchange: StreamCapture): UpstreamError {
  const cause = new Error(`gemini StreamGenerate HTTP ${exchange.status}${exchange.error !== null ? ` (${exchange.error})` : ""}`);
  if (exchange.status === 0) return new UpstreamError(DETAIL.unreachable, { retryable: true, cause });
  const blocked = blockedBodyFailure(exchange);
  if (blocked !== null) return blocked;
  if (exchange.status === 401 || exchange.status === 403)
    return new UpstreamError(DETAIL.login, { retryable: false, cause, reason: "login_wall" });
  if (exchange.status === 429) return new UpstreamError(DETAIL.rateLimited, { retryable: true, cause, reason: "rate_limited" });
  if (exchange.status === 400) return new UpstreamError(DETAIL.badRequest, { retryable: true, cause });
  return new UpstreamError(DETAIL.httpError, { retryable: true, cause });
}

/** A body that is Google's anti-bot page or a sign-in page instead of frames. */
function blockedBodyFailure(exchange: StreamCapture): UpstreamError | null {
  const body = decodeUtf8Chunks(exchange.chunks);
  const cause = new Error(`gemini StreamGenerate HTTP ${exchange.status}: body is not a frame stream`);
  if (CHALLENGE_MARKERS.test(body) || CHALLENGE_MARKERS.test(exchange.url))
    return new UpstreamError(DETAIL.challenge, { retryable: true, cause, reason: "challenge" });
  if (SIGN_IN_MARKERS.test(body)) return new UpstreamError(DETAIL.login, { retryable: false, cause, reason: "login_wall" });
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Field mapping

/** `[1][0]`, or the card text `[22][0]` when `[1][0]` is a card_content placeholder. */
function candidateText(candidate: readonly unknown[]): string {
  const text = firstString(candidate[1]) ?? "";
  if (CARD_PLACEHOLDER.test(text)) return firstString(candidate[22]) ?? "";
  return text;
}

function firstString(slot: unknown): string | null {
  const value: unknown = Array.isArray(slot) ? slot[0] : undefined;
  return typeof value === "string" ? value : null;
}

/**
 * Removes googleusercontent placeholders (a line that holds only one goes away with one blank line next to it) and a
 * trailing "\n```" that opens a fence nothing closes.
 */
export function cleanAnswerText(raw: string): string {
  const lines = raw.replace(/\r\n?/g, "\n").split("\n");
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? "";
    if (PLACEHOLDER_LINE.test(line)) {
      if ((kept.at(-1) ?? "").trim() === "" && (lines[index + 1] ?? "").trim() === "") index += 1;
      continue;
    }
    kept.push(line.replace(PLACEHOLDER, ""));
  }
  let text = kept.join("\n");
  const fences = kept.filter((line) => /^[ \t]*```/.test(line)).length;
  if (fences % 2 === 1 && /\n[ \t]*```[ \t]*$/.test(text)) text = text.replace(/\n[ \t]*```[ \t]*$/, "");
  return text.replace(/^(?:[ \t]*\n)+/, "").trimEnd();
}

/**
 * The model label on the wire, as the site shows it (gemini.md §3: "the model's display name appears near the end of
 * the inner array on the final chunk (exact index unverified)"; the March 2026 capture carries "Fast" there, a mode
 * label rather than a "<version> Flash" name). First a name of the known "<version> Flash/Pro" shapes anywhere near the
 * end of a data frame's inner array; else the last label-like string among the final inner array's own slots after the
 * candidates (not the context string `[25]`, ids, hashes, tokens, URLs, language or country codes).
 */
function modelNameOnWire(wire: GeminiWire, finalInner: readonly unknown[]): string | null {
  const inners = [finalInner, ...[...wire.inners].reverse().filter((inner) => inner !== finalInner)];
  for (const inner of inners) {
    for (let index = inner.length - 1; index > 4; index -= 1) {
      const found = findModelName(inner[index], 3);
      if (found !== null) return found;
    }
  }
  for (let index = finalInner.length - 1; index > 4; index -= 1) {
    const value = finalInner[index];
    if (index !== CONTEXT_SLOT && typeof value === "string" && isDisplayLabel(value)) return value.trim();
  }
  return null;
}

/** A short human label ("Fast", "Thinking", "Pro", "2.5 Flash"), not an identifier, token, URL or locale code. */
function isDisplayLabel(value: string): boolean {
  const label = value.trim();
  if (label === "" || label.length > 40 || !/\p{L}/u.test(label)) return false;
  if (NOT_A_LABEL.some((pattern) => pattern.test(label))) return false;
  return true;
}

function findModelName(value: unknown, depth: number): string | null {
  if (typeof value === "string") {
    const name = value.trim();
    return MODEL_NAME.test(name) ? name : null;
  }
  if (!Array.isArray(value) || depth === 0) return null;
  for (let index = value.length - 1; index >= 0; index -= 1) {
    const found = findModelName(value[index], depth - 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The mode picker's label as the page shows it: the button's visible text (icons removed), else what its aria-label
 * names after "currently" ("Open mode picker, currently Flash" → "Flash"; the wording is "like" that, gemini.md §2, so
 * its case and padding are not relied on when the text is there).
 */
function modelNameFromPicker(html: string | null): string | null {
  if (html === null) return null;
  const root = parseHtml(html);
  const button = queryOne(root, "button") ?? queryOne(root, "*");
  if (button === null) return null;
  const label = attributeOf(button, "aria-label") ?? "";
  removeAll(button, "mat-icon, svg, .mat-icon, [aria-hidden='true']");
  const text = textOf(button).replace(/\s+/g, " ").trim();
  if (text !== "" && text.length <= 40) return text;
  const current = /currently\s+(.+?)\s*\.?\s*$/i.exec(label.replace(/\s+/g, " "));
  if (current?.[1] !== undefined && current[1].trim() !== "") return current[1].trim();
  return null;
}
