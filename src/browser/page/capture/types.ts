/**
 * What the capture layer records of a provider page's own network exchanges: the raw bytes or frames the page
 * received, in the pieces it received them, so that parsers can be driven by recorded fixtures split anywhere.
 */

export type CaptureTransport = "fetch" | "xhr" | "websocket";

/** One WebSocket message, in either direction. */
export interface CapturedFrame {
  direction: "sent" | "received";
  /** Text frames as sent; binary frames base64-encoded (`binary: true`). */
  data: string;
  binary: boolean;
  /** Milliseconds since the exchange started. */
  atMs: number;
}

/** One request the page made (fetch or XHR) or one WebSocket it opened, matched by a capture rule. */
export interface CapturedExchange {
  /** Name of the capture rule that matched (providers name their rules, e.g. "conversation"). */
  rule: string;
  transport: CaptureTransport;
  /** Absolute URL as the page requested it. */
  url: string;
  /** HTTP method ("GET" for a WebSocket). */
  method: string;
  /** HTTP status; 101 once a WebSocket is open; 0 when the request failed before any response. */
  status: number;
  contentType: string;
  /**
   * The request body as it left the page (after any patch), when it was a string (JSON, form-encoded) or
   * URLSearchParams; null when there was none or it was not readable (FormData, Blob, stream): a caller that must
   * verify the request treats null as a failure.
   */
  requestBody: string | null;
  /** HTTP response body chunks as the page received them (empty for WebSockets). */
  chunks: Uint8Array[];
  /** Milliseconds since the exchange started at which each chunk arrived (same order as `chunks`). */
  chunkTimesMs: number[];
  /** WebSocket frames in both directions, in order (empty for HTTP). */
  frames: CapturedFrame[];
  /** True when the body was read to its end (HTTP) or the socket closed cleanly (WebSocket). */
  complete: boolean;
  /** Network or stream error reported by the page, if any. */
  error: string | null;
  /** ms since epoch when the page started the exchange. */
  startedAt: number;
}

/** The HTTP-stream view most parsers need (a CapturedExchange satisfies it). */
export type StreamCapture = Pick<CapturedExchange, "url" | "status" | "contentType" | "requestBody" | "chunks" | "complete" | "error">;

/**
 * A change applied to an outgoing request body or WebSocket frame before it leaves the page: the navigation engine's
 * fallback when a control cannot be found (the choice is then patched into the request, and verified on the wire).
 * Applies only to JSON bodies / frames; `when` lists pointer/value pairs that must all match (e.g. `["/event", "send"]`).
 * `set` writes each value at its pointer; `include` makes the array at its pointer hold the item (appended when
 * missing, the array created when there is none), so what the page already asked for stays. A body that no part of
 * the patch changes leaves the page byte for byte as it was written.
 */
export interface OutgoingPatch {
  set?: Array<[pointer: string, value: unknown]>;
  include?: Array<[pointer: string, item: unknown]>;
  when?: Array<[pointer: string, value: unknown]>;
}

/** Which exchanges to record: a name, the URL pattern (matched against the absolute URL) and the transports. */
export interface CaptureRule {
  name: string;
  url: RegExp;
  transports: readonly CaptureTransport[];
  /** Applied to every matching outgoing JSON request body / WebSocket text frame. */
  patch?: OutgoingPatch;
}
