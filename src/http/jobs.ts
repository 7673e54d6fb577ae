/** `POST /scrapers/{scraper}/jobs` and `GET /jobs/{job_id}`. */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { pickApiKey } from "../auth/api-keys";
import { NotFoundError } from "../errors";
import { jobStub } from "../jobs/job-record";
import { submitJob } from "../jobs/submit";
import { SCRAPER_IDS, type AnyScrapeParams, type ScraperId } from "../params/scrape-params";
import { CREDITS_REMAINING_HEADER, scrapeQuerySchema, scrapeValidationHook } from "./scrape-query";
import { JobStatusSchema, JobSubmittedSchema } from "../schemas/responses";
import type { AppEnv } from "./app-env";
import { API_KEY_SECURITY, SCRAPE_ERROR_RESPONSES, errorResponse } from "./openapi-errors";
import { requestBaseUrl } from "./request-context";

export const JOB_NOT_FOUND_DETAIL = "Job not found. It may have expired (jobs are retained for 24 hours) or the ID is invalid.";
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function registerSubmitRoute(app: OpenAPIHono<AppEnv>, scraper: ScraperId): void {
  const { 408: _noTimeoutOnSubmit, ...errors } = SCRAPE_ERROR_RESPONSES;
  const route = createRoute({
    method: "post",
    path: `/scrapers/${scraper}/jobs`,
    tags: ["Jobs"],
    summary: `Submit an asynchronous ${scraper} job`,
    description:
      "Same query parameters as the synchronous endpoint; `timeout` applies per attempt. 3 credits are charged at submission " +
      "and restored if every attempt (up to 4) fails. Poll GET /jobs/{job_id} every few seconds.",
    security: API_KEY_SECURITY,
    request: { query: scrapeQuerySchema(scraper) },
    responses: {
      202: {
        description: "Accepted; the job is pending",
        headers: CREDITS_REMAINING_HEADER,
        content: { "application/json": { schema: JobSubmittedSchema } },
      },
      ...errors,
    },
  });
  app.openapi(
    route,
    async (c) => {
      const params: AnyScrapeParams = c.req.valid("query");
      const { jobId, creditsRemaining } = await submitJob(
        c.env,
        { scraper, params, baseUrl: requestBaseUrl(c) },
        pickApiKey(c.req.header("X-API-Key"), params.api_key),
      );
      c.header("X-Credits-Remaining", String(creditsRemaining));
      return c.json({ job_id: jobId, status: "pending" as const }, 202);
    },
    scrapeValidationHook(scraper),
  );
}

const statusRoute = createRoute({
  method: "get",
  path: "/jobs/{job_id}",
  tags: ["Jobs"],
  summary: "Get a job's status and result",
  description: "No authentication. Poll every ~3 seconds until `status` is `done` or `failed`. Jobs are kept 24 hours.",
  request: { params: z.object({ job_id: z.string() }) },
  responses: {
    200: { description: "The job", content: { "application/json": { schema: JobStatusSchema } } },
    404: errorResponse("Unknown, malformed or expired job id"),
  },
});

export function registerJobRoutes(app: OpenAPIHono<AppEnv>): void {
  for (const scraper of SCRAPER_IDS) registerSubmitRoute(app, scraper);
  app.openapi(statusRoute, async (c) => {
    const jobId = c.req.valid("param").job_id.toLowerCase();
    if (!UUID_PATTERN.test(jobId)) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    const view = await jobStub(c.env, jobId).view();
    if (view === null) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    return c.json(view, 200) as never;
  });
}
