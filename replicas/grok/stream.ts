/**
 * The NDJSON body of `POST /rest/app-chat/conversations/new`, built from a scenario exactly as grok.md §3 describes:
 * one JSON object per `\n`-terminated line, every line `{"result":{…}}`, no prefix and no end marker. Exported so that
 * tests can build the same bytes the replica sends.
 */
import type { GrokModeId, GrokScenario } from "./scenarios";

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

/** Every line of a normal answer, in the order the real site sends them. */
export function buildGrokLines(scenario: GrokScenario, request: GrokRequestEcho): GrokLine[] {
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
  for (const results of scenario.streamedWebSearchResults) {
    lines.push(line("webSearchResults", { webSearchResults: { results }, responseId }));
  }
  for (const results of scenario.streamedXSearchResults) {
    lines.push(line("xSearchResults", { xSearchResults: { results }, responseId }));
  }
  for (const card of scenario.cards) {
    lines.push(line("cardAttachment", { cardAttachment: { jsonData: JSON.stringify(card) }, responseId }));
  }

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

  const finalMetadata: Record<string, unknown> = {};
  if (scenario.followUpSuggestions !== null) {
    finalMetadata.followUpSuggestions = scenario.followUpSuggestions.map((label) => ({ label, toolOverrides: {} }));
  }
  Object.assign(finalMetadata, { feedbackLabels: [], toolsUsed: {}, disclaimer: "" });
  lines.push(line("finalMetadata", { finalMetadata }));

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
    webSearchResults: scenario.webSearchResults,
  };
  if (scenario.xposts !== null) {
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
export function renderGrokBody(scenario: GrokScenario, request: GrokRequestEcho, fault: GrokStreamFault | null): GrokBody {
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
    return { bytes: encoder.encode(linesToNdjson(buildGrokLines(empty, request))), ending: "eof" };
  }

  const lines = buildGrokLines(scenario, request);
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
