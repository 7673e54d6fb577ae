/**
 * Bytes → lines, incrementally. The base of every line-oriented provider stream (NDJSON, and the SSE framing that
 * eventsource-parser handles on top of decoded text). A UTF-8 character or a line split across chunks is reassembled;
 * `\n` and `\r\n` both end a line.
 */
export class LineDecoder {
  // stream mode keeps an incomplete multi-byte sequence until the next chunk completes it
  private readonly text = new TextDecoder("utf-8");
  private pending = "";

  /** Decodes one chunk and returns the lines it completed (without their line ends). */
  push(chunk: Uint8Array): string[] {
    const decoded = this.text.decode(chunk, { stream: true });
    // search only the new text: rescanning the pending line would make tiny chunks of a long line quadratic
    const lastNewline = decoded.lastIndexOf("\n");
    if (lastNewline === -1) {
      this.pending += decoded;
      return [];
    }
    const complete = this.pending + decoded.slice(0, lastNewline);
    this.pending = decoded.slice(lastNewline + 1);
    return complete.split("\n").map(stripCarriageReturn);
  }

  /** Flushes the decoder: returns the last line when the body did not end with a line end ("" when it did). */
  end(): string {
    const rest = this.pending + this.text.decode();
    this.pending = "";
    return stripCarriageReturn(rest);
  }
}

function stripCarriageReturn(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** Decodes a whole body given as the chunks it arrived in into text (UTF-8, characters split across chunks joined). */
export function decodeUtf8Chunks(chunks: Iterable<Uint8Array>): string {
  const decoder = new TextDecoder("utf-8");
  let text = "";
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
