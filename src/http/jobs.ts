/**
 * `GET /jobs/{job_id}` (public, spec §4.5) and `GET /jobs` (the caller's own jobs, newest first, cursor-paginated).
 * Job submission is registered with each scraper's routes; the Idempotency-Key documentation shared by both submission
 * endpoints lives here.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { integerQueryParam } from "../params/integer-param";
import { InvalidParameterError, NotFoundError } from "../errors";
import { IDEMPOTENCY_HEADER } from "../jobs/idempotency";
import { decodeJobCursor, encodeJobCursor, indexedJobAccount, listJobs } from "../jobs/jobs-table";
import { jobStub } from "../jobs/job-record";
import { JobStatusSchema } from "../schemas/responses";
import { SCRAPER_IDS } from "../scrapers/registry";
import { isoTimestamp } from "../util/time";
import { apiKeyAuth } from "./api-key-auth";
import type { AppEnv } from "./app-env";
import { API_KEY_SECURITY, LIMITER_UNAVAILABLE_RESPONSE, errorResponse } from "./openapi-errors";
import { isUuid } from "../util/uuid";

export const JOB_NOT_FOUND_DETAIL = "Job not found. It may have expired (jobs are retained for 24 hours) or the ID is invalid.";
export const INVALID_CURSOR_DETAIL = "cursor: is not a cursor returned by GET /jobs";
const DEFAULT_PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 100;

/** The optional `Idempotency-Key` request header of `POST /scrapers/{scraper}/jobs` and `POST /batches`. */
export const IDEMPOTENCY_KEY_HEADERS = z.object({
  "Idempotency-Key": z
    .string()
    .optional()
    .openapi({
      param: { name: IDEMPOTENCY_HEADER, in: "header" },
      description:
        "Optional, 1 to 255 printable ASCII characters (a UUID is a good choice). The same key with the same parameters within " +
        "24 hours answers the same job (or batch) and charges nothing more, also when the duplicates arrive at the same time; " +
        "the same key with other parameters is a 409. Keys belong to the account, whichever of its API keys sends them.",
      example: "4f1c2a9e-7d3b-4c1a-9a55-0b8e2f6d1c3a",
    }),
});

export const IDEMPOTENCY_CONFLICT_RESPONSE = {
  409: errorResponse("The Idempotency-Key was used with different parameters, or its first request is still being processed"),
};

const statusRoute = createRoute({
  method: "get",
  path: "/jobs/{job_id}",
  tags: ["Jobs"],
  summary: "Get a job's status and result",
  description: "No authentication. Poll every ~3 seconds until `status` is `done` or `failed`. Jobs are kept 24 hours.",
  request: {
    params: z.object({
      job_id: z.string().openapi({ description: "The `job_id` the submission answered", example: "9a1f3c2e-4b5d-4e6f-8a7b-0c1d2e3f4a5b" }),
    }),
  },
  responses: {
    200: { description: "The job", content: { "application/json": { schema: JobStatusSchema } } },
    404: errorResponse("Unknown, malformed or expired job id"),
  },
});

const pageSize = integerQueryParam({
  name: "limit",
  min: 1,
  max: MAX_PAGE_SIZE,
  defaultValue: DEFAULT_PAGE_SIZE,
  description: "Jobs per page",
});

const ListJobsQuery = z.strictObject({
  status: z
    .enum(["pending", "done", "failed"], { error: "must be one of pending, done, failed" })
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "Only jobs in this status" }),
  scraper: z
    .enum(SCRAPER_IDS, { error: `must be one of ${SCRAPER_IDS.join(", ")}` })
    .optional()
    .openapi({ param: { name: "scraper", in: "query" }, description: "Only jobs of this scraper" }),
  limit: pageSize,
  cursor: z
    .string()
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "`next_cursor` of the previous page; omit for the first page" }),
  api_key: z
    .string()
    .optional()
    .openapi({ param: { name: "api_key", in: "query" }, description: "Alternative to the X-API-Key header" }),
});

const JobListSchema = z
  .object({
    jobs: z.array(
      z.object({
        job_id: z.string().openapi({ format: "uuid" }),
        status: z.enum(["pending", "done", "failed"]),
        scraper: z.string(),
        batch_id: z.string().nullable().openapi({ description: "The batch the job was submitted in, if any" }),
        created_at: z.string().openapi({ format: "date-time" }),
        completed_at: z.string().nullable().openapi({ format: "date-time", description: "null while pending" }),
      }),
    ),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page" }),
  })
  .openapi("JobList");

const listRoute = createRoute({
  method: "get",
  path: "/jobs",
  operationId: "listJobs",
  tags: ["Jobs"],
  summary: "List your jobs",
  description:
    "The asynchronous jobs of the key's account (any of its keys), newest first, within their 24-hour retention. Filter by " +
    "`status` and `scraper`; page with `limit` and the opaque `next_cursor`. Results are fetched per job with GET /jobs/{job_id}. " +
    "Free; counts towards the key's rate limit.",
  security: API_KEY_SECURITY,
  middleware: [apiKeyAuth] as const,
  request: { query: ListJobsQuery },
  responses: {
    200: { description: "A page of jobs", content: { "application/json": { schema: JobListSchema } } },
    400: errorResponse("Invalid filter, limit or cursor"),
    401: errorResponse("API key missing, invalid or revoked"),
    429: errorResponse("Per-key rate limit (see Retry-After)"),
    ...LIMITER_UNAVAILABLE_RESPONSE,
  },
});

export function registerJobRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(statusRoute, async (c) => {
    const jobId = c.req.valid("param").job_id.toLowerCase();
    if (!isUuid(jobId)) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    // Unauthenticated: an id never submitted must not wake (and so create) a Durable Object; D1 says which ids exist.
    if ((await indexedJobAccount(c.env.DB, jobId)) === null) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    const view = await jobStub(c.env, jobId).view();
    if (view === null) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    return c.json(view, 200) as never;
  });

  app.openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const after = query.cursor === undefined ? undefined : (decodeJobCursor(query.cursor) ?? undefined);
    if (query.cursor !== undefined && after === undefined) throw new InvalidParameterError(INVALID_CURSOR_DETAIL);
    const { jobs, next } = await listJobs(c.env.DB, {
      accountId: c.get("apiKey").accountId,
      status: query.status,
      scraper: query.scraper,
      limit: query.limit,
      after,
    });
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        jobs: jobs.map((job) => ({
          job_id: job.jobId,
          status: job.status,
          scraper: job.scraper,
          batch_id: job.batchId,
          created_at: isoTimestamp(Date.parse(job.createdAt)),
          completed_at: job.completedAt === null ? null : isoTimestamp(Date.parse(job.completedAt)),
        })),
        next_cursor: next === null ? null : encodeJobCursor(next),
      },
      200,
    );
  });
}
