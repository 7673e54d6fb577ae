/**
 * API-key authentication as one middleware for every key-authenticated route (scrapes, job submission, `/account`):
 * the key from the `X-API-Key` header or the `api_key` query parameter (the header wins), looked up in D1 (a revoked key
 * fails at once), its last use recorded, and the per-key rate limit applied. The authenticated key is `c.var.apiKey`.
 */
import { createMiddleware } from "hono/factory";
import { authenticateApiKey, pickApiKey, touchApiKey } from "../auth/api-keys";
import { TooManyRequestsError } from "../errors";
import type { AppEnv } from "./app-env";

export const RATE_LIMIT_DETAIL = "Rate limit exceeded. Retry after a moment.";

export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const key = await authenticateApiKey(c.env.DB, pickApiKey(c.req.header("X-API-Key"), c.req.query("api_key")));
  c.executionCtx.waitUntil(touchApiKey(c.env.DB, key.keyId));
  const { success } = await c.env.KEY_RATE_LIMITER.limit({ key: key.keyId });
  if (!success) throw new TooManyRequestsError(RATE_LIMIT_DETAIL, 10);
  c.set("apiKey", key);
  await next();
});
