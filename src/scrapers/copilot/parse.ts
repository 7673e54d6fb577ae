/**
 * Pure parser for Copilot's chat exchange (copilot.md §3–§5): the captured WebSocket frames of
 * `/c/api/chat?api-version=2` (and the `POST /c/api/start` the page made) in, the Copilot fields of spec §2.6 out, or
 * a ServiceError saying why there is no answer. Details never carry provider text; provider text goes only into `cause`.
 *
 * Reading is lenient: frames are split defensively (frames.ts), unknown events and fields are ignored, optional fields
 * may be absent (an `appendText` without `messageId` belongs to the message being streamed). Output is strict: the
 * answer exists only once a `done` event arrived, and a frame that could not be read before it fails the exchange
 * rather than risk an answer with a hole in it.
 */
import { UnexpectedResultError, UpstreamError } from "../../errors";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { decodeUtf8Chunks } from "../shared/decode/lines";
import { markdownToPlainText } from "../shared/markdown";
import type { CopilotCitation, CopilotParsedAnswer } from "./declaration";
import { decodeFrame, frameText } from "./frames";
import { isInternalUrl, markdownLinkTargets, normaliseAnswerUrl, normaliseMarkdownLinks } from "./urls";
import { isRecord, type JsonRecord } from "../../util/json-record";

/** What the parser needs of the chat WebSocket exchange. */
export type ChatCapture = Pick<CapturedExchange, "status" | "frames" | "complete" | "error">;
/** What the parser needs of the `POST /c/api/start` exchange. */
export type StartCapture = Pick<CapturedExchange, "status" | "chunks" | "complete" | "error">;

export const COPILOT_DETAIL = {
  login: "Copilot asked the browser session to sign in (login wall).",
  banned: "Copilot blocked this browser session (banned): a new or signed-in session is needed (login wall).",
  rateLimit: "Copilot's rate limit (daily turns) was reached. Retry later.",
  challenge: "Copilot answered with an anti-bot challenge. Safe to retry.",
  refused: "Copilot refused the chat connection. Safe to retry.",
  startFailed: "Copilot could not start a conversation. Safe to retry.",
  streamError: "Copilot reported an error while answering. Safe to retry.",
  malformed: "Copilot sent a message that could not be read. Safe to retry.",
  disconnected: "Copilot's connection closed before the answer was complete. Safe to retry.",
  incomplete: "Copilot's answer did not complete. Safe to retry.",
  empty: "Copilot returned an empty answer. Safe to retry.",
} as const;

/** Challenge methods the page solves by itself (a proof of work); any other method needs a human or a real browser. */
const SELF_SOLVED_CHALLENGES = new Set(["hashcash"]);
/** Error codes that mean a usage limit rather than a fault. */
const RATE_LIMIT_CODE = /throttl|rate.?limit|too.?many|limit.?reached|quota/i;

/** A server event that ends the turn without an answer. */
interface TurnFailure {
  kind: "banned" | "error";
  event: JsonRecord;
}

