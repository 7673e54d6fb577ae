/**
 * What a browser step captured of the provider's own network exchange: the raw bytes the page received, in the
 * chunks it received them, so that parsers can be driven by recorded fixtures split at any byte boundary.
 */
export interface StreamCapture {
  /** Request URL as the page sent it. */
  url: string;
  /** HTTP status of the provider's response (0 when the request failed before a response arrived). */
  status: number;
  contentType: string;
  /** The JSON body the page sent, when it was a string; lets a parser or test confirm the request (e.g. the mode). */
  requestBody: string | null;
  /** Response body chunks as received. */
  chunks: Uint8Array[];
  /** True when the body was read to its end; false when the stream broke (disconnect) or was still open. */
  complete: boolean;
  /** Network or stream error reported by the page, if any. */
  error: string | null;
}
