/**
 * Server-sent events (text/event-stream) from captured body chunks. The event framing (field lines, `data:` joins,
 * comments, `\r\n` / `\r` / `\n` line ends, a BOM) is eventsource-parser's; this module only adds UTF-8 reassembly across
 * chunks and tells whether the body ended inside an event (a cut stream).
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export type SseEvent = EventSourceMessage;

export interface SseDecodeResult {
  /** Every complete event (ended by a blank line), in stream order. `event` is undefined when no `event:` line was sent. */
  events: SseEvent[];
  /** The body ended with an event that had started but was not closed by a blank line (it is not in `events`). */
  endedMidEvent: boolean;
  /** Lines the parser could not understand (ignored). */
  invalidLines: number;
}

/** Incremental SSE decoder: push byte chunks as they arrive, then call {@link SseDecoder.end}. */
export class SseDecoder {
  private readonly text = new TextDecoder("utf-8");
  private readonly completed: SseEvent[] = [];
  private invalid = 0;
  // Whether an event is open, tracked character by character (linear in the body, whatever the chunking).
  private eventOpen = false;
  private lineStarted = false;
  private lineIsComment = false;
  private afterCarriageReturn = false;
  private readonly parser = createParser({
    onEvent: (event) => {
      this.completed.push(event);
    },
    onError: () => {
      this.invalid += 1;
    },
  });

  /** Decodes one chunk and returns the events it completed. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.feed(this.text.decode(chunk, { stream: true }));
  }

  /** Flushes the decoder. An event not closed by a blank line is dropped and reported through `endedMidEvent`. */
  end(): { events: SseEvent[]; endedMidEvent: boolean } {
    const events = this.feed(this.text.decode());
    // Blank lines and comments between events leave nothing open; anything else is a cut event.
    const open = this.eventOpen || (this.lineStarted && !this.lineIsComment);
    return { events, endedMidEvent: open };
  }

  get invalidLines(): number {
    return this.invalid;
  }

  /** Follows line ends (`\n`, `\r\n`, `\r`, possibly split across chunks): a blank line closes the event. */
  private track(text: string): void {
    for (let index = 0; index < text.length; index += 1) {
      const code = text.charCodeAt(index);
      if (this.afterCarriageReturn) {
        this.afterCarriageReturn = false;
        if (code === 0x0a) continue;
      }
      if (code === 0x0a || code === 0x0d) {
        if (!this.lineStarted) this.eventOpen = false;
        else if (!this.lineIsComment) this.eventOpen = true;
        this.lineStarted = false;
        this.afterCarriageReturn = code === 0x0d;
        continue;
      }
      if (!this.lineStarted) {
        this.lineStarted = true;
        this.lineIsComment = code === 0x3a;
      }
    }
  }

  private feed(text: string): SseEvent[] {
    const before = this.completed.length;
    this.parser.feed(text);
    this.track(text);
    return this.completed.slice(before);
  }
}

/** Decodes a whole captured SSE body given as the chunks it arrived in. */
export function decodeSse(chunks: Iterable<Uint8Array>): SseDecodeResult {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  const ending = decoder.end();
  events.push(...ending.events);
  return { events, endedMidEvent: ending.endedMidEvent, invalidLines: decoder.invalidLines };
}

/** `JSON.parse` of an event's data, or undefined when it is not JSON (callers count or skip those). */
export function parseSseJson(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    return undefined;
  }
}
