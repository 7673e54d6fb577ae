/**
 * API-key authentication as one middleware for every key-authenticated route (scrapes, job submission, `/account`):
 * the key from the `X-API-Key` header or the `api_key` query parameter (the header wins), looked up in D1 or in this
 * isolate's memo of a few seconds (src/auth/api-keys.ts: a revoked key spends no credit at once, and fails everywhere
 * within KEY_MEMO_TTL_MS), its last use recorded (one write a minute at most), and the request rate limits applied: per
 * key, and per account (all its keys together, so creating more keys buys no more requests), with each account's own
 * values (src/limits/, docs/limits.md), from the isolate's lease of the limiter (src/limits/rate-allowance.ts). A cached
 * request's round trips are in docs/cache-path.md. `GET /jobs/{job_id}` does not come through here: polling is neither
 * authenticated nor limited. The authenticated key is `c.var.apiKey`. Then the route's body cap (./body-limit.ts): a
 * body is never read before its key is known, and never parsed past its cap.
 */
import { createMiddleware } from "hono/factory";
import { authenticateApiKey, pickApiKey, touchApiKey } from "../auth/api-keys";
import { admitRequestRate } from "../limits/request-rate-limiter";
import { requestSubject } from "../util/log-line";
import { enforceBodyCap } from "./body-limit";
import type { AppEnv } from "./app-env";

export { ACCOUNT_RATE_LIMIT_DETAIL, RATE_LIMIT_DETAIL } from "../limits/request-rate-limiter";

export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const key = await authenticateApiKey(c.env.DB, pickApiKey(c.req.header("X-API-Key"), c.req.query("api_key")));
  const subject = requestSubject(c.get("requestId"));
  c.executionCtx.waitUntil(touchApiKey(c.env.DB, key.keyId, subject));
  await admitRequestRate(c.env, key, subject);
  c.set("apiKey", key);
  await enforceBodyCap(c, "api");
  await next();
});
