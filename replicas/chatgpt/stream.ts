/**
 * The `text/event-stream` body of `POST /backend-api/f/conversation`, built from a scenario exactly as chatgpt.md §3
 * describes: the "v1" delta encoding (an `add` per message, `append` / value-only continuation frames, `patch` frames
 * mixing text and metadata, typed frames, `message_stream_complete`, `[DONE]`), or the old cumulative format where every
 * `data:` carries the whole message. Exported so tests can build the same bytes the replica sends.
 */
import type { AnswerSegment, ChatgptScenario, ChatgptSearch, ChatgptSource, HiddenMessage, SourceRef } from "./scenarios";

/** What the page sent that the answer echoes. */
export interface ChatgptRequestEcho {
  prompt: string;
  /** `messages[0].id` of the request: the stream's `input_message` carries it. */
  userMessageId: string;
  /** false when the request's `supported_encodings` lacks "v1": the site then answers in the old format. */
  supportsV1: boolean;
}

/** What a frame carries, so that faults can cut the stream at the right place. */
export type FrameKind = "encoding" | "typed" | "message" | "answer_add" | "answer_text" | "answer_patch" | "answer_final" | "done";

export interface SseFrame {
  kind: FrameKind;
  /** The `event:` line, if any. */
  event?: string;
  /** The `data:` payload (JSON text, or `[DONE]`). */
  data: string;
}

export type JsonObject = { [key: string]: unknown };

// ---------------------------------------------------------------------------------------------------------------
// Deterministic ids and URLs

