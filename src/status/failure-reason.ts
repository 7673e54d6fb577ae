/**
 * Why a scrape failed, as the status page reports it: one category derived from the error's class (and, for an
 * upstream failure, from the `reason` set where it was thrown), never from any text.
 */
import { ClientClosedRequestError, ScraperDriftError, ScrapeTimeoutError, ServiceError, UpstreamError } from "../errors";

export const FAILURE_REASONS = ["drift", "challenge", "login_wall", "timeout", "other"] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Words for people (the HTML page); the JSON carries the codes above. */
export const FAILURE_REASON_LABELS: Readonly<Record<FailureReason, string>> = {
  drift: "Page layout changed",
  challenge: "Anti-bot challenge",
  login_wall: "Login wall",
  timeout: "Timed out",
  other: "Provider or browser error",
};

interface ClassifiedFailure {
  reason: FailureReason;
  /** The stable drift code (`grok.composer_missing`) when the reason is drift. */
  driftCode: string | null;
}

/**
 * Our own capacity, not the provider: 429 (the country's scraper queue is full) and 503 (the pool is warming up, or
 * every browser session of the service is in use) are refusals before any page of the provider was opened.
 */
const CAPACITY_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * The category of a failed scrape, or null when the failure says nothing about the provider: a capacity refusal, or a
 * client that went away (the scrape was stopped on its behalf, and refunded: free for it, so it must not count).
 */
export function classifyFailure(error: unknown): ClassifiedFailure | null {
  if (error instanceof ServiceError && CAPACITY_STATUSES.has(error.status)) return null;
  if (error instanceof ClientClosedRequestError) return null;
  if (error instanceof ScraperDriftError) return { reason: "drift", driftCode: error.driftCode };
  if (error instanceof ScrapeTimeoutError) return { reason: "timeout", driftCode: null };
  if (error instanceof UpstreamError) {
    // the kind is set where the error is thrown (src/errors.ts UpstreamReason), never read from the detail's words
    if (error.reason === "challenge") return { reason: "challenge", driftCode: null };
    if (error.reason === "login_wall") return { reason: "login_wall", driftCode: null };
  }
  return { reason: "other", driftCode: null };
}
