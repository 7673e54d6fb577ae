/**
 * Copilot's WebSocket frames → JSON events (copilot.md §3). One JSON object per text frame is the documented norm;
 * the decoder still splits defensively, because the retired SignalR hub put several records in one frame separated by
 * `\x1e` and a server may batch concatenated objects: a frame is split at `\x1e`, and each record is read as a
 * sequence of JSON values with only whitespace between them. Anything else makes the frame malformed.
 */
import type { CapturedFrame } from "../../browser/page/capture/types";
import { base64ToBytes } from "../../util/base64";

const RECORD_SEPARATOR = "\u001e";

export interface DecodedFrame {
  /** The values the frame held, in order (not validated: callers narrow them). */
  values: unknown[];
  /** Part of the frame was not JSON (a cut or corrupted frame); the values read before the damage are kept. */
  malformed: boolean;
}

/** The text of a captured frame: text frames as they are, binary frames decoded as UTF-8 (null if not base64). */
export function frameText(frame: Pick<CapturedFrame, "data" | "binary">): string | null {
  if (!frame.binary) return frame.data;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(base64ToBytes(frame.data));
  } catch {
    return null;
  }
}

/** Splits one frame's text into JSON values (see the module comment). */
export function decodeFrame(text: string): DecodedFrame {
  const values: unknown[] = [];
  let malformed = false;
  for (const record of text.split(RECORD_SEPARATOR)) {
    const read = readJsonSequence(record);
    values.push(...read.values);
    if (read.malformed) malformed = true;
  }
  return { values, malformed };
}

/**
 * Reads concatenated JSON values (objects, arrays, or scalars separated by whitespace) from `text`. Values are
 * delimited by bracket depth outside strings, so a `}{` inside a string never splits a value. Stops at the first
 * piece that does not parse.
 */
function readJsonSequence(text: string): DecodedFrame {
  const values: unknown[] = [];
  let at = skipWhitespace(text, 0);
  while (at < text.length) {
    const end = valueEnd(text, at);
    if (end === null) return { values, malformed: true };
    try {
      values.push(JSON.parse(text.slice(at, end)));
    } catch {
      return { values, malformed: true };
    }
    at = skipWhitespace(text, end);
  }
  return { values, malformed: false };
}

function skipWhitespace(text: string, from: number): number {
  let at = from;
  while (at < text.length && /\s/.test(text.charAt(at))) at += 1;
  return at;
}

/** End (exclusive) of the JSON value starting at `start`, or null when it never closes. */
function valueEnd(text: string, start: number): number | null {
  const first = text.charAt(start);
  if (first !== "{" && first !== "[") {
    // a scalar runs until whitespace or the next container; JSON.parse then decides whether it is valid
    let at = start;
    if (first === '"') return stringEnd(text, start);
    while (at < text.length && !/[\s{[]/.test(text.charAt(at))) at += 1;
    return at;
  }
  let depth = 0;
  for (let at = start; at < text.length; at += 1) {
    const char = text.charAt(at);
    if (char === '"') {
      const end = stringEnd(text, at);
      if (end === null) return null;
      at = end - 1;
    } else if (char === "{" || char === "[") depth += 1;
    else if (char === "}" || char === "]") {
      depth -= 1;
      if (depth === 0) return at + 1;
    }
  }
  return null;
}

/** End (exclusive) of the JSON string starting at `start` (a `"`), or null when it never closes. */
function stringEnd(text: string, start: number): number | null {
  for (let at = start + 1; at < text.length; at += 1) {
    const char = text.charAt(at);
    if (char === "\\") at += 1;
    else if (char === '"') return at + 1;
  }
  return null;
}
