/**
 * Reads chatgpt.com's conversation stream (`text/event-stream`, chatgpt.md §3) into the message documents it built up:
 * the "v1" delta encoding (`add` / `append` / `replace` / `patch` / `truncate` / `remove` on the current message
 * document, value-only frames continuing the previous frame's path and op) and the old format (every `data:` the whole
 * message so far). Typed frames only contribute the end marker; unknown frames and fields are ignored.
 */
import { decodeSse, parseSseJson } from "../shared/decode/sse";
import { applyJsonPatch, getAtPointer, pointerTokens } from "../shared/decode/json-patch";
import { isRecord, type JsonRecord } from "../../util/json-record";

export interface ConversationStream {
  /** The `message` of every message document, in order of first appearance (tool calls, tool results, answer…). */
  messages: JsonRecord[];
  /** The first error the stream reported (a non-null `error` of a message document or an `{"error":…}` frame). */
  error: { value: unknown } | null;
  /** `data: [DONE]` arrived. */
  sawDone: boolean;
  /** A `message_stream_complete` frame arrived. */
  sawStreamComplete: boolean;
  /** The body ended inside an event (cut mid-frame). */
  endedMidEvent: boolean;
  /** Frames whose data is a broken JSON object or list (a cut or garbled frame), and delta operations that did not apply. */
  unreadableFrames: number;
  failedOperations: number;
  /** Events of any kind that were read (0: the body was no event stream at all). */
  events: number;
  /** v1 delta frames were read (a lost delta loses text; a lost snapshot of the old format is superseded). */
  usedDeltas: boolean;
}

/** The op a value-only frame continues when no frame named one yet: text appended to the answer. */
const DEFAULT_CONTINUATION = { path: "/message/content/parts/0", op: "append" } as const;

/**
 * One message document per slot; `c` (the message index) and message ids map to slots. Operations apply to the
 * current document. Consecutive text appends to one string (the bulk of a stream: value-only frames) are joined before
 * they are applied, so a long answer costs one document copy per run of frames rather than one per frame.
 */
class MessageDocuments {
  private readonly slots: JsonRecord[] = [];
  private readonly byIndex = new Map<number, number>();
  private readonly byId = new Map<string, number>();
  private current: number | null = null;
  private pendingText: { slot: number; path: string; text: string } | null = null;
  failedOperations = 0;

  /** A new message document (`add` at the root); `index` is the frame's `c` when it has one. */
  add(document: JsonRecord, index: number | null): void {
    this.flush();
    const known = index === null ? undefined : this.byIndex.get(index);
    const slot = known ?? this.slots.length;
    this.slots[slot] = document;
    if (index !== null) this.byIndex.set(index, slot);
    this.current = slot;
  }

  /** A whole message (old format): replaces the earlier snapshot of the same message id. */
  snapshot(document: JsonRecord, id: string | null): void {
    this.flush();
    const known = id === null ? undefined : this.byId.get(id);
    const slot = known ?? this.slots.length;
    this.slots[slot] = document;
    if (id !== null) this.byId.set(id, slot);
    this.current = slot;
  }

  /** One operation on the current document (counted as failed when there is none yet). */
  apply(path: string, op: string, operand: unknown): void {
    const slot = this.current;
    if (slot === null || this.slots[slot] === undefined) {
      this.failedOperations += 1;
      return;
    }
    if (op === "append" && typeof operand === "string") {
      const pending = this.pendingText;
      if (pending !== null && pending.slot === slot && pending.path === path) {
        pending.text += operand;
        return;
      }
      this.flush();
      // appending a string to a list adds one item per frame: those are not joined
      if (!Array.isArray(getAtPointer(this.slots[slot], path))) {
        this.pendingText = { slot, path, text: operand };
        return;
      }
    } else {
      this.flush();
    }
    this.applyNow(slot, path, op, operand);
  }

  /** The `message` of every document, in order of first appearance. */
  messages(): JsonRecord[] {
    this.flush();
    return this.slots.flatMap((document) => (isRecord(document.message) ? [document.message] : []));
  }

  private flush(): void {
    const pending = this.pendingText;
    if (pending === null) return;
    this.pendingText = null;
    this.applyNow(pending.slot, pending.path, "append", pending.text);
  }

  private applyNow(slot: number, path: string, op: string, operand: unknown): void {
    const document = this.slots[slot];
    if (document === undefined) return;
    const outcome = applyDeltaOperation(document, path, op, operand);
    this.slots[slot] = isRecord(outcome.document) ? outcome.document : document;
    this.failedOperations += outcome.failed;
  }
}

