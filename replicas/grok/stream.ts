/**
 * The NDJSON body of `POST /rest/app-chat/conversations/new`, built from a scenario exactly as grok.md §3 describes:
 * one JSON object per `\n`-terminated line, every line `{"result":{…}}`, no prefix and no end marker. Exported so that
 * tests can build the same bytes the replica sends.
 */
import type { GrokModeId, GrokScenario, GrokWebSearchResult, GrokXPost } from "./scenarios";
import { NO_WIRE_VARIATION, type GrokWireVariation } from "./variation";

/** What the page sent that the answer echoes. */
export interface GrokRequestEcho {
  message: string;
  modeId: GrokModeId;
}

export type GrokLineKind =
  | "conversation"
  | "userResponse"
  | "llmInfo"
  | "thinking"
  | "webSearchResults"
  | "xSearchResults"
  | "cardAttachment"
  | "extra"
  | "token"
  | "finalMetadata"
  | "modelResponse"
  | "title"
  | "error";

/** One line of the body, without its trailing newline. */
export interface GrokLine {
  kind: GrokLineKind;
  text: string;
}

/** The in-stream error of a `malformed_stream` fault (gRPC code 13 = INTERNAL, the shape grok.md §5 lists). */
export const GROK_STREAM_ERROR_LINE = JSON.stringify({
  error: { code: 13, message: "Stream interrupted: the model backend returned an error." },
});

/**
 * Splits `text` into deltas of roughly `size` characters, cutting only after whitespace, so that joining the deltas
 * gives back `text` exactly and no delta splits a character.
 */
export function splitAnswerTokens(text: string, size: number): string[] {
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  const tokens: string[] = [];
  let current = "";
  for (const piece of pieces) {
    current += piece;
    if (current.length >= size) {
      tokens.push(current);
      current = "";
    }
  }
  if (current !== "") tokens.push(current);
  return tokens;
}

/** Consecutive batches of a list (order kept), at most `count`, none empty. */
function inBatches<T>(list: readonly T[], count: number): T[][] {
  const size = Math.max(1, Math.ceil(list.length / count));
  const batches: T[][] = [];
  for (let start = 0; start < list.length; start += size) batches.push(list.slice(start, start + size));
  return batches;
}

/** A web source as the sheet's §4 reads it (title, url, preview or null), to tell whether two lists say the same. */
function sourceKey(source: GrokWebSearchResult): string {
  return JSON.stringify([source.url, source.title, source.preview === undefined || source.preview === "" ? null : source.preview]);
}

/** Whether the union of the streamed lists (first seen wins) says what the final list says. */
function streamedUnionMatches<T>(
  streamed: readonly (readonly T[])[],
  final: readonly T[],
  id: (item: T) => string,
  key: (item: T) => string,
): boolean {
  const union = new Map<string, T>();
  for (const item of streamed.flat()) if (!union.has(id(item))) union.set(id(item), item);
  const merged = [...union.values()];
  return (
    merged.length === final.length &&
    merged.every((item, index) => {
      const other = final[index];
      return other !== undefined && key(item) === key(other);
    })
  );
}

