/**
 * Byte-level delivery of replica answer bodies. Real provider streams reach the page in network chunks that cut
 * through lines and through multi-byte UTF-8 characters; scrapers must reassemble both. The replicas therefore never
 * write whole lines: they slice the encoded body at deterministic byte offsets and write the slices with pacing.
 *
 * Answer time set exactly (`total_ms`, replicas/control.ts): the exchange's handler runs inside `withAnswerDue`, and a
 * body built there spreads its chunks evenly so that the last one leaves exactly `total_ms` after the request arrived,
 * whatever the number of chunks. An AsyncLocalStorage carries the due time so no provider replica has to pass it on.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** When the last byte of the current exchange's answer is due (ms since epoch, `Date.now()` clock); null: not set. */
interface AnswerDue {
  dueAt: number | null;
}

const answerDue = new AsyncLocalStorage<AnswerDue>();

/**
 * Makes every body built later in the current request's async flow end at `dueAt`, or (null) paced as usual. Every
 * exchange sets it, so nothing carries over from an earlier exchange of the same async flow.
 */
export function enterAnswerDue(dueAt: number | null): void {
  answerDue.enterWith({ dueAt });
}

/** When the current exchange's answer is due (ms since epoch), or null when no exact answer time is set. */
export function currentAnswerDue(): number | null {
  return answerDue.getStore()?.dueAt ?? null;
}

/** Milliseconds from `startedAt` at which chunk `index` of `count` is due, when spreading to `dueAt`. */
export function spreadOffsetMs(index: number, count: number, startedAt: number, dueAt: number): number {
  const span = Math.max(0, dueAt - startedAt);
  return count <= 0 ? span : Math.round((span * (index + 1)) / count);
}

/** Chunk sizes in bytes, used in rotation. Small odd sizes cut lines and characters; the large one keeps long bodies fast. */
export const DEFAULT_CHUNK_PATTERN: readonly number[] = [37, 113, 5, 1499];

/**
 * Slices `body` into chunks whose sizes follow `pattern` in rotation, plus one extra cut inside the first multi-byte
 * UTF-8 character of every line (inside the first 4-byte character when the line has one, so astral emoji are split
 * too). The result is deterministic, so tests can rely on the split points.
 */
export function splitIntoChunks(body: Uint8Array, pattern: readonly number[] = DEFAULT_CHUNK_PATTERN): Uint8Array[] {
  if (pattern.length === 0 || pattern.some((size) => !Number.isInteger(size) || size < 1)) {
    throw new RangeError("chunk pattern must be positive integers");
  }
  const cuts = new Set<number>();
  let offset = 0;
  for (let i = 0; offset < body.length; i += 1) {
    offset += pattern[i % pattern.length] ?? 1;
    if (offset < body.length) cuts.add(offset);
  }
  for (const cut of utf8CutsPerLine(body)) cuts.add(cut);

  const sorted = [...cuts].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of sorted) {
    chunks.push(body.subarray(start, cut));
    start = cut;
  }
  if (start < body.length) chunks.push(body.subarray(start));
  return chunks;
}

/** Byte offsets that fall strictly inside a multi-byte character: one per line that has any. */
function utf8CutsPerLine(body: Uint8Array): number[] {
  const cuts: number[] = [];
  let firstLead = -1;
  let firstAstral = -1;
  const flush = (): void => {
    if (firstAstral >= 0) cuts.push(firstAstral + 2);
    else if (firstLead >= 0) cuts.push(firstLead + 1);
    firstLead = -1;
    firstAstral = -1;
  };
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i] ?? 0;
    if (byte === 0x0a) {
      flush();
    } else if (byte >= 0xf0 && firstAstral < 0) {
      firstAstral = i;
    } else if (byte >= 0xc0 && firstLead < 0) {
      firstLead = i;
    }
  }
  flush();
  return cuts;
}

/** How the body ends once every chunk has been written. */
export type BodyEnding =
  /** Normal end of the HTTP body (EOF). */
  | { kind: "close" }
  /**
   * The connection is cut: `destroy` tears down the socket so the client sees a broken transfer, not a clean EOF.
   * When it returns false (no socket, e.g. in-process `app.request`), the stream errors instead.
   */
  | { kind: "destroy"; destroy: () => boolean };

export interface PacedBodyOptions {
  /** Milliseconds between two chunks (0 still yields to the event loop so every chunk is a separate write). */
  chunkMs: number;
  ending: BodyEnding;
}

/** Grace period that lets the last chunk leave the socket before a deliberate disconnect tears it down. */
const FLUSH_BEFORE_DESTROY_MS = 40;

/**
 * A pull-driven byte stream that hands out one chunk per read, waiting `chunkMs` between reads. Pull-driven
 * (highWaterMark 0) so that nothing is queued ahead of the consumer: a cancelled read (client gone) stops the timers,
 * and a deliberate disconnect only happens after the consumer took every chunk.
 */
export function pacedBody(chunks: readonly Uint8Array[], options: PacedBodyOptions): ReadableStream<Uint8Array> {
  const dueAt = answerDue.getStore()?.dueAt ?? null;
  const startedAt = Date.now();
  let index = 0;
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    });

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (dueAt !== null && index < chunks.length) {
          // spread to the due time: wait for this chunk's slot (never negative: a late chunk goes at once)
          await wait(Math.max(0, startedAt + spreadOffsetMs(index, chunks.length, startedAt, dueAt) - Date.now()));
        } else if (index > 0) await wait(index < chunks.length ? options.chunkMs : FLUSH_BEFORE_DESTROY_MS);
        if (cancelled) return;
        const chunk = chunks[index];
        if (chunk !== undefined) {
          index += 1;
          controller.enqueue(chunk);
          if (index < chunks.length || options.ending.kind === "destroy") return;
          controller.close();
          return;
        }
        if (options.ending.kind === "close") {
          controller.close();
          return;
        }
        // Every chunk was taken and has had time to reach the socket: cut the connection.
        if (options.ending.destroy()) return;
        controller.error(new Error("replica: connection cut on purpose"));
      },
      cancel() {
        cancelled = true;
        if (timer !== undefined) clearTimeout(timer);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Resolves after `ms`, or early when `signal` aborts (client gone); never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Resolves when `signal` aborts: how a `hang` fault keeps a request open without ever answering. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
