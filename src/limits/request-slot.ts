/**
 * Per-account bound on synchronous scrapes using a browser at once (docs/limits.md). Without it, one account's burst of
 * requests that time out (refunded, so free to it) holds the shared browsers and their wait queue for every other
 * customer. Only browser work holds a slot: a cache hit, or a request that waits for an identical request's scrape
 * (src/scrape/coalesce.ts), uses no browser and is never refused by this bound.
 */
import { TooManyRequestsError } from "../errors";
import { accountLimits } from "./account-limits";
import { giveBackAccountSlot, takeAccountSlot } from "./account-slots";

/** How long a slot outlives the request's own timeout if it is never given back (an isolate evicted mid-request). */
const SLOT_GRACE_MS = 30_000;

export function tooManyRequestsInFlightDetail(limit: number): string {
  return (
    `Too many requests in flight for this account: at most ${limit} synchronous scrapes run at once. ` +
    "Retry when one has finished, or submit asynchronous jobs for batches."
  );
}

/** Takes one of the account's request slots for a scrape of `timeoutSeconds`; resolves to the function that gives it back. */
export async function holdRequestSlot(env: Env, accountId: string, timeoutSeconds: number): Promise<() => Promise<void>> {
  const outcome = await takeAccountSlot(env.DB, {
    accountId,
    kind: "request",
    limit: accountLimits(env).concurrentRequests,
    ttlMs: timeoutSeconds * 1000 + SLOT_GRACE_MS,
  });
  if (!outcome.taken)
    throw new TooManyRequestsError(tooManyRequestsInFlightDetail(outcome.limit), outcome.retryAfterSeconds, "concurrency_limit");
  return () => giveBackAccountSlot(env.DB, outcome.slot);
}
