/**
 * The SSE body of `POST /rest/sse/perplexity_ask`, built from a run exactly as perplexity.md §3 describes: one
 * `event: message` per snapshot envelope, `data:` a whole JSON object (the envelope repeated every time), blocks either
 * `diff_block` patches (when the page listed "diff_blocks") or materialized; the terminal frame materialized with
 * `final_sse_message:true` and `status:"COMPLETED"`; optionally `event: end_of_stream` with `{}`. Exported so tests can
 * build the same bytes the replica sends.
 */
import type { PerplexityRun, PerplexityWebResult } from "./scenarios";

type Json = Record<string, unknown>;

/** What the page sent that the answer echoes or depends on. */
export interface PerplexityRequestEcho {
  frontendContextUuid: string | null;
  /** `params.model_preference` → `display_model` / `user_selected_model`. */
  modelPreference: string;
  /** `params.mode` ("copilot" | "concise") → `mode` upper-cased. */
  mode: string;
  searchFocus: string;
  /** "diff_blocks" was in `params.supported_block_use_cases`. */
  diffMode: boolean;
}

export const DEFAULT_ECHO: PerplexityRequestEcho = {
  frontendContextUuid: "00000000-0000-4000-8000-000000000000",
  modelPreference: "turbo",
  mode: "copilot",
  searchFocus: "internet",
  diffMode: true,
};

export type PerplexityStreamFault = "malformed_stream" | "disconnect" | "empty_answer";

export type PerplexityEventKind =
  | "opening"
  | "plan"
  | "web_results"
  | "extras"
  | "answer"
  | "text_completed"
  | "terminal"
  | "end"
  | "broken";

export interface PerplexityEvent {
  kind: PerplexityEventKind;
  /** The event's text including its terminating blank line. */
  text: string;
}

export interface RenderedPerplexityBody {
  events: PerplexityEvent[];
  bytes: Uint8Array;
  /** `cut`: the server tears the connection down after the bytes (a `disconnect`). */
  ending: "eof" | "cut";
}

interface Snapshot {
  kind: PerplexityEventKind;
  status: "PENDING" | "IN_PROGRESS" | "COMPLETED";
  textCompleted: boolean;
  final: boolean;
  blocks: Json[];
}

const replaceRoot = (value: unknown): Json => ({ op: "replace", path: "", value });

function diffBlock(usage: string, field: string, patches: Json[]): Json {
  return { intended_usage: usage, diff_block: { field, patches } };
}

function planDocument(run: PerplexityRun, goalsDone: number, done: boolean): Json {
  const goals = run.plan?.goals ?? [];
  const total = Math.max(1, goals.length);
  return {
    progress: done ? "DONE" : "IN_PROGRESS",
    goals: goals.slice(0, goalsDone).map((goal) => ({ ...goal, todo_task_status: done ? goal.todo_task_status : "IN_PROGRESS" })),
    eta_seconds_remaining: done ? 0 : Math.max(0, (run.plan?.etaSeconds ?? 0) - goalsDone * 3),
    pct_complete: done ? 100 : Math.round((goalsDone / total) * 90),
  };
}

function webResultsWithDraft(run: PerplexityRun): PerplexityWebResult[] {
  return (run.webResults ?? []).map((webResult, index) =>
    run.revisedSnippet !== null && run.revisedSnippet.index === index ? { ...webResult, snippet: run.revisedSnippet.draft } : webResult,
  );
}

