/**
 * `GET /admin/accounts/{account_id}/limits`: what an account may have in flight and send a minute, and what it has now;
 * `PATCH` sets the account's own values (docs/limits.md). A value set here replaces the service's default for this
 * account only; `null` puts it back to the default. New request rates apply from the account's next request; the
 * refunded-time budget and the bound in flight from its next slot (both are read in the statement that takes it).
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { getAccount } from "../accounts/accounts";
import { requireAdminToken } from "./admin-token";
import { InvalidParameterError, NotFoundError } from "../errors";
import { CONCURRENT_REQUESTS_RANGE, REQUESTS_PER_MINUTE_RANGE } from "../limits/account-limits";
import { type AccountLimitOverrides, effectiveAccountLimits, writeAccountOverrides } from "../limits/account-overrides";
import { REFUNDED_BROWSER_SECONDS_RANGE } from "../limits/capacity-rules";
import { accountLimitsView } from "../limits/limits-view";
import { pushRequestRates } from "../limits/request-rate-limiter";
import type { AppEnv } from "./app-env";
import { strictBody } from "./json-body";
import { errorResponse } from "./openapi-errors";
import { requestLogLine } from "./request-id";

const usage = (description: string) => z.object({ limit: z.number().int(), in_use: z.number().int() }).openapi({ description });
const override = (description: string) => z.number().int().nullable().openapi({ description });

const AccountLimitsSchema = z
  .object({
    concurrent_requests: usage("Synchronous scrapes running at once; beyond the limit → 429 with Retry-After"),
    running_jobs: usage("Job attempts running at once; the account's other jobs wait their turn"),
    requests_per_minute: z
      .object({ per_key: z.number().int(), per_account: z.number().int() })
      .openapi({ description: "Requests a minute per API key and for all keys together; beyond → 429 with Retry-After" }),
    refunded_browser_time: z
      .object({
        seconds_per_hour: z
          .number()
          .int()
          .openapi({ description: "The budget that applies to this account (its own value, else the default)" }),
        seconds_last_hour: z
          .number()
          .int()
          .openapi({ description: "Browser seconds held by the account's refunded scrapes and job attempts in the last hour" }),
        concurrency_reduced: z.boolean().openapi({
          description:
            "True while seconds_last_hour is past seconds_per_hour: both bounds in flight above are then a quarter of the account's limits",
        }),
      })
      .openapi({
        description:
          "Refunded time-outs, disconnects and failures are free to the account; past this budget its concurrency drops to a quarter (at least 1)",
      }),
    account_overrides: z
      .object({
        key_requests_per_minute: override("Set for this account; null = the service's default"),
        account_requests_per_minute: override("Set for this account; null = the service's default"),
        concurrent_requests: override("Set for this account; null = the service's default"),
        refunded_browser_seconds_per_hour: override("Set for this account; null = the service's default"),
      })
      .openapi({ description: "The values the operator set for this account (the effective ones are above)" }),
    api_keys: z.object({ max_active: z.number().int(), max_created_per_day: z.number().int() }),
  })
  .openapi("AccountLimits");

const rangeRule = ({ min, max }: { min: number; max: number }) => `must be an integer from ${min} to ${max}, or null for the default`;
const settable = (range: { min: number; max: number }) =>
  z
    .number({ error: rangeRule(range) })
    .int({ error: rangeRule(range) })
    .min(range.min, { error: rangeRule(range) })
    .max(range.max, { error: rangeRule(range) })
    .nullable()
    .optional();

const AccountLimitsChangeSchema = strictBody({
  key_requests_per_minute: settable(REQUESTS_PER_MINUTE_RANGE).openapi({ description: "Requests a minute per API key of the account" }),
  account_requests_per_minute: settable(REQUESTS_PER_MINUTE_RANGE).openapi({ description: "Requests a minute of all its keys together" }),
  concurrent_requests: settable(CONCURRENT_REQUESTS_RANGE).openapi({ description: "Synchronous scrapes running at once" }),
  refunded_browser_seconds_per_hour: settable(REFUNDED_BROWSER_SECONDS_RANGE).openapi({
    description: "Refunded browser seconds the account may have in the last hour before its concurrency drops to a quarter",
  }),
}).openapi("AccountLimitsChange");

const AccountLimitsResponse = z.object({ account_id: z.string(), limits: AccountLimitsSchema }).openapi("AccountLimitsResponse");
const AccountIdParam = z.object({ account_id: z.string().min(1).max(100) });
const operator = { tags: ["Operator"], security: [{ AdminToken: [] }], middleware: [requireAdminToken] };

const readRoute = createRoute({
  ...operator,
  method: "get",
  path: "/admin/accounts/{account_id}/limits",
  summary: "An account's limits and what it has in flight",
  request: { params: AccountIdParam },
  responses: {
    200: { description: "Limits and current use", content: { "application/json": { schema: AccountLimitsResponse } } },
    401: errorResponse("Missing or invalid admin token"),
    404: errorResponse("No account with this id"),
  },
});

const changeRoute = createRoute({
  ...operator,
  method: "patch",
  path: "/admin/accounts/{account_id}/limits",
  summary: "Set an account's own limits",
  description:
    "Sets requests a minute per key and per account, synchronous requests in flight and the refunded browser time allowed an " +
    "hour (past it, the account's concurrency drops to a quarter) for this account. Fields left out keep " +
    "their value; `null` puts one back to the service's default. Applies from the account's next request.",
  request: { params: AccountIdParam, body: { required: true, content: { "application/json": { schema: AccountLimitsChangeSchema } } } },
  responses: {
    200: { description: "The account's limits after the change", content: { "application/json": { schema: AccountLimitsResponse } } },
    400: errorResponse("Invalid body; `detail` names the field and the rule"),
    401: errorResponse("Missing or invalid admin token"),
    404: errorResponse("No account with this id"),
  },
});

async function requireAccount(db: D1Database, accountId: string): Promise<string> {
  const account = await getAccount(db, accountId);
  if (account === null) throw new NotFoundError("Account not found.");
  return account.accountId;
}

export function registerAdminLimitRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(readRoute, async (c) => {
    const accountId = await requireAccount(c.env.DB, c.req.valid("param").account_id);
    return c.json({ account_id: accountId, limits: await accountLimitsView(c.env, accountId) }, 200);
  });

  app.openapi(changeRoute, async (c) => {
    const accountId = await requireAccount(c.env.DB, c.req.valid("param").account_id);
    const body = c.req.valid("json");
    const change: Partial<AccountLimitOverrides> = {};
    if (body.key_requests_per_minute !== undefined) change.keyRequestsPerMinute = body.key_requests_per_minute;
    if (body.account_requests_per_minute !== undefined) change.accountRequestsPerMinute = body.account_requests_per_minute;
    if (body.concurrent_requests !== undefined) change.concurrentRequests = body.concurrent_requests;
    if (body.refunded_browser_seconds_per_hour !== undefined) change.refundedBrowserSecondsPerHour = body.refunded_browser_seconds_per_hour;
    if (Object.keys(change).length === 0) {
      throw new InvalidParameterError(
        "Request body: set at least one of key_requests_per_minute, account_requests_per_minute, concurrent_requests, " +
          "refunded_browser_seconds_per_hour.",
      );
    }
    await writeAccountOverrides(c.env.DB, accountId, change);
    const { limits } = await effectiveAccountLimits(c.env, accountId);
    // The account's limiter holds its rates in memory: it gets the new ones now rather than within its refresh interval.
    // Stored either way: a limiter that misses the push reads D1 again within a minute.
    await pushRequestRates(c.env, accountId, { perKey: limits.keyRequestsPerMinute, perAccount: limits.accountRequestsPerMinute }).catch(
      (error: unknown) => console.error(requestLogLine(c, "Could not push new rate limits to the account's limiter"), error),
    );
    return c.json({ account_id: accountId, limits: await accountLimitsView(c.env, accountId) }, 200);
  });
}
