/** `GET /account`: what a key holder can learn about its own account with the API key alone (any scope). */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { getAccount } from "../accounts/accounts";
import { USAGE_WINDOW_DAYS, usageSummary } from "../accounts/usage";
import { getApiKey } from "../accounts/keys";
import { API_KEY_SCOPES, INVALID_KEY_DETAIL } from "../auth/api-keys";
import { UnauthorizedError } from "../errors";
import { isoTimestamp } from "../util/time";
import { apiKeyAuth } from "./api-key-auth";
import type { AppEnv } from "./app-env";
import { API_KEY_SECURITY, LIMITER_UNAVAILABLE_RESPONSE, errorResponse } from "./openapi-errors";

const AccountStatusSchema = z
  .object({
    account_id: z.string(),
    name: z.string(),
    credits_remaining: z.number().int().openapi({ example: 1497 }),
    credits_used_last_30_days: z.number().int().openapi({ example: 3 }),
    requests_last_30_days: z.number().int().openapi({ description: "Charged requests (refunded ones excluded)", example: 1 }),
    usage_by_scraper: z
      .array(z.object({ scraper: z.string(), requests: z.number().int(), credits: z.number().int() }))
      .openapi({ description: "The last 30 days, per scraper, most used first", example: [{ scraper: "grok", requests: 1, credits: 3 }] }),
    period_start: z.string().openapi({ format: "date-time", description: "Start of the 30-day window" }),
    key: z
      .object({
        key_id: z.string(),
        name: z.string(),
        scope: z.enum(API_KEY_SCOPES).openapi({
          description: "`scrape`: scrapes, jobs, batches, this route and MCP; `manage`: also the webhook settings (`/account/webhook…`)",
        }),
      })
      .openapi({ description: "The key this request was made with" }),
  })
  .openapi("AccountStatus");

const route = createRoute({
  method: "get",
  path: "/account",
  tags: ["Account"],
  summary: "Your balance and usage",
  description: `Credits remaining, credits used and requests per scraper in the last ${USAGE_WINDOW_DAYS} days. Free (no credits charged); counts towards the key's rate limit.`,
  security: API_KEY_SECURITY,
  // Same middleware and limiter as the scrapes: a key cannot hammer the database through this free endpoint either.
  middleware: [apiKeyAuth] as const,
  request: {
    query: z.object({
      api_key: z
        .string()
        .optional()
        .openapi({ param: { name: "api_key", in: "query" }, description: "Alternative to the X-API-Key header" }),
    }),
  },
  responses: {
    200: {
      description: "The account",
      headers: { "X-Credits-Remaining": { schema: { type: "integer" }, description: "Current balance" } },
      content: { "application/json": { schema: AccountStatusSchema } },
    },
    401: errorResponse("API key missing, invalid or revoked"),
    429: errorResponse("Per-key rate limit (see Retry-After)"),
    ...LIMITER_UNAVAILABLE_RESPONSE,
  },
});

export function registerAccountRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const key = c.get("apiKey");
    const [account, usage, keyRow] = await Promise.all([
      getAccount(c.env.DB, key.accountId),
      usageSummary(c.env.DB, key.accountId),
      getApiKey(c.env.DB, key.keyId),
    ]);
    // The key's account was deleted between the two reads: the key matches no active account.
    if (account === null) throw new UnauthorizedError(INVALID_KEY_DETAIL, "invalid_api_key");
    c.header("X-Credits-Remaining", String(account.credits));
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        account_id: account.accountId,
        name: account.name,
        credits_remaining: account.credits,
        credits_used_last_30_days: usage.creditsUsed,
        requests_last_30_days: usage.requests,
        usage_by_scraper: usage.byScraper,
        period_start: isoTimestamp(usage.since),
        key: { key_id: key.keyId, name: keyRow?.name ?? "", scope: key.scope },
      },
      200,
    );
  });
}