/** Everything read from the frames that follow the page's `send` frame, up to the answer's `done` (or the end). */
export interface ChatReading {
  /** The `send` frame the page sent (the last one), or null when none was captured. */
  send: JsonRecord | null;
  /** Text parts per messageId, in the order they first appeared; "" collects deltas with no message to belong to. */
  messages: Map<string, Map<string, string>>;
  /** messageId of the `done` that ended the answer; undefined while there is none, null when it named no message. */
  doneMessageId: string | null | undefined;
  /** messageId of the last `startMessage`: the message being streamed. */
  streamingMessageId: string | null;
  citations: JsonRecord[];
  failure: TurnFailure | null;
  /** The last challenge that the page cannot solve by itself, if no answer followed it yet. */
  unsolvedChallenge: JsonRecord | null;
  /** A received frame (after `send`, before `done`) could not be read. */
  malformed: boolean;
  /** How many frames the server sent after `send`. */
  receivedFrames: number;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The index of the last `send` frame the page sent, or -1. */
function lastSendIndex(frames: ChatCapture["frames"]): { index: number; send: JsonRecord | null } {
  for (let index = frames.length - 1; index >= 0; index -= 1) {
    const frame = frames[index];
    if (frame === undefined || frame.direction !== "sent") continue;
    const text = frameText(frame);
    if (text === null) continue;
    const send = decodeFrame(text).values.find((value): value is JsonRecord => isRecord(value) && value.event === "send");
    if (send !== undefined) return { index, send };
  }
  return { index: -1, send: null };
}

/**
 * Reads the frames the server sent after the page's last `send` frame (all frames when no `send` was captured), up to
 * and including the `done` that ends the answer or the first event that ends the turn without one.
 */
export function readChat(exchange: ChatCapture): ChatReading {
  const { index: sendIndex, send } = lastSendIndex(exchange.frames);
  const reading: ChatReading = {
    send,
    messages: new Map(),
    doneMessageId: undefined,
    streamingMessageId: null,
    citations: [],
    failure: null,
    unsolvedChallenge: null,
    malformed: false,
    receivedFrames: 0,
  };
  const partsOf = (messageId: string): Map<string, string> => {
    const existing = reading.messages.get(messageId);
    if (existing !== undefined) return existing;
    const created = new Map<string, string>();
    reading.messages.set(messageId, created);
    return created;
  };

  for (const frame of exchange.frames.slice(sendIndex + 1)) {
    if (frame.direction !== "received") continue;
    reading.receivedFrames += 1;
    const text = frameText(frame);
    const decoded = text === null ? { values: [], malformed: true } : decodeFrame(text);
    // the values of a damaged frame all precede the damage: a `done` among them still counts
    for (const value of decoded.values) {
      if (!isRecord(value)) continue;
      const messageId = stringOrNull(value.messageId);
      switch (value.event) {
        case "received":
          reading.unsolvedChallenge = null;
          break;
        case "startMessage":
          reading.streamingMessageId = messageId ?? reading.streamingMessageId;
          reading.unsolvedChallenge = null;
          break;
        case "appendText":
        case "replaceText": {
          if (typeof value.text !== "string") break;
          const parts = partsOf(messageId ?? reading.streamingMessageId ?? "");
          const partId = stringOrNull(value.partId) ?? "";
          parts.set(partId, value.event === "appendText" ? (parts.get(partId) ?? "") + value.text : value.text);
          reading.unsolvedChallenge = null;
          break;
        }
        case "citation":
          reading.citations.push(value);
          break;
        case "challenge":
          reading.unsolvedChallenge = SELF_SOLVED_CHALLENGES.has(String(value.method)) ? null : value;
          break;
        case "done":
          reading.doneMessageId = messageId ?? reading.streamingMessageId;
          return reading;
        case "banned":
          reading.failure = { kind: "banned", event: value };
          return reading;
        case "error":
        case "chatMessageError":
          reading.failure = { kind: "error", event: value };
          return reading;
        default:
          // partCompleted, chainOfThought, cards, images, pong and every unknown event carry no answer text
          break;
      }
    }
    if (decoded.malformed) reading.malformed = true;
  }
  return reading;
}

/** Whether waiting for more frames can change the outcome: false once the answer is done or the turn failed. */
export function chatSettled(reading: ChatReading): boolean {
  return reading.doneMessageId !== undefined || reading.failure !== null;
}

/**
 * Parses one captured Copilot chat exchange.
 *
 * - `result_markdown`: the text parts of the message the `done` event names (else the message being streamed, else the
 *   only message of the turn with text), in the order they first appeared; each part is its concatenated `appendText` deltas after any `replaceText`; non-blank
 *   parts joined by a blank line. `chainOfThought` text is never part of it.
 *   Its link targets are normalised like `links` (a text fragment directive dropped, a redirect wrapper unwrapped).
 * - `result`: its plain text (citation links `[n](url)` kept as `[n]`).
 * - `citations`: `citation` events in arrival order with an http(s) url, de-duplicated by normalised url (first
 *   title wins); a missing or blank title falls back to the url's hostname.
 * - `links`: markdown link targets of `result_markdown` in document order, then the citation urls; http(s) only,
 *   normalised, de-duplicated, without Copilot's or Microsoft's own URLs (nor the `origin` scraped).
 *
 * @throws UpstreamError for a refused socket, `banned`, `error`/`chatMessageError` events, an unanswered anti-bot
 *   challenge, an unreadable frame, or a socket that closed (or a capture that ended) before `done`;
 *   UnexpectedResultError for a `done` without any text.
 */
export function parseCopilotChat(exchange: ChatCapture, options: { origin?: string | null } = {}): CopilotParsedAnswer {
  if (exchange.status !== 101 && exchange.frames.length === 0) {
    throw new UpstreamError(COPILOT_DETAIL.refused, {
      retryable: true,
      cause: new Error(`copilot chat socket not opened (status ${exchange.status}, ${exchange.error ?? "no error"})`),
    });
  }
  const reading = readChat(exchange);
  if (reading.doneMessageId === undefined) throw unfinished(reading, exchange);
  if (reading.malformed) {
    throw new UpstreamError(COPILOT_DETAIL.malformed, { retryable: true, cause: new Error("copilot chat: unreadable frame before done") });
  }

  // link targets normalised as `links` and `citations` are: one URL, one form, in every field
  const resultMarkdown = normaliseMarkdownLinks(joinParts(answerParts(reading)));
  if (resultMarkdown === "") throw new UnexpectedResultError(COPILOT_DETAIL.empty);

  const citations = toCitations(reading.citations);
  const origin = options.origin ?? null;
  return {
    result: markdownToPlainText(resultMarkdown),
    result_markdown: resultMarkdown,
    citations,
    links: outboundLinks(resultMarkdown, citations, origin),
  };
}

/**
 * The text parts of the answer: those of the message `done` names; else (a `done` naming another message, or none)
 * of the message being streamed, of deltas that named no message, or of the only message of the turn with text.
 */
function answerParts(reading: ChatReading): string[] {
  const hasText = (parts: Map<string, string>): boolean => [...parts.values()].some((part) => part.trim() !== "");
  for (const id of [reading.doneMessageId, reading.streamingMessageId, ""]) {
    const parts = id === null || id === undefined ? undefined : reading.messages.get(id);
    if (parts !== undefined && hasText(parts)) return [...parts.values()];
  }
  const withText = [...reading.messages.values()].filter(hasText);
  const [only] = withText;
  return withText.length === 1 && only !== undefined ? [...only.values()] : [];
}

/** Why a turn has no `done`: the first failure event, an unanswered challenge, a bad frame, or the socket's end. */
function unfinished(reading: ChatReading, exchange: ChatCapture): UpstreamError {
  const failure = reading.failure;
  if (failure?.kind === "banned") {
    return new UpstreamError(COPILOT_DETAIL.banned, {
      retryable: false,
      cause: new Error("copilot chat: banned event"),
      reason: "login_wall",
    });
  }
  if (failure?.kind === "error") {
    const code = [failure.event.errorCode, failure.event.code, failure.event.error].filter((value) => typeof value === "string").join(" ");
    const cause = new Error(`copilot chat: ${String(failure.event.event)} ${JSON.stringify(failure.event).slice(0, 500)}`);
    return RATE_LIMIT_CODE.test(code)
      ? new UpstreamError(COPILOT_DETAIL.rateLimit, { retryable: true, cause, reason: "rate_limited" })
      : new UpstreamError(COPILOT_DETAIL.streamError, { retryable: true, cause });
  }
  if (reading.unsolvedChallenge !== null) {
    const method = reading.unsolvedChallenge.method;
    return new UpstreamError(COPILOT_DETAIL.challenge, {
      retryable: true,
      cause: new Error(`copilot chat: unanswered challenge (method ${String(method)})`),
      reason: "challenge",
    });
  }
  if (reading.malformed) {
    return new UpstreamError(COPILOT_DETAIL.malformed, { retryable: true, cause: new Error("copilot chat: unreadable frame") });
  }
  const cause = new Error(
    `copilot chat: no done (complete=${exchange.complete}, error=${exchange.error ?? "none"}, frames=${reading.receivedFrames})`,
  );
  const ended = exchange.complete || exchange.error !== null;
  return new UpstreamError(ended ? COPILOT_DETAIL.disconnected : COPILOT_DETAIL.incomplete, { retryable: true, cause });
}

/**
 * Why `POST /c/api/start` says this session may not chat (copilot.md §5), or null when it does not say so (a start
 * that is still running or answered normally).
 */
export function parseCopilotStart(exchange: StartCapture): UpstreamError | null {
  if (exchange.status === 0) return null;
  const cause = new Error(`copilot start: HTTP ${exchange.status}`);
  if (exchange.status === 401) return new UpstreamError(COPILOT_DETAIL.login, { retryable: false, cause, reason: "login_wall" });
  if (exchange.status === 429) return new UpstreamError(COPILOT_DETAIL.rateLimit, { retryable: true, cause, reason: "rate_limited" });
  if (exchange.status < 200 || exchange.status >= 300) return new UpstreamError(COPILOT_DETAIL.startFailed, { retryable: true, cause });
  if (!exchange.complete) return null;
  let body: unknown;
  try {
    body = JSON.parse(decodeUtf8Chunks(exchange.chunks));
  } catch {
    return null;
  }
  if (!isRecord(body)) return null;
  if (body.isBlocked === true) {
    return new UpstreamError(COPILOT_DETAIL.login, {
      retryable: false,
      cause: new Error("copilot start: isBlocked"),
      reason: "login_wall",
    });
  }
  if (body.remainingTurns === 0) {
    return new UpstreamError(COPILOT_DETAIL.rateLimit, {
      retryable: true,
      cause: new Error("copilot start: remainingTurns 0"),
      reason: "rate_limited",
    });
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Field mapping

/** Non-blank parts, each without leading blank lines and trailing whitespace, separated by one blank line. */
function joinParts(parts: readonly string[]): string {
  return parts
    .map((part) => part.replace(/\r\n?/g, "\n"))
    .filter((part) => part.trim() !== "")
    .map((part) => part.replace(/^(?:[ \t]*\n)+/, "").trimEnd())
    .join("\n\n");
}

function toCitations(events: readonly JsonRecord[]): CopilotCitation[] {
  const seen = new Set<string>();
  const citations: CopilotCitation[] = [];
  for (const event of events) {
    const raw = stringOrNull(event.url);
    const url = raw === null ? null : normaliseAnswerUrl(raw);
    if (url === null || seen.has(url)) continue;
    seen.add(url);
    const title = stringOrNull(event.title)?.trim() ?? "";
    citations.push({ title: title !== "" ? title : new URL(url).hostname, url });
  }
  return citations;
}

function outboundLinks(resultMarkdown: string, citations: readonly CopilotCitation[], origin: string | null): string[] {
  const links: string[] = [];
  const seen = new Set<string>();
  for (const raw of [...markdownLinkTargets(resultMarkdown), ...citations.map((citation) => citation.url)]) {
    const url = normaliseAnswerUrl(raw);
    if (url === null || seen.has(url) || isInternalUrl(url, origin)) continue;
    seen.add(url);
    links.push(url);
  }
  return links;
}
