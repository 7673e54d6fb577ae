/** `GET /scrapers/{scraper}`: HTTP in, the sync pipeline, HTTP out. */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { pickApiKey } from "../auth/api-keys";
import { NotFoundError } from "../errors";
import { SCRAPER_IDS, type AnyScrapeParams, type ScraperId } from "../params/scrape-params";
import { CREDITS_REMAINING_HEADER, scrapeQuerySchema, scrapeValidationHook } from "./scrape-query";
import { scrapeSynchronously } from "../scrape/sync-scrape";
import { SCRAPE_RESPONSE_SCHEMAS } from "../schemas/scrape-response-schemas";
import type { AppEnv } from "./app-env";
import { API_KEY_SECURITY, SCRAPE_ERROR_RESPONSES } from "./openapi-errors";
import { requestBaseUrl } from "./request-context";

type ResponseTypingSchema = (typeof SCRAPE_RESPONSE_SCHEMAS)["grok"];

export const UNKNOWN_SCRAPER_DETAIL = `Unknown scraper. Valid scrapers: ${SCRAPER_IDS.join(", ")}.`;

function registerSyncRoute(app: OpenAPIHono<AppEnv>, scraper: ScraperId): void {
  const route = createRoute({
    method: "get",
    path: `/scrapers/${scraper}`,
    tags: ["Scrapers"],
    summary: `Scrape ${scraper} synchronously`,
    description: "Blocks until the provider answers or `timeout` passes. Costs 3 credits, charged only on a 200.",
    security: API_KEY_SECURITY,
    request: { query: scrapeQuerySchema(scraper) },
    responses: {
      200: {
        description: "The complete reply",
        headers: CREDITS_REMAINING_HEADER,
        content: { "application/json": { schema: SCRAPE_RESPONSE_SCHEMAS[scraper] as ResponseTypingSchema } },
      },
      ...SCRAPE_ERROR_RESPONSES,
    },
  });
  app.openapi(
    route,
    async (c) => {
      const params: AnyScrapeParams = c.req.valid("query");
      const { response, creditsRemaining } = await scrapeSynchronously(
        c.env,
        { scraper, params, jobId: crypto.randomUUID(), baseUrl: requestBaseUrl(c), startedAt: c.get("startedAt") },
        pickApiKey(c.req.header("X-API-Key"), params.api_key),
      );
      c.header("X-Credits-Remaining", String(creditsRemaining));
      return c.json(response, 200) as never;
    },
    scrapeValidationHook(scraper),
  );
}

export function registerScraperRoutes(app: OpenAPIHono<AppEnv>): void {
  for (const scraper of SCRAPER_IDS) registerSyncRoute(app, scraper);
}

/** Registered after every real route: every other `/scrapers/...` path names an unknown scraper. */
export function registerUnknownScraperRoutes(app: OpenAPIHono<AppEnv>): void {
  app.all("/scrapers/:scraper/*", () => {
    throw new NotFoundError(UNKNOWN_SCRAPER_DETAIL);
  });
  app.all("/scrapers/:scraper", () => {
    throw new NotFoundError(UNKNOWN_SCRAPER_DETAIL);
  });
}
