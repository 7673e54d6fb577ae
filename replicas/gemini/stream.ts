/**
 * The body of `POST …/StreamGenerate`, built from a scenario exactly as gemini.md §3 describes: the `)]}'` line and a
 * blank line, then frames `<length>\n<JSON>\n` whose length counts UTF-16 code units from the `\n` after the digits
 * through the `\n` after the JSON. Data frames are `[["wrb.fr",null,"<inner JSON as a string>"]]` with the cumulative
 * answer text; the body ends with the `di`/`af.httprm` and `e` trailer frames. Exported so tests can build the exact
 * bytes the replica sends.
 */
import { type GeminiScenario, splitCitationMarkers } from "./scenarios";
import { type GeminiWireVariation, NO_GEMINI_WIRE_VARIATION } from "./variation";

export const XSSI_PREFIX = ")]}'\n\n";
/** The `BardErrorInfo` type URL of error envelopes. */
export const BARD_ERROR_INFO_TYPE = "type.googleapis.com/assistant.boq.bard.application.BardErrorInfo";
/** Placeholder `[1][0]` carries when the answer is a card (gemini.md §3). */
export const CARD_CONTENT_PLACEHOLDER = "http://googleusercontent.com/card_content/0";
/** Length of the final inner array; `[25]` is the context string, `[27]` the timestamp, the model name sits at the end. */
const FINAL_INNER_LENGTH = 33;
const MODEL_NAME_INDEX = 31;
/** Fixed timestamp of every answer ([seconds, nanos]), so bodies are byte-identical between runs. */
const ANSWER_TIMESTAMP = [1763850000, 123456000] as const;

/** What the page sent that the answer depends on. */
export interface GeminiRequestEcho {
  language: string;
}

export type FrameKind = "metadata" | "progress" | "final" | "draft" | "error" | "trailing-error" | "trailer" | "end";

/** One frame of the body: its JSON text and the length prefix it is sent with. */
export interface GeminiFrame {
  kind: FrameKind;
  json: string;
  /** The length written before the JSON (exact unless a scenario skews it). */
  length: number;
}

/** The exact length prefix of a frame's JSON: its UTF-16 length plus the two newlines. */
export function frameLength(json: string): number {
  return json.length + 2;
}

function frame(kind: FrameKind, envelopes: unknown[], skew = 0): GeminiFrame {
  const json = JSON.stringify(envelopes);
  return { kind, json, length: frameLength(json) + skew };
}

function dataFrame(kind: FrameKind, inner: unknown[], skew = 0): GeminiFrame {
  return frame(kind, [["wrb.fr", null, JSON.stringify(inner)]], skew);
}

/**
 * Chip data of the final candidate: `[[url, title, site, snippet]…], [[offset, [source index…]]…], <render delay ms>`.
 * Where real citation data sits on the wire is unverified (gemini.md §3); scrapers read citations from the DOM.
 */
function citationData(scenario: GeminiScenario): unknown[] | null {
  if (scenario.sources.length === 0) return null;
  const keys = scenario.sources.map((source) => source.key);
  const { points } = splitCitationMarkers(scenario.answer);
  return [
    scenario.sources.map((source) => [source.url, source.title, source.site, source.snippet]),
    points.map((point) => [point.offset, point.keys.map((key) => keys.indexOf(key))]),
    scenario.citationDelayMs,
  ];
}

/** The text field the final frame carries: the answer without markers, or the scenario's raw wire text. */
export function finalWireText(scenario: GeminiScenario): string {
  return scenario.wireText ?? splitCitationMarkers(scenario.answer).text;
}

/** Prefixes of `text` cut after whitespace, `count` of them, growing evenly (the cumulative text of progress frames). */
export function cumulativePrefixes(text: string, count: number): string[] {
  const cuts: number[] = [];
  for (let index = 1; index <= count; index += 1) {
    let cut = Math.floor((text.length * index) / (count + 1));
    while (cut < text.length && !/\s/.test(text[cut] ?? "")) cut += 1;
    // never split a surrogate pair
    if (cut > 0 && /[\uD800-\uDBFF]/.test(text[cut - 1] ?? "")) cut += 1;
    if (cut > 0 && cut < text.length && (cuts.at(-1) ?? 0) < cut) cuts.push(cut);
  }
  return cuts.map((cut) => text.slice(0, cut));
}

function candidate(scenario: GeminiScenario, text: string, state: 1 | 2, language: string, final: boolean): unknown[] {
  const cardText = splitCitationMarkers(scenario.answer).text;
  const slots: unknown[] = [scenario.candidateId, [scenario.cardContent ? CARD_CONTENT_PLACEHOLDER : text]];
  slots[8] = [state];
  if (final) {
    slots[2] = citationData(scenario);
    slots[9] = language;
    slots[12] = [null, null, null, null, null, null, null, []];
  }
  if (scenario.cardContent) slots[22] = [state === 2 ? cardText : text];
  if (scenario.thoughts !== null) slots[37] = [[scenario.thoughts]];
  return Array.from(slots, (slot) => slot ?? null);
}