/** The message snapshots of a run, in stream order. */
export function buildPerplexitySnapshots(run: PerplexityRun, echo: PerplexityRequestEcho): Snapshot[] {
  const diff = echo.diffMode && run.shape.framing === "diff";
  const snapshots: Snapshot[] = [];
  const push = (kind: PerplexityEventKind, blocks: Json[], status: Snapshot["status"] = "IN_PROGRESS", textCompleted = false): void => {
    snapshots.push({ kind, status, textCompleted, final: false, blocks });
  };
  const results = run.webResults;
  const oneByOne = diff && run.shape.webResults === "one-by-one" && results !== null;

  // Opening snapshot: the plan starts, the search results arrive (whole, or an empty list that fills up).
  const opening: Json[] = [];
  if (run.plan !== null) {
    opening.push(
      diff
        ? diffBlock("plan", "plan_block", [replaceRoot(planDocument(run, 0, false))])
        : { intended_usage: "plan", plan_block: planDocument(run, 0, false) },
    );
  }
  if (results !== null) {
    const document = oneByOne ? { progress: "IN_PROGRESS", web_results: [] } : { progress: "DONE", web_results: results };
    opening.push(
      diff
        ? diffBlock("web_results", "web_result_block", [replaceRoot(document)])
        : { intended_usage: "web_results", web_result_block: document },
    );
  }
  push("opening", opening, "PENDING");

  if (run.plan !== null) {
    run.plan.goals.forEach((goal, index) => {
      const document = planDocument(run, index + 1, false);
      const blocks = diff
        ? [
            diffBlock("plan", "plan_block", [
              { op: "add", path: `/goals/${index}`, value: { ...goal, todo_task_status: "IN_PROGRESS" } },
              { op: "replace", path: "/pct_complete", value: document.pct_complete },
              { op: "replace", path: "/eta_seconds_remaining", value: document.eta_seconds_remaining },
            ]),
          ]
        : [{ intended_usage: "plan", plan_block: document }];
      push("plan", blocks);
    });
  }

  if (oneByOne && results !== null) {
    const streamed = webResultsWithDraft(run);
    const withdrawnAt = run.withdrawnResult === null ? -1 : Math.min(1, streamed.length);
    const order = [...streamed];
    if (run.withdrawnResult !== null) order.splice(withdrawnAt, 0, run.withdrawnResult);
    order.forEach((webResult, index) => {
      push("web_results", [diffBlock("web_results", "web_result_block", [{ op: "add", path: `/web_results/${index}`, value: webResult }])]);
    });
    const closing: Json[] = [];
    if (withdrawnAt >= 0) closing.push({ op: "remove", path: `/web_results/${withdrawnAt}` });
    if (run.revisedSnippet !== null) {
      const finalSnippet = results[run.revisedSnippet.index]?.snippet;
      closing.push({ op: "replace", path: `/web_results/${run.revisedSnippet.index}/snippet`, value: finalSnippet ?? "" });
    }
    closing.push({ op: "replace", path: "/progress", value: "DONE" });
    push("web_results", [diffBlock("web_results", "web_result_block", closing)]);
  }

  const extras: Json[] = [...run.unknownBlocks];
  if (run.sourcesAnswerMode && results !== null) {
    const document = { progress: "DONE", web_results: results };
    extras.push(
      diff
        ? diffBlock("sources_answer_mode", "sources_mode_block", [replaceRoot(document)])
        : { intended_usage: "sources_answer_mode", sources_mode_block: document },
    );
  }
  if (run.media !== null) {
    const document = { progress: "DONE", media_items: run.media };
    extras.push(
      diff ? diffBlock("media_items", "media_block", [replaceRoot(document)]) : { intended_usage: "media_items", media_block: document },
    );
  }
  if (extras.length > 0) push("extras", extras);

  const answerUsages = run.shape.twin ? ["ask_text", "ask_text_0_markdown"] : ["ask_text"];
  const perEvent = Math.max(1, run.shape.chunksPerEvent);
  const groups: string[][] = [];
  for (let start = 0; start < run.chunks.length; start += perEvent) groups.push(run.chunks.slice(start, start + perEvent));
  if (groups.length === 0) groups.push([]);
  let offset = 0;
  groups.forEach((group, index) => {
    const blocks = answerUsages.map((usage) => {
      if (!diff)
        return { intended_usage: usage, markdown_block: { progress: "IN_PROGRESS", chunks: group, chunk_starting_offset: offset } };
      if (index === 0)
        return diffBlock(usage, "markdown_block", [replaceRoot({ progress: "IN_PROGRESS", chunks: group, chunk_starting_offset: 0 })]);
      return diffBlock(
        usage,
        "markdown_block",
        group.map((chunk, position) => ({ op: "add", path: `/chunks/${offset + position}`, value: chunk })),
      );
    });
    offset += group.length;
    push("answer", blocks);
  });

  // `text_completed` before the end: not yet the terminal frame (perplexity.md §3 completion rule)
  push(
    "text_completed",
    answerUsages.map((usage) =>
      diff
        ? diffBlock(usage, "markdown_block", [{ op: "replace", path: "/progress", value: "DONE" }])
        : { intended_usage: usage, markdown_block: { progress: "DONE", chunks: [], chunk_starting_offset: run.chunks.length } },
    ),
    "IN_PROGRESS",
    true,
  );

  snapshots.push({
    kind: "terminal",
    status: "COMPLETED",
    textCompleted: true,
    final: true,
    blocks: terminalBlocks(run, diff, answerUsages),
  });
  return snapshots;
}

function terminalBlocks(run: PerplexityRun, diff: boolean, answerUsages: string[]): Json[] {
  if (diff && run.shape.terminal === "progress-patch") {
    return answerUsages.map((usage) => diffBlock(usage, "markdown_block", [{ op: "replace", path: "/progress", value: "DONE" }]));
  }
  const markdown: Json = { progress: "DONE", chunks: run.chunks, chunk_starting_offset: 0 };
  if (run.terminalAnswer !== null) markdown.answer = run.terminalAnswer;
  const blocks: Json[] = answerUsages.map((usage) => ({ intended_usage: usage, markdown_block: markdown }));
  if (run.plan !== null) blocks.push({ intended_usage: "plan", plan_block: planDocument(run, run.plan.goals.length, true) });
  if (run.webResults !== null)
    blocks.push({ intended_usage: "web_results", web_result_block: { progress: "DONE", web_results: run.webResults } });
  if (run.sourcesAnswerMode && run.webResults !== null) {
    blocks.push({ intended_usage: "sources_answer_mode", sources_mode_block: { progress: "DONE", web_results: run.webResults } });
  }
  if (run.media !== null) blocks.push({ intended_usage: "media_items", media_block: { progress: "DONE", media_items: run.media } });
  blocks.push(...run.unknownBlocks.filter((block) => !("diff_block" in block)));
  return blocks;
}

