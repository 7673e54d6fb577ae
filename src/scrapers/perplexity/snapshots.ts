/**
 * Folds the `perplexity_ask` SSE stream (providers/perplexity.md §3) into the state of every block: each `event: message`
 * is a snapshot envelope whose `blocks[]` are either materialized (`markdown_block{…}`, `web_result_block{…}`, …) or
 * `diff_block{field, patches[]}` (RFC 6902, keyed by intended_usage + field). Pure and lenient: unknown events, fields
 * and block kinds are ignored; what does not parse is counted, not thrown (the caller decides what it means).
 */
import { applyJsonPatch } from "../shared/decode/json-patch";
import { decodeSse, parseSseJson } from "../shared/decode/sse";
import { isRecord, type JsonRecord } from "../../util/json-record";

/** The state of one block, keyed by (intended_usage, field). */
export interface BlockState {
  usage: string;
  /** `markdown_block`, `web_result_block`, `plan_block`, … (the materialized key, or the diff's `field`). */
  field: string;
  /** The block as the last snapshot or patch left it. */
  document: unknown;
  /**
   * The running chunk list: a block's `chunks` start at its `chunk_starting_offset` and replace/extend what came before
   * (materialized mode sends only the new chunks with a growing offset; diff mode keeps the whole list at offset 0).
   */
  chunks: unknown[];
}

export interface PerplexityStream {
  /** Blocks in order of first appearance. */
  blocks: BlockState[];
  /** The first envelope with `final_sse_message:true` and `status:"COMPLETED"`; null when the stream never completed. */
  terminal: JsonRecord | null;
  /** `final_sse_message:true` with another status: the run ended without completing. */
  endedWithoutCompleting: boolean;
  /** The first envelope that carried `error_code` / `error_message`, if any. */
  errorEnvelope: JsonRecord | null;
  /** Latest `related_query_items` / `related_queries` seen (they arrive on late envelopes). */
  relatedQueryItems: unknown[] | null;
  relatedQueries: unknown[] | null;
  /** Latest `text` field (older variant: a JSON string of steps, the last `FINAL`). */
  text: string | null;
  /** Message envelopes used. */
  envelopes: number;
  /** Message events whose data was not a JSON object, or whose `blocks` was not a list. */
  malformedEvents: number;
  /** Diff operations that did not apply. */
  failedPatches: number;
  /** An `end_of_stream` event arrived. */
  endOfStream: boolean;
  /** The body ended inside an event (cut stream). */
  endedMidEvent: boolean;
}

/** Decodes the captured body chunks and folds every snapshot envelope up to the terminal one. */
export function readPerplexityStream(chunks: Iterable<Uint8Array>): PerplexityStream {
  const decoded = decodeSse(chunks);
  const stream: PerplexityStream = {
    blocks: [],
    terminal: null,
    endedWithoutCompleting: false,
    errorEnvelope: null,
    relatedQueryItems: null,
    relatedQueries: null,
    text: null,
    envelopes: 0,
    malformedEvents: 0,
    failedPatches: 0,
    endOfStream: false,
    endedMidEvent: decoded.endedMidEvent,
  };
  const byKey = new Map<string, BlockState>();

  for (const event of decoded.events) {
    if (event.event === "end_of_stream") {
      stream.endOfStream = true;
      continue;
    }
    // the terminal envelope is authoritative; nothing after it can change the answer
    if (stream.terminal !== null) continue;
    if (event.event !== undefined && event.event !== "message") continue;
    const envelope = parseSseJson(event);
    if (!isRecord(envelope) || (envelope.blocks !== undefined && !Array.isArray(envelope.blocks))) {
      stream.malformedEvents += 1;
      continue;
    }
    stream.envelopes += 1;
    foldEnvelope(stream, byKey, envelope);
  }
  return stream;
}

function foldEnvelope(stream: PerplexityStream, byKey: Map<string, BlockState>, envelope: JsonRecord): void {
  if (stream.errorEnvelope === null && (present(envelope.error_code) || present(envelope.error_message))) stream.errorEnvelope = envelope;
  if (Array.isArray(envelope.related_query_items)) stream.relatedQueryItems = envelope.related_query_items;
  if (Array.isArray(envelope.related_queries)) stream.relatedQueries = envelope.related_queries;
  if (typeof envelope.text === "string") stream.text = envelope.text;

  const blockState = (usage: string, field: string): BlockState => {
    const key = `${usage}\u0000${field}`;
    let state = byKey.get(key);
    if (state === undefined) {
      state = { usage, field, document: undefined, chunks: [] };
      byKey.set(key, state);
      stream.blocks.push(state);
    }
    return state;
  };

  for (const block of Array.isArray(envelope.blocks) ? envelope.blocks : []) {
    if (!isRecord(block)) continue;
    const usage = typeof block.intended_usage === "string" ? block.intended_usage : "";
    const diff = block.diff_block;
    if (isRecord(diff) && typeof diff.field === "string" && Array.isArray(diff.patches)) {
      const state = blockState(usage, diff.field);
      const outcome = applyJsonPatch(state.document ?? {}, diff.patches);
      stream.failedPatches += outcome.failed;
      updateDocument(state, outcome.document);
    }
    for (const [key, value] of Object.entries(block)) {
      if (key === "diff_block" || !key.endsWith("_block") || !isRecord(value)) continue;
      updateDocument(blockState(usage, key), value);
    }
  }

  if (envelope.final_sse_message === true) {
    if (envelope.status === "COMPLETED") stream.terminal = envelope;
    else stream.endedWithoutCompleting = true;
  }
}

function updateDocument(state: BlockState, document: unknown): void {
  state.document = document;
  if (!isRecord(document) || !Array.isArray(document.chunks)) return;
  const offset = document.chunk_starting_offset;
  const start = typeof offset === "number" && Number.isSafeInteger(offset) && offset >= 0 ? offset : 0;
  state.chunks = [...state.chunks.slice(0, start), ...document.chunks];
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

/** The block of `field` for the first usage that has one, trying `usages` in order (a predicate for families). */
export function findBlock(
  stream: PerplexityStream,
  field: string,
  usages: ReadonlyArray<string | ((usage: string) => boolean)>,
): BlockState | null {
  for (const wanted of usages) {
    const found = stream.blocks.find(
      (state) => state.field === field && (typeof wanted === "string" ? state.usage === wanted : wanted(state.usage)),
    );
    if (found !== undefined) return found;
  }
  return null;
}
