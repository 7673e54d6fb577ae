/**
 * API-key authentication as one middleware for every key-authenticated route (scrapes, job submission, `/account`):
 * the key from the `X-API-Key` header or the `api_key` query parameter (the header wins), looked up in D1 (a revoked key
 * fails at once), its last use recorded, and the rate limits applied: per key, and per account (all its keys
 * together, so creating more keys buys no more requests). The authenticated key is `c.var.apiKey`.
 */
import { createMiddleware } from "hono/factory";
import { authenticateApiKey, pickApiKey, touchApiKey } from "../auth/api-keys";
import { TooManyRequestsError } from "../errors";
import type { AppEnv } from "./app-env";

export const RATE_LIMIT_DETAIL = "Rate limit exceeded. Retry after a moment.";
export const ACCOUNT_RATE_LIMIT_DETAIL = "Rate limit exceeded for this account (all its API keys together). Retry after a moment.";

/** The rate-limiting binding counts in windows of at most 60 s; a client waiting this long meets a fresh window. */
const RETRY_AFTER_SECONDS = 10;

export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const key = await authenticateApiKey(c.env.DB, pickApiKey(c.req.header("X-API-Key"), c.req.query("api_key")));
  c.executionCtx.waitUntil(touchApiKey(c.env.DB, key.keyId));
  // The key's own limit first: a request it refuses does not count against the account's.
  if (!(await c.env.KEY_RATE_LIMITER.limit({ key: key.keyId })).success)
    throw new TooManyRequestsError(RATE_LIMIT_DETAIL, RETRY_AFTER_SECONDS);
  if (!(await c.env.ACCOUNT_RATE_LIMITER.limit({ key: key.accountId })).success) {
    throw new TooManyRequestsError(ACCOUNT_RATE_LIMIT_DETAIL, RETRY_AFTER_SECONDS);
  }
  c.set("apiKey", key);
  await next();
});
