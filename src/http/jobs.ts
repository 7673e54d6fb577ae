/** `GET /jobs/{job_id}` (job submission is registered with each scraper's routes). */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { NotFoundError } from "../errors";
import { jobStub } from "../jobs/job-record";
import { JobStatusSchema } from "../schemas/responses";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./openapi-errors";

export const JOB_NOT_FOUND_DETAIL = "Job not found. It may have expired (jobs are retained for 24 hours) or the ID is invalid.";
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  app.openapi(statusRoute, async (c) => {
    const jobId = c.req.valid("param").job_id.toLowerCase();
    if (!UUID_PATTERN.test(jobId)) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    const view = await jobStub(c.env, jobId).view();
    if (view === null) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    return c.json(view, 200) as never;
  });
}