export function readConversationStream(chunks: Iterable<Uint8Array>): ConversationStream {
  const decoded = decodeSse(chunks);
  const documents = new MessageDocuments();
  const stream: ConversationStream = {
    messages: [],
    error: null,
    sawDone: false,
    sawStreamComplete: false,
    endedMidEvent: decoded.endedMidEvent,
    unreadableFrames: 0,
    failedOperations: 0,
    events: decoded.events.length,
    usedDeltas: false,
  };
  const noteError = (value: unknown): void => {
    if (value === undefined || value === null || value === "" || stream.error !== null) return;
    stream.error = { value };
  };
  let continuation: { path: string; op: string } = DEFAULT_CONTINUATION;

  for (const event of decoded.events) {
    if (event.data.trim() === "[DONE]") {
      stream.sawDone = true;
      continue;
    }
    const value = parseSseJson(event);
    if (value === undefined) {
      // a broken object is data lost; a bare token (a keep-alive "ping") carries nothing
      if (/^\s*[{[]/.test(event.data)) stream.unreadableFrames += 1;
      continue;
    }
    // `event: delta_encoding` / `data: "v1"` only announces the encoding; frames are recognised by their shape
    if (!isRecord(value) || event.event === "delta_encoding") continue;

    if (event.event === "delta" || isDeltaFrame(value)) {
      stream.usedDeltas = true;
      const operand = value.v;
      // a frame that names neither path nor op but carries a whole message document starts a message, like `add` at ""
      const newMessage = typeof value.p !== "string" && typeof value.o !== "string" && isRecord(operand) && isRecord(operand.message);
      const path = typeof value.p === "string" ? value.p : newMessage ? "" : continuation.path;
      const op = typeof value.o === "string" ? value.o : newMessage ? "add" : continuation.op;
      if (!newMessage) continuation = { path, op };
      if (path === "" && (op === "add" || op === "replace") && isRecord(operand) && isRecord(operand.message)) {
        noteError(operand.error);
        documents.add(operand, typeof value.c === "number" && Number.isInteger(value.c) ? value.c : null);
      } else {
        documents.apply(path, op, operand);
      }
      continue;
    }
    if (typeof value.type === "string") {
      if (value.type === "message_stream_complete") stream.sawStreamComplete = true;
      noteError(value.error);
      continue;
    }
    if (isRecord(value.message)) {
      // the old format: the whole message so far
      noteError(value.error);
      documents.snapshot(value, typeof value.message.id === "string" ? value.message.id : null);
      continue;
    }
    noteError(value.error);
  }

  stream.messages = documents.messages();
  stream.failedOperations = documents.failedOperations;
  return stream;
}

/** A v1 frame without an `event: delta` line (lenient): it names an op or a path, or carries only a value. */
function isDeltaFrame(value: JsonRecord): boolean {
  if (typeof value.type === "string" || isRecord(value.message)) return false;
  return typeof value.o === "string" || typeof value.p === "string" || (Object.hasOwn(value, "v") && !Object.hasOwn(value, "error"));
}

interface OperationOutcome {
  document: unknown;
  failed: number;
}

/**
 * Applies one v1 operation. `add`/`replace`/`remove` are RFC 6902 (through the shared patch tool; a missing parent
 * object is created, as the site's own client does); `append` concatenates strings, extends lists and merges objects;
 * `truncate` shortens a string or list; `patch` applies its list of operations, their paths relative to `path`.
 */
function applyDeltaOperation(document: unknown, path: string, op: string, operand: unknown): OperationOutcome {
  switch (op) {
    case "add":
    case "replace":
      return setAt(document, path, operand);
    case "remove":
      return applyJsonPatch(document, [{ op: "remove", path }]);
    case "append":
      return setAt(document, path, appended(getAtPointer(document, path), operand));
    case "truncate": {
      const current = getAtPointer(document, path);
      const length = typeof operand === "number" && operand >= 0 ? Math.trunc(operand) : null;
      if (length === null || !(typeof current === "string" || Array.isArray(current))) return { document, failed: 1 };
      return setAt(document, path, current.slice(0, length));
    }
    case "patch": {
      if (!Array.isArray(operand)) return { document, failed: 1 };
      let patched = document;
      let failed = 0;
      for (const entry of operand) {
        if (!isRecord(entry) || typeof entry.p !== "string" || typeof entry.o !== "string") {
          failed += 1;
          continue;
        }
        const outcome = applyDeltaOperation(patched, `${path}${entry.p}`, entry.o, entry.v);
        patched = outcome.document;
        failed += outcome.failed;
      }
      return { document: patched, failed };
    }
    default:
      return { document, failed: 1 };
  }
}

function appended(current: unknown, operand: unknown): unknown {
  if (current === undefined || current === null) return operand;
  if (typeof current === "string" && typeof operand === "string") return current + operand;
  if (Array.isArray(current)) return Array.isArray(operand) ? [...current, ...operand] : [...current, operand];
  if (isRecord(current) && isRecord(operand)) return { ...current, ...operand };
  return operand;
}

/** Sets the value at `path`: overwrites an object member or a list item, creating missing parent objects. */
function setAt(document: unknown, path: string, value: unknown): OperationOutcome {
  if (path === "") return { document: value, failed: 0 };
  const tokens = pointerTokens(path);
  let prepared = document;
  let parentPointer = "";
  for (const token of tokens.slice(0, -1)) {
    const pointer = `${parentPointer}/${escapeToken(token)}`;
    if (getAtPointer(prepared, pointer) === undefined && isRecord(getAtPointer(prepared, parentPointer))) {
      prepared = applyJsonPatch(prepared, [{ op: "add", path: pointer, value: {} }]).document;
    }
    parentPointer = pointer;
  }
  const parent = getAtPointer(prepared, parentPointer);
  // on a list, "add" would insert before the index; the site's ops overwrite the item
  const op = Array.isArray(parent) ? "replace" : "add";
  return applyJsonPatch(prepared, [{ op, path, value }]);
}

function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}
