/**
 * Per-account bound on synchronous scrapes in flight (docs/limits.md). Applied after authentication and before the
 * credit charge, so a refused request costs nothing; the slot is given back when the response is ready, whatever it is.
 * Without it, one account's burst of requests that time out (refunded, so free to it) holds the shared browsers and
 * their wait queue for every other customer.
 */
import { createMiddleware } from "hono/factory";
import { TooManyRequestsError } from "../errors";
import { accountLimits } from "../limits/account-limits";
import { giveBackAccountSlot, takeAccountSlot } from "../limits/account-slots";
import type { AppEnv } from "./app-env";

/** How long a slot outlives the request's own timeout if it is never given back (an isolate evicted mid-request). */
const SLOT_GRACE_MS = 30_000;

export function tooManyRequestsInFlightDetail(limit: number): string {
  return (
    `Too many requests in flight for this account: at most ${limit} synchronous scrapes run at once. ` +
    "Retry when one has finished, or submit asynchronous jobs for batches."
  );
}

export const accountRequestSlot = createMiddleware<AppEnv>(async (c, next) => {
  const { concurrentRequests } = accountLimits(c.env);
  const outcome = await takeAccountSlot(c.env.DB, {
    accountId: c.get("apiKey").accountId,
    kind: "request",
    limit: concurrentRequests,
    ttlMs: c.get("scrapeParams").timeout * 1000 + SLOT_GRACE_MS,
  });
  if (!outcome.taken) throw new TooManyRequestsError(tooManyRequestsInFlightDetail(concurrentRequests), outcome.retryAfterSeconds);
  try {
    await next();
  } finally {
    await giveBackAccountSlot(c.env.DB, outcome.slot);
  }
});