function ids(scenario: GeminiScenario): [string, string] {
  return [scenario.conversationId, scenario.responseId];
}

/** The data frames of a normal answer: metadata, cumulative progress frames, the final frame. */
function answerFrames(scenario: GeminiScenario, request: GeminiRequestEcho, wire: GeminiWireVariation): GeminiFrame[] {
  const skew = new Map(scenario.lengthSkews.map(([index, delta]) => [index, delta]));
  const frames: GeminiFrame[] = [dataFrame("metadata", [null, ids(scenario), { "18": scenario.responseId, "44": false }])];
  const finalText = finalWireText(scenario);
  const streamed = scenario.cardContent ? splitCitationMarkers(scenario.answer).text : (scenario.streamingText ?? finalText);
  cumulativePrefixes(streamed, scenario.progressFrames).forEach((prefix, index) => {
    const inner = [null, ids(scenario), null, null, [candidate(scenario, prefix, 1, request.language, false)]];
    frames.push(dataFrame("progress", inner, skew.get(index + 1) ?? 0));
  });
  const finalCandidate = candidate(scenario, finalText, 2, request.language, true);
  const drafts = scenario.drafts.map((draft, index) => [
    `${scenario.candidateId}_d${index + 2}`,
    [draft],
    null,
    null,
    null,
    null,
    null,
    null,
    [2],
  ]);
  // a fuzzed page's answers may carry the model name at another index near the end (gemini.md §3: unverified)
  const modelIndex = wire.modelNameIndex === NO_GEMINI_WIRE_VARIATION.modelNameIndex ? MODEL_NAME_INDEX : wire.modelNameIndex;
  const inner: unknown[] = Array.from({ length: Math.max(FINAL_INNER_LENGTH, modelIndex + 2) }, () => null);
  inner[1] = ids(scenario);
  inner[4] = [finalCandidate, ...drafts];
  inner[25] = scenario.contextId;
  inner[27] = [[[null, null, null, [...ANSWER_TIMESTAMP]]]];
  if (scenario.modelName !== null) inner[modelIndex] = scenario.modelName;
  frames.push(dataFrame("final", inner, skew.get(frames.length) ?? 0));
  return frames;
}

/** `[["wrb.fr",null,null,null,null,[3,null,[["…BardErrorInfo",[code]]]]]]` (code at `[5][2][0][1][0]`). */
export function errorEnvelopeFrame(code: number, kind: FrameKind = "error"): GeminiFrame {
  return frame(kind, [["wrb.fr", null, null, null, null, [3, null, [[BARD_ERROR_INFO_TYPE, [code]]]]]]);
}

/** `[["wrb.fr",null,null,null,null,[8]]]`: Gemini's "Invalid response". */
export function invalidResponseFrame(): GeminiFrame {
  return frame("error", [["wrb.fr", null, null, null, null, [8]]]);
}

/** The trailers every body ends with; the `e` frame carries the byte count of what came before it. */
function trailerFrames(bytesBefore: number): GeminiFrame[] {
  return [
    frame("trailer", [
      ["di", 57],
      ["af.httprm", 56, "-4931258270120345982", 31],
    ]),
    frame("end", [["e", 4, null, null, bytesBefore]]),
  ];
}

export function serializeFrames(frames: readonly GeminiFrame[]): string {
  return frames.map((f) => `${f.length}\n${f.json}\n`).join("");
}

/** Every frame of one exchange without faults, in order (`wire`: what a fuzzed page's answers play, variation.ts). */
export function buildGeminiFrames(
  scenario: GeminiScenario,
  request: GeminiRequestEcho,
  wire: GeminiWireVariation = NO_GEMINI_WIRE_VARIATION,
): GeminiFrame[] {
  let frames: GeminiFrame[];
  if (scenario.error === null) {
    frames = answerFrames(scenario, request, wire);
    const trailingCode = scenario.trailingErrorCode ?? (wire.trailingError1096 ? 1096 : null);
    if (trailingCode !== null) frames.push(errorEnvelopeFrame(trailingCode, "trailing-error"));
  } else if (scenario.error.kind === "bard-error") {
    frames = [errorEnvelopeFrame(scenario.error.code)];
  } else if (scenario.error.kind === "invalid-response") {
    frames = [invalidResponseFrame()];
  } else {
    frames = [];
  }
  return withTrailers(frames);
}

/** Faults that change the body of an otherwise normal 200 answer. */
export type GeminiStreamFault = "malformed_stream" | "disconnect" | "empty_answer" | "rate_limited";

