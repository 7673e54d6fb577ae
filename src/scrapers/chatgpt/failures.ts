/**
 * The client-safe failures of the ChatGPT scraper (chatgpt.md §5 → DESIGN.md §4), shared by the page driver and the
 * parser. Details never carry provider text: that goes only into `cause`, for the log.
 */
import { UnexpectedResultError, UpstreamError } from "../../errors";

export const CHATGPT_DETAIL = {
  challenge: "ChatGPT answered with an anti-bot challenge. Safe to retry.",
  login: "ChatGPT requires a login: the browser session is not signed in to chatgpt.com.",
  rateLimit: "ChatGPT's rate limit was reached. Retry shortly.",
  region: "ChatGPT is not available in the country this request was routed through. Try another country.",
  rejected: "ChatGPT rejected the request the page sent (HTTP 422); the scraper needs an update.",
  unreachable: "ChatGPT could not be reached. Safe to retry.",
  serverError: "ChatGPT failed to answer (upstream HTTP error). Safe to retry.",
  streamError: "ChatGPT reported an error while answering. Safe to retry.",
  truncated: "ChatGPT's stream ended before the answer was complete. Safe to retry.",
  unreadable: "ChatGPT's answer stream could not be read completely. Safe to retry.",
  empty: "ChatGPT returned an empty answer. Safe to retry.",
} as const;

/** Transient: a new session or IP usually passes (Cloudflare interstitial, Turnstile, "unusual activity"). */
export function challengeFailure(cause?: unknown): UpstreamError {
  return new UpstreamError(CHATGPT_DETAIL.challenge, { retryable: true, cause, reason: "challenge" });
}

/** Permanent for this session: only a logged-in session helps. */
export function loginWallFailure(cause?: unknown): UpstreamError {
  return new UpstreamError(CHATGPT_DETAIL.login, { retryable: false, cause, reason: "login_wall" });
}

export function rateLimitFailure(cause?: unknown): UpstreamError {
  return new UpstreamError(CHATGPT_DETAIL.rateLimit, { retryable: true, cause, reason: "rate_limited" });
}

export function emptyAnswerFailure(cause?: unknown): UnexpectedResultError {
  return new UnexpectedResultError(CHATGPT_DETAIL.empty, cause);
}
