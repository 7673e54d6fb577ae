/**
 * Newline-delimited JSON framing, shared by every provider whose stream is one JSON value per line.
 * Decoding is incremental so that the result never depends on where the network cut the body into chunks.
 */
import { LineDecoder } from "./lines";

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
 * Blank lines are skipped; a line that is not valid JSON is skipped and counted instead of thrown, because providers
 * occasionally emit a broken line and only the caller knows whether that matters.
 */
export class NdjsonDecoder {
  private readonly lines = new LineDecoder();
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
    return this.parseLines(this.lines.push(chunk));
  }

  /** Flushes the decoder: the last line may lack its `\n` (EOF ends it). Returns the values it completed. */
  end(): unknown[] {
    const before = this.malformed;
    const values = this.parseLines([this.lines.end()]);
    this.cutLastLine = this.malformed > before;
    return values;
  }

  private parseLines(lines: string[]): unknown[] {
    const values: unknown[] = [];
    for (const line of lines) {
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
  for (const chunk of chunks) values.push(...decoder.push(chunk));
  values.push(...decoder.end());
  return { values, malformedLines: decoder.malformedLines, endedMidLine: decoder.endedMidLine };
}
