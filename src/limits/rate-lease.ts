/**
 * The lease protocol between an isolate's allowances (src/limits/rate-allowance.ts) and the account's
 * RequestRateLimiter Durable Object (src/limits/request-rate-limiter.ts): what an isolate gives back and what the object
 * answers. Its own module so that the two sides share it without importing each other.
 */

/**
 * The answer to a lease: `granted` requests (1 or more) counted for the isolate to spend, under the limits of
 * `ratesVersion`; or a refusal with the seconds until the next request fits.
 */
export type RateDecision =
  | { admitted: true; granted: number; ratesVersion: number }
  | { admitted: false; scope: "key" | "account"; retryAfterSeconds: number };

/** Requests an isolate gives back: counted under `ratesVersion`, never spent. */
export interface UnspentLease {
  count: number;
  ratesVersion: number;
}
