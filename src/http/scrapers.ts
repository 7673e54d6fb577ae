/**
 * `GET /scrapers/{scraper}` and `POST /scrapers/{scraper}/jobs` for every provider: HTTP in, the sync pipeline or the
 * job submission, HTTP out. Both are derived from the provider's declarations (parameters, response schema) and
 * documented in the OpenAPI document from the same schemas.
 */
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { MethodNotAllowedError, NotFoundError } from "../errors";
import { EVIDENCE_HEADER, parseEvidenceHeader } from "../evidence/evidence-kinds";
import { IDEMPOTENCY_HEADER } from "../jobs/idempotency";
import { submitJob } from "../jobs/submit";
import { scrapeSynchronously } from "../pipeline/sync-scrape";
import { JobSubmittedSchema } from "../schemas/responses";
import { type AnyProvider, allProviders, isScraperId, querySchemaOf, responseSchemaOf, SCRAPER_IDS } from "../scrapers/registry";
import type { AppEnv } from "./app-env";
import type { Context } from "hono";
import { API_KEY_SECURITY, SCRAPE_ERROR_RESPONSES } from "./openapi-errors";
import { requestBaseUrl, requestOrigin } from "./request-context";
import { apiKeyAuth } from "./api-key-auth";
import { EVIDENCE_REQUEST_HEADERS } from "./evidence";
import { IDEMPOTENCY_CONFLICT_RESPONSE, IDEMPOTENCY_KEY_HEADERS } from "./jobs";
import { CREDITS_REMAINING_HEADER, validateScrapeQuery } from "./scrape-query";

const noop = (): void => undefined;

export const UNKNOWN_SCRAPER_DETAIL = `Unknown scraper. Valid scrapers: ${SCRAPER_IDS.join(", ")}.`;

function registerSyncRoute(app: OpenAPIHono<AppEnv>, provider: AnyProvider): void {
  const path = `/scrapers/${provider.id}`;
  app.openAPIRegistry.registerPath(
    createRoute({
      method: "get",
      path,
      tags: [provider.name],
      summary: `Ask ${provider.name} and wait for the answer`,
      description:
        `${provider.summary}\n\nBlocks until the provider answers or \`timeout\` seconds pass (a \`408\`). Costs 3 credits, ` +
        "charged only on a `200`; a cached answer (`cached: true`) is charged too. For long prompts or many requests, submit a job instead.",
      security: API_KEY_SECURITY,
      request: { query: querySchemaOf(provider), headers: EVIDENCE_REQUEST_HEADERS },
      responses: {
        200: {
          description: "The complete reply",
          headers: CREDITS_REMAINING_HEADER,
          content: { "application/json": { schema: responseSchemaOf(provider) } },
        },
        ...SCRAPE_ERROR_RESPONSES,
      },
    }),
  );
  app.get(path, validateScrapeQuery(provider), apiKeyAuth, async (c) => {
    const params = c.get("scrapeParams");
    const evidenceAsked = parseEvidenceHeader(c.req.header(EVIDENCE_HEADER));
    const outcome = scrapeSynchronously(
      c.env,
      {
        scraper: provider.id,
        params,
        jobId: crypto.randomUUID(),
        baseUrl: requestBaseUrl(c),
        startedAt: c.get("startedAt"),
        abandoned: c.req.raw.signal,
        afterResponse: (work) => c.executionCtx.waitUntil(work),
        evidenceAsked,
      },
      c.get("apiKey"),
      requestOrigin(c, "api"),
    );
    // A client that disconnects cancels this handler: the scrape must still stop and restore the credits.
    c.executionCtx.waitUntil(outcome.then(noop, noop));
    const { response, creditsRemaining } = await outcome;
    c.header("X-Credits-Remaining", String(creditsRemaining));
    return c.json(response, 200);
  });
}

function registerSubmitRoute(app: OpenAPIHono<AppEnv>, provider: AnyProvider): void {
  const path = `/scrapers/${provider.id}/jobs`;
  const { 408: _noTimeoutOnSubmit, ...errors } = SCRAPE_ERROR_RESPONSES;
  app.openAPIRegistry.registerPath(
    createRoute({
      method: "post",
      path,
      tags: [provider.name],
      summary: `Ask ${provider.name} as an asynchronous job`,
      description:
        "Same query parameters as the synchronous endpoint; `timeout` applies per attempt. Answers `202` with a `job_id` at once. " +
        "3 credits are charged at submission and restored if every attempt (up to 4) fails. Poll `GET /jobs/{job_id}` every few " +
        "seconds until `status` is `done` or `failed`.",
      security: API_KEY_SECURITY,
      request: { query: querySchemaOf(provider), headers: IDEMPOTENCY_KEY_HEADERS.merge(EVIDENCE_REQUEST_HEADERS) },
      responses: {
        202: {
          description: "Accepted; the job is pending",
          headers: CREDITS_REMAINING_HEADER,
          content: { "application/json": { schema: JobSubmittedSchema } },
        },
        ...errors,
        ...IDEMPOTENCY_CONFLICT_RESPONSE,
      },
    }),
  );
  app.post(path, validateScrapeQuery(provider), apiKeyAuth, async (c) => {
    const params = c.get("scrapeParams");
    const evidenceAsked = parseEvidenceHeader(c.req.header(EVIDENCE_HEADER));
    const { jobId, creditsRemaining, replayed } = await submitJob(
      c.env,
      { scraper: provider.id, params, baseUrl: requestBaseUrl(c), idempotencyKey: c.req.header(IDEMPOTENCY_HEADER), evidenceAsked },
      c.get("apiKey"),
      requestOrigin(c, "api"),
    );
    c.header("X-Credits-Remaining", String(creditsRemaining));
    if (replayed === true) c.header("Idempotent-Replayed", "true");
    return c.json({ job_id: jobId, status: "pending" as const }, 202);
  });
}

export function registerScraperRoutes(app: OpenAPIHono<AppEnv>): void {
  for (const provider of allProviders()) {
    registerSyncRoute(app, provider);
    registerSubmitRoute(app, provider);
  }
}

/**
 * Registered after every real route: a known scraper with another method is 405 with `Allow`; every other
 * `/scrapers/...` path names an unknown scraper (404 listing the valid ids). `allowedMethods` is
 * src/http/allowed-methods.ts's lookup, passed in by the entry: that module reads the OpenAPI document, which is built
 * from the declarations in this one, so importing it here would make a cycle.
 */
export function registerUnknownScraperRoutes(
  app: OpenAPIHono<AppEnv>,
  allowedMethods: (path: string, origin: string) => string[] | null,
): void {
  const refuse = (c: Context<AppEnv>): never => {
    const allow = isScraperId(c.req.param("scraper") ?? "") ? allowedMethods(c.req.path, new URL(c.req.url).origin) : null;
    if (allow !== null) throw new MethodNotAllowedError(allow);
    throw new NotFoundError(UNKNOWN_SCRAPER_DETAIL);
  };
  app.all("/scrapers/:scraper/jobs", refuse);
  // before the wildcard: Hono's `/scrapers/:scraper/*` also matches `/scrapers/grok` itself
  app.all("/scrapers/:scraper", refuse);
  app.all("/scrapers/:scraper/*", () => {
    throw new NotFoundError(UNKNOWN_SCRAPER_DETAIL);
  });
}