/** Every line of a normal answer, in the order the real site sends them (`wire`: a fuzzed page's variant, variation.ts). */
export function buildGrokLines(scenario: GrokScenario, request: GrokRequestEcho, wire: GrokWireVariation = NO_WIRE_VARIATION): GrokLine[] {
  const lines: GrokLine[] = [];
  const responseId = scenario.responseId;
  // Older follow-up builds drop the `response` level; everything else about the line stays the same.
  const line = (kind: GrokLineKind, fields: Record<string, unknown>): GrokLine => ({
    kind,
    text: JSON.stringify({ result: scenario.wrapResponse ? { response: fields } : fields }),
  });

  if (scenario.conversation !== null) {
    lines.push({ kind: "conversation", text: JSON.stringify({ result: { conversation: scenario.conversation } }) });
  }
  lines.push(
    line("userResponse", {
      userResponse: { responseId: scenario.userResponseId, message: request.message, createTime: scenario.userCreateTime },
      isThinking: false,
      isSoftStop: false,
      responseId: scenario.userResponseId,
    }),
  );
  lines.push(line("llmInfo", { llmInfo: { modelHash: scenario.modelHash }, responseId }));
  for (const token of scenario.thinking) {
    lines.push(line("thinking", { token, isThinking: true, isSoftStop: false, responseId }));
  }
  // late_lists on the wire (grok.md §3 "Streamed extras may arrive several times and in any order"): each streamed list
  // in batches, the first before the answer and the rest after its tokens (each list keeps its own order)
  const early: GrokLine[] = [];
  const lateExtras: GrokLine[] = [];
  // a kind's batches in order: the first half before the answer, the rest after it, so each list keeps its order
  const place = (batches: GrokLine[]): void => {
    const half = wire.extrasInBatches ? Math.ceil(batches.length / 2) : batches.length;
    early.push(...batches.slice(0, half));
    lateExtras.push(...batches.slice(half));
  };
  place(
    scenario.streamedWebSearchResults.flatMap((results) =>
      (wire.extrasInBatches ? inBatches(results, 2) : [results]).map((batch) =>
        line("webSearchResults", { webSearchResults: { results: batch }, responseId }),
      ),
    ),
  );
  place(
    scenario.streamedXSearchResults.flatMap((results) =>
      (wire.extrasInBatches ? inBatches(results, 3) : [results]).map((batch) =>
        line("xSearchResults", { xSearchResults: { results: batch }, responseId }),
      ),
    ),
  );
  scenario.cards.forEach((card, index) => {
    const cardLine = line("cardAttachment", { cardAttachment: { jsonData: JSON.stringify(card) }, responseId });
    (wire.extrasInBatches && index % 2 === 1 ? lateExtras : early).push(cardLine);
  });
  lines.push(...early);

  const extra = (position: "before_answer" | "mid_answer"): GrokLine[] =>
    scenario.extraLines
      .filter((e) => e.position === position)
      .map((e) => (e.kind === "raw" ? { kind: "extra", text: e.text } : line("extra", { ...e.fields, responseId })));

  lines.push(...extra("before_answer"));
  const tokens = splitAnswerTokens(scenario.message, scenario.tokenChars);
  const middle = Math.ceil(tokens.length / 2);
  tokens.forEach((token, index) => {
    if (index === middle) lines.push(...extra("mid_answer"));
    lines.push(line("token", { token, isThinking: false, isSoftStop: false, responseId, messageTag: "final", messageStepId: 0 }));
  });
  if (tokens.length <= middle) lines.push(...extra("mid_answer"));
  lines.push(...lateExtras);

  const finalMetadata: Record<string, unknown> = {};
  // sheet_alternatives (grok.md §4 related_questions "or streamed followUpSuggestions.suggestions[].label")
  if (wire.streamedFollowUps && scenario.followUpSuggestions !== null) {
    const suggestions = scenario.followUpSuggestions.map((label) => ({ label }));
    lines.push(line("extra", { followUpSuggestions: { suggestions }, responseId }));
  } else if (scenario.followUpSuggestions !== null) {
    finalMetadata.followUpSuggestions = scenario.followUpSuggestions.map((label) => ({ label, toolOverrides: {} }));
  }
  Object.assign(finalMetadata, { feedbackLabels: [], toolsUsed: {}, disclaimer: "" });
  lines.push(line("finalMetadata", { finalMetadata }));

  // sheet_alternatives (grok.md §4: web_sources / social_results fall back on the streamed lists): the final lists
  // left out, only where the streamed union says the same, so the scenario's answer does not change
  const omitSources =
    wire.finalListsOmitted &&
    scenario.streamedWebSearchResults.length > 0 &&
    streamedUnionMatches(scenario.streamedWebSearchResults, scenario.webSearchResults, (source) => source.url, sourceKey);
  const postKey = (post: GrokXPost): string => JSON.stringify(post);
  const omitPosts =
    wire.finalListsOmitted &&
    scenario.xposts !== null &&
    scenario.streamedXSearchResults.length > 0 &&
    streamedUnionMatches(scenario.streamedXSearchResults, scenario.xposts, (post) => post.postId, postKey);
  const modelResponse: Record<string, unknown> = {
    responseId,
    message: scenario.message,
    sender: "ASSISTANT",
    createTime: scenario.modelCreateTime,
    parentResponseId: scenario.userResponseId,
    manual: false,
    partial: false,
    shared: false,
    query: request.message,
    queryType: "",
    ...(omitSources ? {} : { webSearchResults: scenario.webSearchResults }),
  };
  if (scenario.xposts !== null && !omitPosts) {
    modelResponse.xpostIds = scenario.xposts.map((post) => post.postId);
    modelResponse.xposts = scenario.xposts;
  }
  Object.assign(modelResponse, {
    cardAttachmentsJson: scenario.cards.map((card) => JSON.stringify(card)),
    generatedImageUrls: [],
    steps: [],
    mediaTypes: [],
  });
  if (scenario.includeModel) modelResponse.model = `grok-4-${request.modeId}`;
  lines.push(line("modelResponse", { modelResponse }));

  if (scenario.newTitle !== null)
    lines.push({ kind: "title", text: JSON.stringify({ result: { title: { newTitle: scenario.newTitle } } }) });
  return lines;
}