/** A body to send: its bytes and whether it ends normally (EOF) or by cutting the connection after the last byte. */
export interface GeminiBody {
  bytes: Uint8Array;
  ending: "eof" | "disconnect";
}

const encoder = new TextEncoder();

/** Error code the `rate_limited` fault answers with (1037: usage limit, gemini.md §5). */
export const RATE_LIMIT_ERROR_CODE = 1037;

/**
 * The body of one exchange. `malformed_stream`: the frames up to the middle progress frame, then a frame whose JSON
 * does not parse (a trailing comma; its length is exact), then EOF. `disconnect`: the same frames plus the first
 * half of the next frame, then the connection is cut. `empty_answer`: the "Invalid response" frame and the trailers.
 * `rate_limited`: the error 1037 frame and the trailers.
 */
export function renderGeminiBody(
  scenario: GeminiScenario,
  request: GeminiRequestEcho,
  fault: GeminiStreamFault | null,
  wire: GeminiWireVariation = NO_GEMINI_WIRE_VARIATION,
): GeminiBody {
  if (fault === "empty_answer") {
    return { bytes: encoder.encode(XSSI_PREFIX + serializeFrames(withTrailers([invalidResponseFrame()]))), ending: "eof" };
  }
  if (fault === "rate_limited") {
    return {
      bytes: encoder.encode(XSSI_PREFIX + serializeFrames(withTrailers([errorEnvelopeFrame(RATE_LIMIT_ERROR_CODE)]))),
      ending: "eof",
    };
  }
  const frames = buildGeminiFrames(scenario, request, wire);
  if (fault === null) return { bytes: encoder.encode(XSSI_PREFIX + serializeFrames(frames)), ending: "eof" };

  const data = frames.filter((f) => f.kind === "metadata" || f.kind === "progress");
  const keep = frames.slice(0, Math.max(1, Math.ceil(data.length / 2)));
  const next = frames[keep.length] ?? frames[0];
  if (fault === "malformed_stream") {
    // balanced brackets, so the frame is read whole, but not JSON (a trailing comma): a frame that does not parse
    const garbled = `${(next?.json ?? '[["wrb.fr",null,""]]').slice(0, -2)},]]`;
    return { bytes: encoder.encode(`${XSSI_PREFIX}${serializeFrames(keep)}${frameLength(garbled)}\n${garbled}\n`), ending: "eof" };
  }
  const head = encoder.encode(XSSI_PREFIX + serializeFrames(keep));
  const nextBytes = encoder.encode(next === undefined ? "" : `${next.length}\n${next.json}\n`);
  const partial = nextBytes.subarray(0, Math.floor(nextBytes.length / 2));
  const bytes = new Uint8Array(head.length + partial.length);
  bytes.set(head, 0);
  bytes.set(partial, head.length);
  return { bytes, ending: "disconnect" };
}

function withTrailers(frames: GeminiFrame[]): GeminiFrame[] {
  const bytesBefore = encoder.encode(XSSI_PREFIX + serializeFrames(frames)).length;
  return [...frames, ...trailerFrames(bytesBefore)];
}

/**
 * Byte offsets that cut through the length numbers: one in the middle of every length line with two or more digits,
 * so that frames are also split mid-number (the paced body already cuts mid-line and mid-character).
 */
export function midNumberCuts(bytes: Uint8Array): number[] {
  const cuts: number[] = [];
  let lineStart = 0;
  for (let index = 0; index <= bytes.length; index += 1) {
    if (index < bytes.length && bytes[index] !== 0x0a) continue;
    const line = bytes.subarray(lineStart, index);
    if (line.length >= 2 && line.every((byte) => byte >= 0x30 && byte <= 0x39)) cuts.push(lineStart + Math.floor(line.length / 2));
    lineStart = index + 1;
  }
  return cuts;
}

/** Splits chunks further at the given absolute byte offsets. */
export function splitChunksAt(chunks: readonly Uint8Array[], offsets: readonly number[]): Uint8Array[] {
  const cuts = [...new Set(offsets)].sort((a, b) => a - b);
  const result: Uint8Array[] = [];
  let position = 0;
  let cutIndex = 0;
  for (const chunk of chunks) {
    let start = 0;
    while (cutIndex < cuts.length && (cuts[cutIndex] ?? 0) <= position) cutIndex += 1;
    while (cutIndex < cuts.length && (cuts[cutIndex] ?? 0) < position + chunk.length) {
      const at = (cuts[cutIndex] ?? 0) - position;
      if (at > start) result.push(chunk.subarray(start, at));
      start = at;
      cutIndex += 1;
    }
    if (start < chunk.length) result.push(chunk.subarray(start));
    position += chunk.length;
  }
  return result;
}
