/**
 * Google's length-prefixed JSON framing (the batchexecute family, e.g. Gemini's StreamGenerate): an optional
 * anti-hijacking first line `)]}'`, then repeated `<decimal length>\n<JSON>\n` where the length counts UTF-16 code units
 * from the `\n` after the digits through the `\n` after the JSON. Astral characters count 2, so byte counts do not match.
 * Some services send slightly wrong lengths: when the count does not land on a frame end, the frame is read by JSON
 * balance instead (brackets and strings tracked), so one bad count never loses the rest of the stream.
 */

export interface LengthPrefixedDecodeResult {
  /** Parsed JSON of every complete frame, in order. */
  frames: unknown[];
  /** Frames whose JSON did not parse, or text between frames that is neither a length nor whitespace (skipped). */
  malformedFrames: number;
  /** The body ended inside a frame (a length announced, its JSON incomplete). */
  endedMidFrame: boolean;
  /** Whether the body began with the `)]}'` prefix. */
  hadPrefix: boolean;
}

const XSSI_PREFIX = ")]}'";

/** Decodes a whole captured body given as the chunks it arrived in. */
export function decodeLengthPrefixed(chunks: Iterable<Uint8Array>): LengthPrefixedDecodeResult {
  const decoder = new LengthPrefixedDecoder();
  const frames: unknown[] = [];
  for (const chunk of chunks) frames.push(...decoder.push(chunk));
  const ending = decoder.end();
  frames.push(...ending.frames);
  return { frames, malformedFrames: decoder.malformedFrames, endedMidFrame: ending.endedMidFrame, hadPrefix: decoder.hadPrefix };
}

/** Incremental decoder: push byte chunks as they arrive, then call {@link LengthPrefixedDecoder.end}. */
class LengthPrefixedDecoder {
  private readonly text = new TextDecoder("utf-8");
  private buffer = "";
  private prefixChecked = false;
  private malformed = 0;
  private prefixSeen = false;
  private cutInsideFrame = false;

  get malformedFrames(): number {
    return this.malformed;
  }

  get hadPrefix(): boolean {
    return this.prefixSeen;
  }

  push(chunk: Uint8Array): unknown[] {
    this.buffer += this.text.decode(chunk, { stream: true });
    return this.drain(false);
  }

  end(): { frames: unknown[]; endedMidFrame: boolean } {
    this.buffer += this.text.decode();
    const frames = this.drain(true);
    const leftover = this.buffer.trim() !== "";
    if (leftover) this.malformed += 1;
    const endedMidFrame = leftover || this.cutInsideFrame;
    this.buffer = "";
    return { frames, endedMidFrame };
  }

  private drain(final: boolean): unknown[] {
    const frames: unknown[] = [];
    if (!this.prefixChecked) {
      const trimmed = this.buffer.replace(/^\s+/, "");
      if (trimmed.length < XSSI_PREFIX.length && !final && XSSI_PREFIX.startsWith(trimmed)) return frames;
      this.prefixChecked = true;
      if (trimmed.startsWith(XSSI_PREFIX)) {
        this.prefixSeen = true;
        this.buffer = trimmed.slice(XSSI_PREFIX.length);
      }
    }
    for (;;) {
      // skip whitespace between frames
      const start = this.buffer.search(/\S/);
      if (start === -1) {
        this.buffer = "";
        return frames;
      }
      if (start > 0) this.buffer = this.buffer.slice(start);
      const header = /^(\d+)\n/.exec(this.buffer);
      if (header === null) {
        if (/^\d*$/.test(this.buffer) && !final) return frames; // the length line is still arriving
        if (!/^\d/.test(this.buffer)) {
          // not a length: skip to the next line that might start a frame
          const nextLine = this.buffer.indexOf("\n");
          if (nextLine === -1 && !final) return frames;
          this.malformed += 1;
          this.buffer = nextLine === -1 ? "" : this.buffer.slice(nextLine + 1);
          continue;
        }
        return frames;
      }
      const digits = header[1] ?? "0";
      // the counted span starts at the "\n" after the digits
      const spanStart = digits.length;
      const declared = Number(digits);
      const frame = this.readFrame(spanStart, declared, final);
      if (frame === "incomplete") return frames;
      this.buffer = this.buffer.slice(frame.end);
      if (frame.ok) frames.push(frame.value);
      else this.malformed += 1;
    }
  }

  /**
   * Reads the JSON of one frame whose span starts at `spanStart` (the "\n" after the length). Uses the declared length
   * when it lands on a parseable frame, else the end of the first balanced JSON value.
   */
  private readFrame(spanStart: number, declared: number, final: boolean): FrameRead {
    const declaredEnd = spanStart + declared;
    // Wait for the declared span first (cheap); a count that overshoots is settled by balance at the end of the body.
    if (declaredEnd > this.buffer.length && !final) return "incomplete";
    if (declaredEnd <= this.buffer.length) {
      const candidate = this.buffer.slice(spanStart + 1, declaredEnd);
      const parsed = tryParse(candidate);
      if (parsed.ok) return { ok: true, value: parsed.value, end: declaredEnd };
    }
    const balancedEnd = balancedJsonEnd(this.buffer, spanStart + 1);
    if (balancedEnd === -1) {
      if (!final) return "incomplete";
      this.cutInsideFrame = true;
      return { ok: false, end: this.buffer.length };
    }
    const parsed = tryParse(this.buffer.slice(spanStart + 1, balancedEnd));
    return parsed.ok ? { ok: true, value: parsed.value, end: balancedEnd } : { ok: false, end: balancedEnd };
  }
}

type FrameRead = { ok: true; value: unknown; end: number } | { ok: false; end: number } | "incomplete";

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Index just past the JSON array or object starting at `from` (after optional whitespace), or -1 if it is not complete. */
function balancedJsonEnd(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index] ?? "")) index += 1;
  const open = text[index];
  if (open !== "[" && open !== "{") return index < text.length ? index + 1 : -1;
  let depth = 0;
  let inString = false;
  for (; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "[" || char === "{") depth += 1;
    else if (char === "]" || char === "}") {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}
