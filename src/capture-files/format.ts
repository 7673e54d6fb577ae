/**
 * The capture file: one scrape's raw exchanges (request, every body chunk or WebSocket frame with its timing), the page
 * values its parser reads, and the answer, as readable JSON. A body is stored once as text (or base64 when it is not
 * UTF-8) with the byte length and arrival time of each chunk, so the file reads like the stream and still rebuilds
 * the exact bytes in the exact pieces the page received (a parser split bug replays too).
 */
import { z } from "@hono/zod-openapi";
import { InMemoryInputs, type CaptureRecorder } from "../browser/page/capture/recording";
import type { CapturedExchange } from "../browser/page/capture/types";
import { answerDefiningParams, type ScrapeParams } from "../params/common-params";
import { base64ToBytes, bytesToBase64 } from "../util/base64";
import { isoTimestamp } from "../util/time";

export const CAPTURE_FORMAT = "ai-answer-scraper/capture@1";

const ChunkSchema = z.strictObject({
  bytes: z.number().int().nonnegative(),
  /** ms since the exchange started. */
  at_ms: z.number(),
});

const FrameSchema = z.strictObject({
  direction: z.enum(["sent", "received"]),
  /** Text frames as sent; binary frames base64 (`binary: true`). */
  data: z.string(),
  binary: z.boolean(),
  at_ms: z.number(),
});

const ExchangeFileSchema = z.strictObject({
  rule: z.string(),
  transport: z.enum(["fetch", "xhr", "websocket"]),
  url: z.string(),
  method: z.string(),
  status: z.number().int(),
  content_type: z.string(),
  request_body: z.string().nullable(),
  /** The whole response body when it is valid UTF-8 … */
  body_text: z.string().optional(),
  /** … else base64. */
  body_base64: z.string().optional(),
  chunks: z.array(ChunkSchema),
  frames: z.array(FrameSchema),
  complete: z.boolean(),
  error: z.string().nullable(),
  started_at: z.number(),
});
export type ExchangeFile = z.infer<typeof ExchangeFileSchema>;

const FailureSchema = z.strictObject({
  status: z.number().int(),
  detail: z.string(),
  /** The drift code when the page or stream no longer looked as expected (`grok.mode_item_missing`). */
  code: z.string().nullable(),
});

export const CaptureFileSchema = z.strictObject({
  format: z.literal(CAPTURE_FORMAT),
  scraper: z.string(),
  recorded_at: z.string(),
  /** `real` when the scrape drove the provider's real site (live mode), `override` for a replica or another origin. */
  site: z.enum(["real", "override"]),
  origin: z.string(),
  /** The query parameters as sent (strings), validated again on replay like a request. */
  query: z.record(z.string(), z.string()),
  exchanges: z.record(z.string(), ExchangeFileSchema),
  snapshots: z.record(z.string(), z.unknown()),
  /** The provider's answer (`result`, `result_markdown` and its own fields); null when the scrape failed. */
  answer: z.record(z.string(), z.unknown()).nullable(),
  /** Why the scrape failed, when it did: the capture is then the test of the fix, once `answer` is filled in. */
  failure: FailureSchema.nullable(),
  /** What was masked before the file was written (`exchanges.conversation.request_body: at`). */
  redactions: z.array(z.string()),
});
export type CaptureFile = z.infer<typeof CaptureFileSchema>;
type CaptureFailure = z.infer<typeof FailureSchema>;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A captured exchange in its file form. */
export function exchangeToFile(exchange: CapturedExchange): ExchangeFile {
  const total = exchange.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of exchange.chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let text: string | null;
  try {
    text = strictUtf8.decode(body);
  } catch {
    text = null;
  }
  return {
    rule: exchange.rule,
    transport: exchange.transport,
    url: exchange.url,
    method: exchange.method,
    status: exchange.status,
    content_type: exchange.contentType,
    request_body: exchange.requestBody,
    ...(text === null ? { body_base64: bytesToBase64(body) } : { body_text: text }),
    chunks: exchange.chunks.map((chunk, index) => ({ bytes: chunk.byteLength, at_ms: exchange.chunkTimesMs[index] ?? 0 })),
    frames: exchange.frames.map((frame) => ({ direction: frame.direction, data: frame.data, binary: frame.binary, at_ms: frame.atMs })),
    complete: exchange.complete,
    error: exchange.error,
    started_at: exchange.startedAt,
  };
}

