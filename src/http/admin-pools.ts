/**
 * `GET /admin/pools`: the operator's view of the browser pools, per country, and of the global browser budget;
 * `POST /admin/pools/{country}/config` and `POST /admin/browser-budget` override their settings at run time;
 * `POST /admin/pools/prepared-pages/discard` makes every session's next scrape start from a fresh page.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { requireAdminToken } from "./admin-token";
import { browserBudgetStub } from "../browser/browser-budget";
import { browserPoolStub } from "../browser/browser-pool";
import { listPoolCountries } from "../browser/pool-directory";
import type { PoolConfig } from "../browser/pool-config";
import type { BudgetStats, PoolStats } from "../browser/pool-types";
import { InvalidParameterError } from "../errors";
import { ISO_COUNTRY_CODES } from "../params/countries";
import type { AppEnv } from "./app-env";
import { isoTimestamp } from "../util/time";
import { strictBody } from "./json-body";
import { errorResponse } from "./openapi-errors";

const PoolSessionSchema = z.object({
  session_id: z.string(),
  provider: z.string(),
  busy: z.boolean(),
  domains: z.array(z.string()),
  launched_at: z.string(),
  uses: z.number().int(),
  account_id: z.string().nullable().openapi({ description: "The account holding a busy session" }),
  lease_expires_at: z.string().nullable().openapi({ description: "When the pool's alarm reclaims a busy session not handed back" }),
});

const PoolStatsSchema = z
  .object({
    country: z.string(),
    size_limit: z.number().int().openapi({ description: "Sessions per provider" }),
    max_sessions: z.number().int().openapi({ description: "Sessions in the country, all providers together" }),
    queue_limit: z.number().int(),
    sessions: z.array(PoolSessionSchema),
    busy: z.number().int(),
    idle: z.number().int(),
    queue_length: z.number().int(),
    queue_by_account: z.record(z.string(), z.number().int()).openapi({ description: "Waiting scrapes per account" }),
    launches: z.number().int(),
    reuses: z.number().int(),
    failures: z.number().int(),
    discarded: z.number().int(),
    reclaimed: z.number().int().openapi({ description: "Leases not handed back in time, reclaimed by the pool's alarm" }),
    gone: z.number().int().openapi({
      description:
        "Stored sessions Browser Rendering no longer had (expired, or from a previous local run), dropped before any scrape connected to them",
    }),
    rejected_queue_full: z.number().int(),
    displaced: z.number().int().openapi({ description: "Waiters that gave their place to an account with fewer waiting" }),
    rejected_warming_up: z.number().int(),
    rejected_at_capacity: z.number().int().openapi({ description: "Launches refused by the global browser budget" }),
  })
  .openapi("PoolStats");

const BudgetStatsSchema = z
  .object({
    max_sessions: z.number().int().openapi({ description: "Browser sessions of the whole service, every country together" }),
    in_use: z.number().int(),
    sessions_by_country: z.record(z.string(), z.number().int()),
    launches_in_progress: z.number().int(),
    granted: z.number().int(),
    evictions: z.number().int().openapi({ description: "Idle sessions retired in one country to make room in another" }),
    refusals: z.number().int().openapi({ description: "Launches refused: every session everywhere was busy" }),
  })
  .openapi("BrowserBudget");

const route = createRoute({
  method: "get",
  path: "/admin/pools",
  tags: ["Operator"],
  summary: "Browser pools per country",
  description:
    "Sessions (busy/idle), wait queue, and launches, reuses and failures since the pool started. `country` limits the view to one pool.",
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken] as const,
  request: {
    query: z.object({
      country: z.string().optional().openapi({ description: "ISO 3166-1 alpha-2; default: every country that has used its pool" }),
    }),
  },
  responses: {
    200: {
      description: "Pool statistics and the global browser budget",
      content: { "application/json": { schema: z.object({ pools: z.array(PoolStatsSchema), budget: BudgetStatsSchema }) } },
    },
    401: errorResponse("Missing or invalid admin token"),
  },
});

/** A setting given as `null` drops its override, so that setting is back to the wrangler.toml value. */
const PoolOverridesSchema = strictBody({
  size: z.number().int().min(1).max(50).nullable().optional(),
  max_sessions: z.number().int().min(1).max(200).nullable().optional(),
  queue_limit: z.number().int().min(0).max(1000).nullable().optional(),
  keep_alive_ms: z.number().int().min(10_000).max(600_000).nullable().optional(),
  launches_per_minute: z.number().int().min(0).max(1000).nullable().optional(),
})
  .nullable()
  .openapi("PoolOverrides");

const configureRoute = createRoute({
  method: "post",
  path: "/admin/pools/{country}/config",
  tags: ["Operator"],
  summary: "Override one country's pool settings",
  description:
    'For example `{"launches_per_minute": 0}` stops new browser sessions in that country while warm ones keep serving. ' +
    '`null` restores the wrangler.toml values; a single setting given as `null` (`{"size": null}`) restores that one.',
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken] as const,
  request: {
    params: z.object({ country: z.string().length(2) }),
    body: { content: { "application/json": { schema: PoolOverridesSchema } }, required: true },
  },
  responses: {
    200: {
      description: "The settings now in force",
      content: {
        "application/json": {
          schema: z.object({
            size: z.number(),
            max_sessions: z.number(),
            queue_limit: z.number(),
            keep_alive_ms: z.number(),
            launches_per_minute: z.number(),
          }),
        },
      },
    },
    400: errorResponse("Invalid country or settings"),
    401: errorResponse("Missing or invalid admin token"),
  },
});

