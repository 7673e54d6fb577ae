/**
 * Newline-delimited JSON framing, shared by every provider whose stream is one JSON value per line.
 * Decoding is incremental so that the result never depends on where the network cut the body into chunks.
 */

/** Values decoded so far and how many lines could not be parsed. */
export interface NdjsonDecodeResult {
  /** Every successfully parsed line, in stream order. Values are not validated: callers narrow them. */
  values: unknown[];
  /** Non-blank lines that were not valid JSON (skipped). A truncated last line counts here too. */
  malformedLines: number;
  /** The body ended inside a line that is not valid JSON: the stream was most likely cut mid-line. */
  endedMidLine: boolean;
}

/**
 * Incremental NDJSON decoder: push byte chunks as they arrive, then call {@link NdjsonDecoder.end}.
 *
 * A UTF-8 character or a line split across chunks is reassembled; `\r\n` line ends are accepted; blank lines are
 * skipped; a line that is not valid JSON is skipped and counted instead of thrown, because providers occasionally
 * emit a broken line and only the caller knows whether that matters.
 */
export class NdjsonDecoder {
  // stream mode keeps an incomplete multi-byte sequence until the next chunk completes it
  private readonly text = new TextDecoder("utf-8");
  private pending = "";
  private malformed = 0;
  private cutLastLine = false;

  /** Lines that failed to parse so far. */
  get malformedLines(): number {
    return this.malformed;
  }

  /** After {@link NdjsonDecoder.end}: whether the last line had no `\n` and was not valid JSON. */
  get endedMidLine(): boolean {
    return this.cutLastLine;
  }

  /** Decodes one chunk and returns the values of the lines it completed. */
  push(chunk: Uint8Array): unknown[] {
    const decoded = this.text.decode(chunk, { stream: true });
    // search only the new text: rescanning the pending line would make tiny chunks of a long line quadratic
    const lastNewline = decoded.lastIndexOf("\n");
    if (lastNewline === -1) {
      this.pending += decoded;
      return [];
    }
    const complete = this.pending + decoded.slice(0, lastNewline);
    this.pending = decoded.slice(lastNewline + 1);
    return this.parseLines(complete.split("\n"));
  }

  /** Flushes the decoder: the last line may lack its `\n` (EOF ends it). Returns the values it completed. */
  end(): unknown[] {
    const rest = this.pending + this.text.decode();
    this.pending = "";
    const before = this.malformed;
    const values = this.parseLines([rest]);
    this.cutLastLine = this.malformed > before;
    return values;
  }

  private parseLines(lines: string[]): unknown[] {
    const values: unknown[] = [];
    for (const raw of lines) {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line.trim() === "") continue;
      try {
        values.push(JSON.parse(line));
      } catch {
        this.malformed += 1;
      }
    }
    return values;
  }
}

/** Decodes a whole captured body given as the chunks it arrived in. */
export function decodeNdjson(chunks: Iterable<Uint8Array>): NdjsonDecodeResult {
  const decoder = new NdjsonDecoder();
  const values: unknown[] = [];
  const collect = (decoded: unknown[]): void => {
    for (const value of decoded) values.push(value);
  };
  for (const chunk of chunks) collect(decoder.push(chunk));
  collect(decoder.end());
  return { values, malformedLines: decoder.malformedLines, endedMidLine: decoder.endedMidLine };
}