/** The exchange a file holds, its body cut back into the recorded chunks. Throws when the chunk lengths do not add up. */
export function exchangeFromFile(file: ExchangeFile): CapturedExchange {
  const body = file.body_base64 !== undefined ? base64ToBytes(file.body_base64) : new TextEncoder().encode(file.body_text ?? "");
  const recorded = file.chunks.reduce((sum, chunk) => sum + chunk.bytes, 0);
  if (recorded !== body.byteLength) {
    throw new RangeError(`the chunks add up to ${recorded} bytes but the body has ${body.byteLength} (the body was edited?)`);
  }
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const chunk of file.chunks) {
    chunks.push(body.slice(offset, offset + chunk.bytes));
    offset += chunk.bytes;
  }
  return {
    rule: file.rule,
    transport: file.transport,
    url: file.url,
    method: file.method,
    status: file.status,
    contentType: file.content_type,
    requestBody: file.request_body,
    chunks,
    chunkTimesMs: file.chunks.map((chunk) => chunk.at_ms),
    frames: file.frames.map((frame) => ({ direction: frame.direction, data: frame.data, binary: frame.binary, atMs: frame.at_ms })),
    complete: file.complete,
    error: file.error,
    startedAt: file.started_at,
  };
}

export interface CaptureMetadata {
  scraper: string;
  site: CaptureFile["site"];
  origin: string;
  query: Record<string, string>;
  recordedAt: string;
}

/** The file of one recorded scrape (before redaction). */
export function captureFileOf(
  metadata: CaptureMetadata,
  recorder: CaptureRecorder,
  outcome: { answer: Record<string, unknown> } | { failure: CaptureFailure },
): CaptureFile {
  return {
    format: CAPTURE_FORMAT,
    scraper: metadata.scraper,
    recorded_at: metadata.recordedAt,
    site: metadata.site,
    origin: metadata.origin,
    query: metadata.query,
    exchanges: Object.fromEntries([...recorder.exchanges].map(([name, exchange]) => [name, exchangeToFile(exchange)])),
    snapshots: Object.fromEntries(recorder.snapshots),
    answer: "answer" in outcome ? outcome.answer : null,
    failure: "failure" in outcome ? outcome.failure : null,
    redactions: [],
  };
}

/** The parser inputs a file holds, for the provider's `replay`. */
export function recordedInputsOf(file: CaptureFile): InMemoryInputs {
  const exchanges = new Map(Object.entries(file.exchanges).map(([name, exchange]) => [name, exchangeFromFile(exchange)]));
  return new InMemoryInputs(file.origin, exchanges, new Map(Object.entries(file.snapshots)));
}

/** What the capture layer needs of a provider to describe a scrape of it. */
interface CapturedProvider {
  id: string;
  origin: { real(params: ScrapeParams): string };
}

/** The metadata of a scrape of `provider` with `params` against `origin`, recorded now. */
export function captureMetadataOf(provider: CapturedProvider, params: ScrapeParams, origin: string): CaptureMetadata {
  return {
    scraper: provider.id,
    site: origin === provider.origin.real(params).replace(/\/+$/, "") ? "real" : "override",
    origin,
    query: queryOf(params),
    recordedAt: isoTimestamp(),
  };
}

/** The query as an operator would type it again: every answer-defining parameter as a string. */
function queryOf(params: ScrapeParams): Record<string, string> {
  return Object.fromEntries(
    Object.entries(answerDefiningParams(params)).flatMap(([name, value]) =>
      typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? [[name, String(value)]] : [],
    ),
  );
}