const budgetRoute = createRoute({
  method: "post",
  path: "/admin/browser-budget",
  tags: ["Operator"],
  summary: "Override the global browser budget",
  description:
    '`{"max_sessions": n}` caps the browser sessions of every country together (`null` restores BROWSER_GLOBAL_MAX_SESSIONS). ' +
    "At the cap, a launch retires an idle session elsewhere; when every session is busy it is refused with 503 and Retry-After.",
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken] as const,
  request: {
    body: {
      content: { "application/json": { schema: strictBody({ max_sessions: z.number().int().min(1).max(1000).nullable() }) } },
      required: true,
    },
  },
  responses: {
    200: { description: "The budget now in force", content: { "application/json": { schema: BudgetStatsSchema } } },
    400: errorResponse("Invalid settings"),
    401: errorResponse("Missing or invalid admin token"),
  },
});

const discardPreparedRoute = createRoute({
  method: "post",
  path: "/admin/pools/prepared-pages/discard",
  tags: ["Operator"],
  summary: "Discard the prepared (hot) pages",
  description:
    "Every pooled session keeps the next scrape's page ready, already on the provider's landing page (up to 2 minutes old). " +
    "After a provider changed its site, this makes the next scrape of every session start from a fresh page instead. " +
    "`country` limits it to one pool; default: every country that has used its pool.",
  security: [{ AdminToken: [] }],
  middleware: [requireAdminToken] as const,
  request: {
    query: z.object({ country: z.string().optional().openapi({ description: "ISO 3166-1 alpha-2" }) }),
  },
  responses: {
    200: {
      description: "The pools whose prepared pages were discarded",
      content: {
        "application/json": {
          schema: z.object({
            countries: z.array(z.string()),
            prepared_before: z.string().openapi({ description: "Pages prepared before this are not used" }),
          }),
        },
      },
    },
    400: errorResponse("Invalid country"),
    401: errorResponse("Missing or invalid admin token"),
  },
});

export function registerAdminPoolRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(discardPreparedRoute, async (c) => {
    const requested = c.req.valid("query").country?.toUpperCase();
    if (requested !== undefined && !ISO_COUNTRY_CODES.has(requested))
      throw new InvalidParameterError(`country: ${requested} is not an assigned ISO 3166-1 alpha-2 country code`);
    const countries =
      requested !== undefined ? [requested] : (await listPoolCountries(c.env.DB)).filter((country) => ISO_COUNTRY_CODES.has(country));
    const thresholds = await Promise.all(countries.map((country) => browserPoolStub(c.env, country).discardPreparedPages()));
    return c.json({ countries, prepared_before: isoTimestamp(Math.min(Date.now(), ...thresholds)) }, 200);
  });
  app.openapi(budgetRoute, async (c) => {
    const budget = browserBudgetStub(c.env);
    await budget.configure(c.req.valid("json").max_sessions);
    const stats: BudgetStats = await budget.stats();
    return c.json(stats, 200);
  });
  app.openapi(configureRoute, async (c) => {
    const country = c.req.valid("param").country.toUpperCase();
    if (!ISO_COUNTRY_CODES.has(country))
      throw new InvalidParameterError(`country: ${country} is not an assigned ISO 3166-1 alpha-2 country code`);
    const body = c.req.valid("json");
    const overrides =
      body === null
        ? null
        : Object.fromEntries(
            Object.entries({
              size: body.size,
              maxSessions: body.max_sessions,
              queueLimit: body.queue_limit,
              keepAliveMs: body.keep_alive_ms,
              launchesPerMinute: body.launches_per_minute,
            }).filter(([, value]) => value !== undefined),
          );
    const config = (await browserPoolStub(c.env, country).configure(overrides)) as PoolConfig;
    return c.json(
      {
        size: config.size,
        max_sessions: config.maxSessions,
        queue_limit: config.queueLimit,
        keep_alive_ms: config.keepAliveMs,
        launches_per_minute: config.launchesPerMinute,
      },
      200,
    );
  });
  app.openapi(route, async (c) => {
    const requested = c.req.valid("query").country?.toUpperCase();
    const countries = requested !== undefined ? [requested] : await listPoolCountries(c.env.DB);
    const pools = await Promise.all(
      countries
        .filter((country) => ISO_COUNTRY_CODES.has(country))
        .map(async (country) => (await browserPoolStub(c.env, country).stats()) as PoolStats),
    );
    const budget: BudgetStats = await browserBudgetStub(c.env).stats();
    return c.json({ pools: pools.map((pool, index) => ({ ...pool, country: pool.country || (countries[index] ?? "") })), budget }, 200);
  });
}