/** A UUID-shaped id derived from a seed (FNV-1a), so that ids are stable across runs. */
export function stableUuid(seed: string): string {
  let hex = "";
  for (let round = 0; hex.length < 32; round += 1) {
    let hash = 0x811c9dc5 ^ round;
    for (let index = 0; index < seed.length; index += 1) {
      hash ^= seed.charCodeAt(index);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    hex += hash.toString(16).padStart(8, "0");
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The provider's tracking parameter, added to every URL it links (chatgpt.md §4). */
export const TRACKING_PARAMETER = "utm_source=chatgpt.com";

/** `url` with the provider's tracking parameter, inserted before any fragment. */
export function withTracking(url: string): string {
  const hashAt = url.indexOf("#");
  const [head, fragment] = hashAt < 0 ? [url, ""] : [url.slice(0, hashAt), url.slice(hashAt)];
  return `${head}${head.includes("?") ? "&" : "?"}${TRACKING_PARAMETER}${fragment}`;
}

export function wireUrlOf(item: { url: string; wireUrl?: string }): string {
  return item.wireUrl ?? withTracking(item.url);
}

// ---------------------------------------------------------------------------------------------------------------
// The answer's raw text and content references

/** The answer as the site streams it: `parts[0]` with markers, and the references that resolve them. */
export interface RawAnswer {
  text: string;
  /** Each reference with the offset (in `text`) after which the site can send it. */
  references: Array<{ readyAt: number; reference: JsonObject }>;
}

export function citationMarker(refs: readonly SourceRef[]): string {
  return `\ue200cite${refs.map((ref) => `\ue202turn${ref.search}search${ref.index}`).join("")}\ue201`;
}

export function citedSources(scenario: ChatgptScenario, refs: readonly SourceRef[]): ChatgptSource[] {
  return refs.flatMap((ref) => {
    const cited = scenario.searches[ref.search]?.sources[ref.index];
    return cited === undefined ? [] : [cited];
  });
}

function citationReference(scenario: ChatgptScenario, refs: readonly SourceRef[], matched: string, start: number): JsonObject {
  const sources = citedSources(scenario, refs);
  const first = sources[0];
  return {
    matched_text: matched,
    start_idx: start,
    end_idx: start + matched.length,
    safe_urls: sources.map(wireUrlOf),
    refs: [],
    alt: first === undefined ? "" : `([${first.attribution}](${wireUrlOf(first)}))`,
    prompt_text: null,
    type: "grouped_webpages",
    items: sources.map((cited, index) => ({
      title: cited.title,
      url: wireUrlOf(cited),
      pub_date: null,
      snippet: cited.snippet,
      attribution_segments: null,
      supporting_websites: [],
      refs: [{ turn_index: refs[index]?.search ?? 0, ref_type: "search", ref_index: refs[index]?.index ?? 0 }],
      hue: null,
      attributions: null,
      attribution: cited.attribution,
    })),
    fallback_items: [],
    status: "done",
    error: null,
    style: null,
  };
}

export function widgetMarker(segment: Extract<AnswerSegment, { kind: "widget" }>): string {
  return `\ue200${segment.widget}\ue202${segment.body}\ue201`;
}

export function segmentText(segment: AnswerSegment): string {
  switch (segment.kind) {
    case "text":
      return segment.text;
    case "link":
      return `[${segment.text}](${wireUrlOf(segment)})`;
    case "cite":
      return citationMarker(segment.refs);
    case "widget":
      return widgetMarker(segment);
    case "orphan":
      return `\ue200${segment.body}\ue201`;
    case "stray":
      return segment.char;
  }
}

export function buildRawAnswer(scenario: ChatgptScenario, prompt: string): RawAnswer {
  let text = "";
  const references: RawAnswer["references"] = [];
  for (const segment of scenario.answer(prompt)) {
    const piece = segmentText(segment);
    const start = text.length;
    text += piece;
    if (segment.kind === "cite") {
      references.push({ readyAt: text.length, reference: citationReference(scenario, segment.refs, piece, start) });
    } else if (segment.kind === "widget") {
      references.push({
        readyAt: text.length,
        reference: {
          matched_text: piece,
          start_idx: start,
          end_idx: text.length,
          safe_urls: [],
          refs: [],
          alt: segment.alt,
          prompt_text: segment.promptText,
          type: segment.widget,
          status: "done",
        },
      });
    }
  }
  if (scenario.sourcesFootnote) {
    const sources = scenario.searches.flatMap((search) => search.sources);
    references.push({
      readyAt: text.length,
      reference: {
        matched_text: " ",
        start_idx: text.length,
        end_idx: text.length,
        safe_urls: [],
        refs: [],
        alt: "",
        prompt_text: "",
        type: "sources_footnote",
        sources: sources.map((cited) => ({ title: cited.title, url: wireUrlOf(cited), attribution: cited.attribution })),
        has_images: false,
      },
    });
  }
  return { text, references };
}

/** Cuts `text` into pieces of `size` code points (never inside a surrogate pair; markers may be cut, as on the site). */
export function splitText(text: string, size: number): string[] {
  const characters = Array.from(text);
  const pieces: string[] = [];
  for (let index = 0; index < characters.length; index += size) pieces.push(characters.slice(index, index + size).join(""));
  return pieces;
}

// ---------------------------------------------------------------------------------------------------------------
// Message documents

interface Ids {
  conversationId: string;
  answerId: string;
  messageId: (name: string) => string;
  time: (step: number) => number;
}

function idsOf(scenario: ChatgptScenario): Ids {
  const base = 1_793_000_000 + scenario.id.length * 1000;
  return {
    conversationId: stableUuid(`${scenario.id}/conversation`),
    answerId: stableUuid(`${scenario.id}/answer`),
    messageId: (name) => stableUuid(`${scenario.id}/${name}`),
    time: (step) => base + step * 0.731,
  };
}

function author(role: string, name: string | null = null): JsonObject {
  return { role, name, metadata: {} };
}

function searchCallMessage(ids: Ids, index: number, search: ChatgptSearch, call: "code" | "text"): JsonObject {
  return {
    id: ids.messageId(`call-${index}`),
    author: author("assistant"),
    create_time: ids.time(10 + index),
    update_time: null,
    content:
      call === "code"
        ? { content_type: "code", language: "unknown", response_format_name: null, text: "" }
        : { content_type: "text", parts: [""] },
    status: "in_progress",
    end_turn: null,
    weight: 1.0,
    metadata: { reasoning_status: "is_reasoning", search_queries: search.queries.map((q) => ({ type: "search", q })) },
    recipient: "web.run",
    channel: call === "code" ? "analysis" : null,
  };
}

function searchCallText(search: ChatgptSearch): string {
  return JSON.stringify({ search_query: search.queries.map((q) => ({ q, recency: null })), response_length: "short" });
}

function toolMessage(ids: Ids, index: number, search: ChatgptSearch, scenario: ChatgptScenario): JsonObject {
  const domains = new Map<string, Array<{ source: ChatgptSource; position: number }>>();
  search.sources.forEach((cited, position) => {
    const domain = new URL(cited.url).hostname;
    domains.set(domain, [...(domains.get(domain) ?? []), { source: cited, position }]);
  });
  return {
    id: ids.messageId(`tool-${index}`),
    author: author("tool", search.toolName),
    create_time: ids.time(20 + index),
    update_time: null,
    content: { content_type: "text", parts: [""] },
    status: "finished_successfully",
    end_turn: null,
    weight: 0.0,
    metadata: {
      search_model_queries: { type: "search_model_queries", queries: [...search.queries] },
      search_result_groups: [...domains].map(([domain, entries]) => ({
        type: "search_result_group",
        domain,
        entries: entries.map(({ source: cited, position }) => ({
          type: "search_result",
          url: cited.url,
          title: cited.title,
          snippet: cited.snippet,
          ref_id: { turn_index: index, ref_type: "search", ref_index: position },
          pub_date: null,
          attribution: cited.attribution,
        })),
      })),
      model_slug: scenario.modelSlug,
      is_visually_hidden_from_conversation: false,
    },
    recipient: "all",
    channel: null,
  };
}

function hiddenMessage(ids: Ids, index: number, hidden: HiddenMessage): JsonObject {
  const common = {
    id: ids.messageId(`hidden-${index}`),
    author: author("assistant"),
    create_time: ids.time(5 + index),
    update_time: null,
    end_turn: null,
    weight: 1.0,
    recipient: "all",
  };
  switch (hidden.kind) {
    case "thoughts":
      return {
        ...common,
        content: { content_type: "thoughts", thoughts: [], source_analysis_msg_id: ids.messageId("analysis") },
        status: "in_progress",
        metadata: { reasoning_status: "is_reasoning" },
        channel: "analysis",
      };
    case "reasoning_recap":
      return {
        ...common,
        content: { content_type: "reasoning_recap", content: hidden.text },
        status: "finished_successfully",
        metadata: { reasoning_status: "reasoning_ended", is_visually_hidden_from_conversation: false },
        channel: "analysis",
      };
    case "commentary":
      return {
        ...common,
        content: { content_type: "text", parts: [""] },
        status: "in_progress",
        metadata: { is_visually_hidden_from_conversation: true },
        channel: "commentary",
      };
  }
}

function answerMetadata(ids: Ids, scenario: ChatgptScenario): JsonObject {
  const metadata: JsonObject = {
    citations: [],
    content_references: [],
    request_id: stableUuid(`${scenario.id}/request`),
    message_type: "next",
    model_slug: scenario.modelSlug,
    default_model_slug: "auto",
    parent_id: ids.messageId("parent"),
  };
  if (scenario.resolvedModelSlug !== null) metadata.resolved_model_slug = scenario.resolvedModelSlug;
  return metadata;
}

function answerMessage(ids: Ids, scenario: ChatgptScenario, legacy: boolean, overrides: JsonObject = {}): JsonObject {
  const message: JsonObject = {
    id: ids.answerId,
    author: author("assistant"),
    create_time: ids.time(40),
    update_time: null,
    content: { content_type: "text", parts: [""] },
    status: "in_progress",
    end_turn: null,
    weight: 1.0,
    metadata: answerMetadata(ids, scenario),
    recipient: "all",
    ...overrides,
  };
  // older builds (the cumulative format) have no channels
  if (!legacy) message.channel = "final";
  return message;
}

function finishDetails(scenario: ChatgptScenario): JsonObject {
  return scenario.finish === "stop" ? { type: "stop", stop_tokens: [200002] } : { type: "max_tokens" };
}

function finishedStatus(scenario: ChatgptScenario): string {
  return scenario.finish === "stop" ? "finished_successfully" : "finished_partial_completion";
}

// ---------------------------------------------------------------------------------------------------------------
// Frames

/**
 * JSON of a frame. With `escapeNonAscii` every non-ASCII UTF-16 unit becomes a `\u` escape (what Python's json.dumps
 * does by default, so the markers arrive as `\ue200`); otherwise characters travel as raw UTF-8.
 */
function json(scenario: ChatgptScenario, value: unknown): string {
  const serialised = JSON.stringify(value);
  if (!scenario.escapeNonAscii) return serialised;
  return serialised.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function typedFrames(scenario: ChatgptScenario, ids: Ids, position: "start" | "end"): SseFrame[] {
  const typed = (value: JsonObject): SseFrame => ({ kind: "typed", data: json(scenario, value) });
  const conversation_id = ids.conversationId;
  if (position === "start") {
    return [typed({ type: "resume_conversation_token", kind: "topic", token: `eyJhbGciOi${scenario.id.length}Jk`, conversation_id })];
  }
  return [
    typed({
      type: "server_ste_metadata",
      metadata: {
        conduit_prewarmed: false,
        fast_convo: true,
        warmup_state: "warm",
        is_first_turn: true,
        model_slug: scenario.modelSlug,
        did_auto_switch_to_reasoning: false,
        is_search: scenario.searches.length > 0,
        tool_name: scenario.searches.length > 0 ? "web.run" : null,
        turn_exchange_id: stableUuid(`${scenario.id}/exchange`),
      },
      conversation_id,
    }),
    typed({ type: "a_future_frame_type", payload: { anything: [1, 2, 3] }, conversation_id }),
    typed({ type: "title_generation", title: scenario.title, conversation_id }),
    typed({
      type: "conversation_detail_metadata",
      banner_info: null,
      blocked_features: [],
      model_limits: [],
      limits_progress: [{ feature_name: "file_upload", remaining: 3, reset_after: "2026-11-23T10:00:00+00:00" }],
      default_model_slug: "auto",
      conversation_id,
    }),
    typed({ type: "message_stream_complete", conversation_id }),
  ];
}

function inputMessageFrame(scenario: ChatgptScenario, ids: Ids, request: ChatgptRequestEcho): SseFrame {
  return {
    kind: "typed",
    data: json(scenario, {
      type: "input_message",
      input_message: {
        id: request.userMessageId,
        author: author("user"),
        create_time: ids.time(0),
        update_time: null,
        content: { content_type: "text", parts: [request.prompt] },
        status: "finished_successfully",
        end_turn: null,
        weight: 1.0,
        metadata: { system_hints: ["search"], request_id: stableUuid(`${scenario.id}/request`) },
        recipient: "all",
        channel: null,
      },
      conversation_id: ids.conversationId,
    }),
  };
}

/** Builds the frames of one message of the v1 encoding; tracks the message index `c`. */
class V1Writer {
  readonly frames: SseFrame[] = [];
  private index = 0;

  constructor(
    private readonly scenario: ChatgptScenario,
    private readonly ids: Ids,
  ) {}

  add(message: JsonObject, kind: FrameKind = "message"): void {
    const frame: JsonObject = { p: "", o: "add", v: { message, conversation_id: this.ids.conversationId, error: null } };
    if (this.scenario.withMessageIndex) frame.c = this.index;
    this.index += 1;
    this.delta(frame, kind);
  }

  /** Appends text at `pointer`: the first frame names path and op, the others carry only `v`. */
  appendText(pointer: string, pieces: readonly string[], kind: FrameKind = "message"): void {
    pieces.forEach((piece, position) => {
      this.delta(position === 0 ? { p: pointer, o: "append", v: piece } : { v: piece }, kind);
    });
  }

  patch(operations: JsonObject[], kind: FrameKind = "message"): void {
    this.delta({ p: "", o: "patch", v: operations }, kind);
  }

  delta(value: JsonObject, kind: FrameKind): void {
    this.frames.push({ kind, event: "delta", data: json(this.scenario, value) });
  }
}

const finishedPatch = (): JsonObject => ({ p: "/message/status", o: "replace", v: "finished_successfully" });

/** Every frame of a normal v1 answer, in the order the site sends them. */
export function buildV1Frames(
  scenario: ChatgptScenario,
  request: ChatgptRequestEcho,
  options: { withAnswer: boolean } = { withAnswer: true },
): SseFrame[] {
  const ids = idsOf(scenario);
  const writer = new V1Writer(scenario, ids);
  writer.frames.push({ kind: "encoding", event: "delta_encoding", data: '"v1"' });
  writer.frames.push(...typedFrames(scenario, ids, "start"));
  writer.frames.push(inputMessageFrame(scenario, ids, request));

  scenario.hidden.forEach((hidden, index) => {
    writer.add(hiddenMessage(ids, index, hidden));
    if (hidden.kind === "thoughts") {
      writer.delta(
        {
          p: "/message/content/thoughts",
          o: "append",
          v: [{ summary: hidden.summary, content: hidden.content, chunks: [], finished: true }],
        },
        "message",
      );
      writer.patch([finishedPatch(), { p: "/message/metadata/reasoning_status", o: "replace", v: "reasoning_ended" }]);
    } else if (hidden.kind === "commentary") {
      writer.appendText("/message/content/parts/0", splitText(hidden.text, scenario.frameChars));
      writer.patch([finishedPatch(), { p: "/message/end_turn", o: "replace", v: false }]);
    }
  });

  scenario.searches.forEach((search, index) => {
    if (search.call !== null) {
      writer.add(searchCallMessage(ids, index, search, search.call));
      const pointer = search.call === "code" ? "/message/content/text" : "/message/content/parts/0";
      writer.appendText(pointer, splitText(searchCallText(search), 40));
      writer.patch([finishedPatch()]);
    }
    writer.add(toolMessage(ids, index, search, scenario));
  });

  if (options.withAnswer) writeV1Answer(writer, scenario, ids, request);
  writer.frames.push(...typedFrames(scenario, ids, "end"));
  writer.frames.push({ kind: "done", data: "[DONE]" });
  return writer.frames;
}

function writeV1Answer(writer: V1Writer, scenario: ChatgptScenario, ids: Ids, request: ChatgptRequestEcho): void {
  const raw = buildRawAnswer(scenario, request.prompt);
  const pieces = splitText(raw.text, scenario.frameChars);
  writer.add(answerMessage(ids, scenario, false), "answer_add");
  writer.frames.push({
    kind: "typed",
    data: json(scenario, {
      type: "message_marker",
      conversation_id: ids.conversationId,
      message_id: ids.answerId,
      marker: "user_visible_token",
      event: "first",
    }),
  });

  let delivered = 0;
  const referencesReadyAt = (offset: number): JsonObject[] => {
    const ready = raw.references.slice(delivered).filter((entry) => entry.readyAt <= offset);
    delivered += ready.length;
    return ready.map((entry) => entry.reference);
  };
  if (pieces.length < 2) {
    writer.appendText("/message/content/parts/0", pieces, "answer_text");
  } else {
    // Half-way, one `patch` frame carries the next piece of text and the references complete so far; the frame after
    // it names its path and op again, because a value-only frame continues the previous frame's op.
    const middle = Math.floor(pieces.length / 2);
    writer.appendText("/message/content/parts/0", pieces.slice(0, middle), "answer_text");
    const offset = pieces.slice(0, middle + 1).join("").length;
    writer.patch(
      [
        { p: "/message/content/parts/0", o: "append", v: pieces[middle] ?? "" },
        { p: "/message/metadata/content_references", o: "append", v: referencesReadyAt(offset) },
      ],
      "answer_text",
    );
    writer.appendText("/message/content/parts/0", pieces.slice(middle + 1), "answer_text");
  }
  writer.patch(
    [
      { p: "/message/metadata/content_references", o: "append", v: referencesReadyAt(Number.POSITIVE_INFINITY) },
      { p: "/message/status", o: "replace", v: finishedStatus(scenario) },
      { p: "/message/end_turn", o: "replace", v: scenario.finish === "stop" },
      { p: "/message/metadata", o: "append", v: { is_complete: true, finish_details: finishDetails(scenario) } },
    ],
    "answer_final",
  );
}

/** Every frame of the old format: each `data:` is the whole message so far (no `event:` lines, no encoding frame). */
export function buildLegacyFrames(
  scenario: ChatgptScenario,
  request: ChatgptRequestEcho,
  options: { withAnswer: boolean } = { withAnswer: true },
): SseFrame[] {
  const ids = idsOf(scenario);
  const frames: SseFrame[] = [];
  const snapshot = (message: JsonObject, kind: FrameKind): void => {
    frames.push({ kind, data: json(scenario, { message, conversation_id: ids.conversationId, error: null }) });
  };
  frames.push({
    kind: "typed",
    data: json(scenario, {
      type: "moderation",
      conversation_id: ids.conversationId,
      message_id: request.userMessageId,
      is_completion: false,
      moderation_response: { flagged: false, blocked: false, moderation_id: `modr-${scenario.id}` },
    }),
  });
  scenario.searches.forEach((search, index) => {
    snapshot(toolMessage(ids, index, search, scenario), "message");
  });

  if (options.withAnswer) {
    const raw = buildRawAnswer(scenario, request.prompt);
    const pieces = splitText(raw.text, scenario.frameChars);
    let textSoFar = "";
    pieces.forEach((piece, index) => {
      textSoFar += piece;
      const references = raw.references.filter((entry) => entry.readyAt <= textSoFar.length).map((entry) => entry.reference);
      const partial = answerMessage(ids, scenario, true, {
        content: { content_type: "text", parts: [textSoFar] },
        metadata: { ...answerMetadata(ids, scenario), content_references: references },
      });
      snapshot(partial, index === 0 ? "answer_add" : "answer_text");
    });
    const final = answerMessage(ids, scenario, true, {
      content: { content_type: "text", parts: [raw.text] },
      status: finishedStatus(scenario),
      end_turn: scenario.finish === "stop",
      metadata: {
        ...answerMetadata(ids, scenario),
        content_references: raw.references.map((entry) => entry.reference),
        is_complete: true,
        finish_details: finishDetails(scenario),
      },
    });
    snapshot(final, "answer_final");
  }
  frames.push({
    kind: "typed",
    data: json(scenario, { type: "title_generation", title: scenario.title, conversation_id: ids.conversationId }),
  });
  frames.push({ kind: "done", data: "[DONE]" });
  return frames;
}

export function frameText(frame: SseFrame): string {
  return `${frame.event === undefined ? "" : `event: ${frame.event}\n`}data: ${frame.data}\n\n`;
}

export function framesToText(frames: readonly SseFrame[]): string {
  return frames.map(frameText).join("");
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies, with the stream faults of chatgpt.md §5

export type ChatgptStreamFault = "malformed_stream" | "disconnect" | "empty_answer";

/** The in-stream error frame of a `malformed_stream` fault (a frame `{"error":"…"}`, chatgpt.md §5). */
export const STREAM_ERROR_DATA = JSON.stringify({
  error:
    "Something went wrong while generating the response. If this issue persists please contact us through our help center at help.openai.com.",
});

/** A body to send: its bytes and whether it ends normally (EOF) or by cutting the connection after the last byte. */
export interface ChatgptBody {
  bytes: Uint8Array;
  ending: "eof" | "disconnect";
}

export function usesLegacyFormat(scenario: ChatgptScenario, request: ChatgptRequestEcho): boolean {
  return scenario.encoding === "legacy" || !request.supportsV1;
}

export function buildFrames(scenario: ChatgptScenario, request: ChatgptRequestEcho, options = { withAnswer: true }): SseFrame[] {
  return usesLegacyFormat(scenario, request) ? buildLegacyFrames(scenario, request, options) : buildV1Frames(scenario, request, options);
}

/**
 * The body of one exchange. `malformed_stream`: the answer up to half of its text frames, a frame whose JSON is cut off,
 * then the `{"error":…}` frame and EOF without `[DONE]`. `disconnect`: the same prefix plus the first half of the next
 * frame's bytes, then the connection is cut. `empty_answer`: every frame but the answer message (tool messages only),
 * then the normal end (`message_stream_complete`, `[DONE]`).
 */
export function renderChatgptBody(
  scenario: ChatgptScenario,
  request: ChatgptRequestEcho,
  fault: ChatgptStreamFault | null,
  framing: { eventLines: boolean } = { eventLines: true },
): ChatgptBody {
  const encoder = new TextEncoder();
  // chatgpt.md §3: "`event:` line optional": a build may send its deltas as bare `data:` lines
  const framed = (frames: SseFrame[]): SseFrame[] =>
    framing.eventLines ? frames : frames.map((frame) => (frame.event === "delta" ? { kind: frame.kind, data: frame.data } : frame));
  if (fault === "empty_answer") {
    return { bytes: encoder.encode(framesToText(framed(buildFrames(scenario, request, { withAnswer: false })))), ending: "eof" };
  }
  const frames = framed(buildFrames(scenario, request));
  if (fault === null) return { bytes: encoder.encode(framesToText(frames)), ending: "eof" };

  const textFrames = frames.flatMap((frame, index) => (frame.kind === "answer_text" ? [index] : []));
  const cutIndex = textFrames[Math.floor(textFrames.length / 2)] ?? frames.findIndex((frame) => frame.kind === "answer_final");
  const prefix = framesToText(frames.slice(0, cutIndex));
  if (fault === "malformed_stream") {
    const broken = `event: delta\ndata: {"p":"/message/content/parts/0","o":"append","v":"cut sho\n\n`;
    return { bytes: encoder.encode(`${prefix}${broken}data: ${STREAM_ERROR_DATA}\n\n`), ending: "eof" };
  }
  const next = encoder.encode(frameText(frames[cutIndex] ?? { kind: "done", data: "[DONE]" }));
  const head = encoder.encode(prefix);
  const bytes = new Uint8Array(head.length + Math.floor(next.length / 2));
  bytes.set(head, 0);
  bytes.set(next.subarray(0, Math.floor(next.length / 2)), head.length);
  return { bytes, ending: "disconnect" };
}
