/**
 * Per-account bound on synchronous scrapes using a browser at once (docs/limits.md). Without it, one account's burst of
 * requests that time out (refunded, so free to it) holds the shared browsers and their wait queue for every other
 * customer. Only browser work holds a slot: a cache hit, or a request that waits for an identical request's scrape
 * (src/pipeline/coalesce.ts), uses no browser and is never refused by this bound. An account whose refunded scrapes held
 * the browsers for too long in the last hour gets a quarter of its bound (src/limits/refunded-browser-time.ts).
 */
import { TooManyRequestsError } from "../errors";
import { accountLimits } from "./account-limits";
import { giveBackAccountSlot, takeAccountSlot } from "./account-slots";
import type { LogSubject } from "../util/log-line";

/** How long a slot outlives the request's own timeout if it is never given back (an isolate evicted mid-request). */
const SLOT_GRACE_MS = 30_000;

export function tooManyRequestsInFlightDetail(limit: number): string {
  return (
    `Too many requests in flight for this account: at most ${limit} synchronous scrapes run at once. ` +
    "Retry when one has finished, or submit asynchronous jobs for batches."
  );
}

/** The 429 while the account's bound is reduced because its refunded scrapes held the browsers for free. */
function reducedForRefundedTimeDetail(limit: number, normalLimit: number, thresholdSeconds: number): string {
  return (
    `Too many requests in flight for this account: at most ${limit} synchronous scrapes run at once (normally ${normalLimit}), ` +
    `because refunded time-outs, disconnects and failures held the browsers for more than ${thresholdSeconds} seconds in the last hour. ` +
    "The bound comes back as those refunds leave the hour; use a longer timeout, or retry when a scrape has finished."
  );
}

/** Takes one of the account's request slots for a scrape of `timeoutSeconds`; resolves to the function that gives it back. */
export async function holdRequestSlot(
  env: Env,
  accountId: string,
  timeoutSeconds: number,
  logSubject?: LogSubject,
): Promise<() => Promise<void>> {
  const limits = accountLimits(env);
  const outcome = await takeAccountSlot(env.DB, {
    accountId,
    kind: "request",
    limit: limits.concurrentRequests,
    ttlMs: timeoutSeconds * 1000 + SLOT_GRACE_MS,
    refundedSecondsPerHour: limits.refundedBrowserSecondsPerHour,
  });
  if (!outcome.taken) {
    const detail = outcome.reducedForRefundedTime
      ? reducedForRefundedTimeDetail(outcome.limit, outcome.normalLimit, outcome.refundedSecondsPerHour)
      : tooManyRequestsInFlightDetail(outcome.limit);
    throw new TooManyRequestsError(detail, outcome.retryAfterSeconds, "concurrency_limit");
  }
  return () => giveBackAccountSlot(env.DB, outcome.slot, logSubject);
}