/** The envelope of snapshot `index` (fields of perplexity.md §3; thread fields absent on the first, final ones last). */
function envelope(run: PerplexityRun, echo: PerplexityRequestEcho, snapshot: Snapshot, index: number): Json {
  const fields: Json = { backend_uuid: run.ids.backendUuid, context_uuid: run.ids.contextUuid, uuid: run.ids.uuid };
  if (index === 0 && echo.frontendContextUuid !== null) fields.frontend_context_uuid = echo.frontendContextUuid;
  Object.assign(fields, {
    display_model: echo.modelPreference,
    user_selected_model: echo.modelPreference,
    mode: echo.mode.toUpperCase(),
    search_focus: echo.searchFocus,
    status: snapshot.status,
    text_completed: snapshot.textCompleted,
    final_sse_message: snapshot.final,
    cursor: `${run.ids.uuid.slice(0, 8)}-${index + 1}`,
  });
  if (index > 0) {
    fields.thread_url_slug = run.slug;
    fields.thread_title = run.threadTitle;
  }
  if (snapshot.final) {
    fields.read_write_token = run.ids.readWriteToken;
    fields.attachments = [];
    fields.related_queries = run.relatedQuestions;
    if (run.shape.relatedItems) fields.related_query_items = run.relatedQuestions.map((text) => ({ text, type: "default" }));
  }
  fields.blocks = snapshot.blocks;
  return fields;
}

function sseEvent(name: string, data: string, lineEnding: string): string {
  return `event: ${name}${lineEnding}data: ${data}${lineEnding}${lineEnding}`;
}

/** The terminal envelope alone (what `…/reconnect/{backend_uuid}` answers with: a materialized snapshot). */
export function renderTerminalEvent(run: PerplexityRun, echo: PerplexityRequestEcho): string {
  const snapshots = buildPerplexitySnapshots(run, { ...echo, diffMode: false });
  const terminal = snapshots.at(-1);
  if (terminal === undefined) throw new Error("a run always has a terminal snapshot");
  return sseEvent("message", JSON.stringify(envelope(run, echo, terminal, snapshots.length - 1)), run.shape.lineEnding);
}

/** Every event of a normal answer, or of a faulted one. */
export function renderPerplexityBody(
  run: PerplexityRun,
  echo: PerplexityRequestEcho,
  fault: PerplexityStreamFault | null,
): RenderedPerplexityBody {
  const played = fault === "empty_answer" ? { ...run, chunks: [], terminalAnswer: "" } : run;
  const lineEnding = played.shape.lineEnding;
  const snapshots = buildPerplexitySnapshots(played, echo);
  const events: PerplexityEvent[] = snapshots.map((snapshot, index) => ({
    kind: snapshot.kind,
    text: sseEvent("message", JSON.stringify(envelope(played, echo, snapshot, index)), lineEnding),
  }));
  if (played.shape.endOfStream) events.push({ kind: "end", text: sseEvent("end_of_stream", "{}", lineEnding) });

  const encoder = new TextEncoder();
  const half = Math.max(1, Math.floor(snapshots.length / 2));
  if (fault === "disconnect") {
    const next = encoder.encode(events[half]?.text ?? "");
    const kept = events
      .slice(0, half)
      .map((event) => event.text)
      .join("");
    const prefix = encoder.encode(kept);
    const bytes = new Uint8Array(prefix.length + Math.floor(next.length / 2));
    bytes.set(prefix);
    bytes.set(next.subarray(0, Math.floor(next.length / 2)), prefix.length);
    return { events: events.slice(0, half), bytes, ending: "cut" };
  }
  if (fault === "malformed_stream") {
    // a snapshot whose JSON is cut short, then a "final" one whose blocks is not a list; then the server closes
    const broken = `{"backend_uuid":${JSON.stringify(played.ids.backendUuid)},"status":"IN_PROGRESS","blocks":[{"intended_usage":"ask_text","diff_block":{"field":"markdown_block","patches":[{"op":"add","path":"/chunks/`;
    const notAList = {
      backend_uuid: played.ids.backendUuid,
      status: "COMPLETED",
      text_completed: true,
      final_sse_message: true,
      blocks: { ask_text: { markdown_block: { progress: "DONE", answer: "" } } },
    };
    const kept = [
      ...events.slice(0, half),
      { kind: "broken" as const, text: sseEvent("message", broken, lineEnding) },
      { kind: "broken" as const, text: sseEvent("message", JSON.stringify(notAList), lineEnding) },
    ];
    return { events: kept, bytes: encoder.encode(kept.map((event) => event.text).join("")), ending: "eof" };
  }
  return { events, bytes: encoder.encode(events.map((event) => event.text).join("")), ending: "eof" };
}
