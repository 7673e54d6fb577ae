/**
 * API key scopes on the routes (issue 30): `scrape` keys (the default) run scrapes, jobs, batches (a batch's own
 * `webhook_url` included: it only ever receives that batch's jobs), `GET /account` and the MCP tools. Reading or changing
 * the account's webhook endpoint, its signing secret and its delivery log needs a `manage` key, so a key copied out of
 * a scraping client cannot re-point the account's webhook to itself, read the secret and receive every job result.
 * The dashboard (a signed-in session) keeps full access: it does not come through here.
 *
 * Put `requireManageScope` after `apiKeyAuth`: an unknown key is a 401 first, and a refused request still counts
 * against the key's rate limits.
 */
import { createMiddleware } from "hono/factory";
import { InsufficientScopeError } from "../errors";
import type { AppEnv } from "./app-env";

export const MANAGE_SCOPE_REQUIRED_DETAIL =
  'This API key has the scope "scrape" (scrapes, jobs, batches, GET /account, MCP). Webhook settings, the signing secret and ' +
  'the delivery log need a key with the scope "manage": create one in the dashboard (API keys → Create a key → Scope: manage), ' +
  "or change the webhook in the dashboard itself.";

export const requireManageScope = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get("apiKey").scope !== "manage") throw new InsufficientScopeError(MANAGE_SCOPE_REQUIRED_DETAIL);
  await next();
});