/** Faults that change the body of an otherwise normal 200 answer. */
export type GrokStreamFault = "malformed_stream" | "disconnect" | "empty_answer";

/** A body to send: its bytes and whether it ends normally (EOF) or by cutting the connection after the last byte. */
export interface GrokBody {
  bytes: Uint8Array;
  ending: "eof" | "disconnect";
}

export function linesToNdjson(lines: readonly GrokLine[]): string {
  return lines.map((l) => `${l.text}\n`).join("");
}

/**
 * The body of one exchange. `malformed_stream`: the answer up to half of its tokens, then an `{"error":…}` line, then
 * EOF. `disconnect`: the same prefix plus the first half of the next line's bytes, then the connection is cut (never
 * reaches `modelResponse`). `empty_answer`: no thinking, sources or tokens, and a `modelResponse` whose message is "".
 */
export function renderGrokBody(
  scenario: GrokScenario,
  request: GrokRequestEcho,
  fault: GrokStreamFault | null,
  wire: GrokWireVariation = NO_WIRE_VARIATION,
): GrokBody {
  const encoder = new TextEncoder();
  if (fault === "empty_answer") {
    const empty: GrokScenario = {
      ...scenario,
      thinking: [],
      streamedWebSearchResults: [],
      streamedXSearchResults: [],
      cards: [],
      extraLines: [],
      message: "",
      followUpSuggestions: [],
      webSearchResults: [],
      xposts: scenario.xposts === null ? null : [],
    };
    return { bytes: encoder.encode(linesToNdjson(buildGrokLines(empty, request, wire))), ending: "eof" };
  }

  const lines = buildGrokLines(scenario, request, wire);
  if (fault === null) return { bytes: encoder.encode(linesToNdjson(lines)), ending: "eof" };

  const tokenIndexes = lines.flatMap((l, i) => (l.kind === "token" ? [i] : []));
  // Cut after half of the answer tokens; an answer of one token is cut right before it.
  const cutIndex = tokenIndexes[Math.floor(tokenIndexes.length / 2)] ?? lines.findIndex((l) => l.kind === "modelResponse");
  const prefix = lines.slice(0, cutIndex);
  if (fault === "malformed_stream") {
    return { bytes: encoder.encode(linesToNdjson([...prefix, { kind: "error", text: GROK_STREAM_ERROR_LINE }])), ending: "eof" };
  }
  const next = encoder.encode(lines[cutIndex]?.text ?? "");
  const head = encoder.encode(linesToNdjson(prefix));
  const bytes = new Uint8Array(head.length + Math.floor(next.length / 2));
  bytes.set(head, 0);
  bytes.set(next.subarray(0, Math.floor(next.length / 2)), head.length);
  return { bytes, ending: "disconnect" };
}
