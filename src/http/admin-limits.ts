/** `GET /admin/accounts/{account_id}/limits`: what an account may have in flight, and what it has now (docs/limits.md). */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { getAccount } from "../accounts/accounts";
import { requireAdminToken } from "../auth/admin-token";
import { NotFoundError } from "../errors";
import { accountLimitsView } from "../limits/limits-view";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./openapi-errors";

const usage = (description: string) => z.object({ limit: z.number().int(), in_use: z.number().int() }).openapi({ description });

export const AccountLimitsSchema = z
  .object({
    concurrent_requests: usage("Synchronous scrapes running at once; beyond the limit → 429 with Retry-After"),
    running_jobs: usage("Job attempts running at once; the account's other jobs wait their turn"),
    requests_per_minute: z.object({ per_key: z.number().int(), per_account: z.number().int() }),
    api_keys: z.object({ max_active: z.number().int(), max_created_per_day: z.number().int() }),
  })
  .openapi("AccountLimits");

const route = createRoute({
  method: "get",
  path: "/admin/accounts/{account_id}/limits",
  tags: ["Operator"],
  summary: "An account's fair-sharing limits and what it has in flight",
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken] as const,
  request: { params: z.object({ account_id: z.string().min(1).max(100) }) },
  responses: {
    200: {
      description: "Limits and current use",
      content: { "application/json": { schema: z.object({ account_id: z.string(), limits: AccountLimitsSchema }) } },
    },
    401: errorResponse("Missing or invalid admin token"),
    404: errorResponse("No account with this id"),
  },
});

export function registerAdminLimitRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const account = await getAccount(c.env.DB, c.req.valid("param").account_id);
    if (account === null) throw new NotFoundError("Account not found.");
    return c.json({ account_id: account.accountId, limits: await accountLimitsView(c.env, account.accountId) }, 200);
  });
}
