/**
 * `POST /batches` (up to 500 jobs of one scraper in one request, charged all or nothing, optionally with their own
 * webhook URL and an Idempotency-Key) and `GET /batches/{batch_id}` (the caller's own batch: counts per status and
 * every job). Routes only translate HTTP: validation is src/jobs/batch-request.ts, submission src/jobs/submit-batch.ts.
 */
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { InvalidParameterError, NotFoundError, ServiceError } from "../errors";
import { MAX_BATCH_ITEMS, type BatchRequest, parseBatchRequest } from "../jobs/batch-request";
import { findAccountBatch } from "../jobs/batch-store";
import { IDEMPOTENCY_HEADER } from "../jobs/idempotency";
import { batchJobStatuses } from "../jobs/jobs-table";
import type { JobStatus } from "../jobs/job-types";
import { submitBatch } from "../jobs/submit-batch";
import { requireProvider } from "../pipeline/pipeline";
import { SCRAPER_IDS } from "../scrapers/registry";
import { isoTimestamp } from "../util/time";
import { ensureWebhookEndpoint } from "../webhooks/endpoints";
import { webhookSettings } from "../webhooks/settings";
import { checkWebhookUrl } from "../webhooks/url-policy";
import { apiKeyAuth } from "./api-key-auth";
import type { AppEnv } from "./app-env";
import { BODY_CAPS, payloadTooLargeDetail } from "./body-limit";
import { requireJsonContentType } from "./json-body";
import { IDEMPOTENCY_CONFLICT_RESPONSE, IDEMPOTENCY_KEY_HEADERS } from "./jobs";
import { API_KEY_SECURITY, SCRAPE_ERROR_RESPONSES, LIMITER_UNAVAILABLE_RESPONSE, errorResponse } from "./openapi-errors";
import { requestBaseUrl, requestOrigin } from "./request-context";
import { CREDITS_REMAINING_HEADER } from "./scrape-query";
import { isUuid } from "../util/uuid";

export const BATCH_NOT_FOUND_DETAIL = "Batch not found. It may have expired (batches are retained for 24 hours) or the ID is invalid.";

const ItemSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).openapi("BatchItem", {
  description:
    "One job's parameters, exactly those of the scraper's query string (`prompt` required; `country`, `bypass_cache`, `timeout` and " +
    "the scraper's own, such as grok's `mode`). Values are strings as in a query; numbers and booleans are accepted and read as " +
    "their string form. `api_key` is not accepted here. Besides them, `evidence`: the evidence this job keeps, as the `X-Evidence` " +
    'header takes it (`["screenshot", "html", "stream"]` or `"screenshot,html"`, `"none"` to turn the account\'s default off).',
  example: { prompt: "What are people saying about Starship?", country: "US", mode: "MODEL_MODE_FAST", evidence: ["screenshot"] },
});

const BatchBodySchema = z
  .object({
    scraper: z.enum(SCRAPER_IDS).openapi({ description: "The scraper every item runs on", example: "grok" }),
    items: z
      .array(ItemSchema)
      .min(1)
      .max(MAX_BATCH_ITEMS)
      .openapi({ description: `1 to ${MAX_BATCH_ITEMS} jobs` }),
    webhook_url: z
      .string()
      .optional()
      .openapi({
        format: "uri",
        description:
          "Where each job's final status is delivered (Standard Webhooks, signed with the account's secret), instead of the account's " +
          "endpoint. https only, on port 443 or 8443, and it must not resolve to a private, loopback, link-local or reserved address.",
        example: "https://hooks.example.com/scraper",
      }),
  })
  .openapi("BatchRequest");

const BatchSubmittedSchema = z
  .object({
    batch_id: z.string().openapi({ format: "uuid" }),
    job_ids: z.array(z.string().openapi({ format: "uuid" })).openapi({ description: "One job per item, in item order" }),
    status: z.literal("pending"),
  })
  .openapi("BatchSubmitted");

const StatusCountsSchema = z.object({ pending: z.number().int(), done: z.number().int(), failed: z.number().int() });

const BatchStatusSchema = z
  .object({
    batch_id: z.string().openapi({ format: "uuid" }),
    scraper: z.string(),
    status: z.enum(["pending", "done"]).openapi({ description: "`done` once every job is done or failed" }),
    created_at: z.string().openapi({ format: "date-time" }),
    webhook_url: z.string().nullable(),
    total: z.number().int(),
    counts: StatusCountsSchema.openapi({ description: "Jobs per status" }),
    jobs: z
      .array(z.object({ job_id: z.string().openapi({ format: "uuid" }), status: z.enum(["pending", "done", "failed"]) }))
      .openapi({ description: "Every job, in item order; fetch results with GET /jobs/{job_id}" }),
  })
  .openapi("BatchStatus");

const apiKeyQuery = z.object({
  api_key: z
    .string()
    .optional()
    .openapi({ param: { name: "api_key", in: "query" }, description: "Alternative to the X-API-Key header" }),
});

const { 404: _noUnknownScraper, 408: _noTimeoutOnSubmit, ...submitErrors } = SCRAPE_ERROR_RESPONSES;

const submitRoute = createRoute({
  method: "post",
  path: "/batches",
  operationId: "submitBatch",
  tags: ["Batches"],
  summary: "Submit a batch of jobs",
  description:
    `1 to ${MAX_BATCH_ITEMS} jobs of one scraper, each validated exactly like that scraper's query parameters; the first invalid ` +
    "item is a 400 naming its index and parameter (`items[3].country: …`) and nothing is charged. 3 credits per item are charged " +
    "at once for the whole batch, or nothing is (429). Each job then runs, retries and is refunded like a single job; poll " +
    "GET /batches/{batch_id} or GET /jobs/{job_id}, or receive each final status at `webhook_url` (or the account's endpoint).",
  security: API_KEY_SECURITY,
  request: {
    query: apiKeyQuery,
    headers: IDEMPOTENCY_KEY_HEADERS,
    body: { required: true, content: { "application/json": { schema: BatchBodySchema } } },
  },
  responses: {
    202: {
      description: "Accepted; every job is pending",
      headers: CREDITS_REMAINING_HEADER,
      content: { "application/json": { schema: BatchSubmittedSchema } },
    },
    ...submitErrors,
    ...IDEMPOTENCY_CONFLICT_RESPONSE,
    413: errorResponse(`The body is over the batch cap (\`payload_too_large\`): ${payloadTooLargeDetail(BODY_CAPS.batch)}`),
  },
});

const statusRoute = createRoute({
  method: "get",
  path: "/batches/{batch_id}",
  operationId: "getBatch",
  tags: ["Batches"],
  summary: "A batch's progress",
  description: "Your own batches only (any key of the account). Counts per status and every job's id and status. Kept 24 hours.",
  security: API_KEY_SECURITY,
  middleware: [apiKeyAuth] as const,
  request: {
    params: z.object({
      batch_id: z
        .string()
        .openapi({ description: "The `batch_id` the submission answered", example: "4c7e2a1b-9d3f-4e5a-8b6c-7d8e9f0a1b2c" }),
    }),
    query: apiKeyQuery,
  },
  responses: {
    200: { description: "The batch", content: { "application/json": { schema: BatchStatusSchema } } },
    401: errorResponse("API key missing, invalid or revoked"),
    404: errorResponse("Unknown, expired or another account's batch"),
    429: errorResponse("Per-key rate limit (see Retry-After)"),
    ...LIMITER_UNAVAILABLE_RESPONSE,
  },
});

/** Validated bodies, by request, from the validation middleware to the handler. */
const validatedBodies = new WeakMap<Request, BatchRequest>();

/**
 * Reads and validates the body (and refuses query parameters other than `api_key`). It runs after apiKeyAuth, which
 * has checked the key and the body's size (./body-limit.ts): an anonymous or oversized body is never parsed.
 */
const validateBatchBody = createMiddleware<AppEnv>(async (c, next) => {
  const extra = Object.keys(c.req.queries()).filter((name) => name !== "api_key");
  if (extra.length > 0) {
    throw new InvalidParameterError(`Unknown query parameter: ${extra.join(", ")}. A batch's parameters go in the JSON body.`);
  }
  requireJsonContentType(c.req.header("Content-Type"));
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    throw new InvalidParameterError('Request body: must be a JSON object {"scraper", "items", "webhook_url"?}', "malformed_json");
  }
  validatedBodies.set(c.req.raw, parseBatchRequest(body, webhookSettings(c.env)));
  await next();
});

/** The full URL check (DNS included), made once the caller is authenticated so it is no anonymous resolver. */
async function checkBatchWebhookUrl(env: Env, url: string): Promise<void> {
  const verdict = await checkWebhookUrl(url, webhookSettings(env));
  if (verdict.ok) return;
  const detail = `webhook_url: ${verdict.reason}`;
  throw verdict.temporary
    ? new ServiceError(503, detail, { code: "service_unavailable", retryable: true, retryAfterSeconds: 5 })
    : new InvalidParameterError(detail);
}

export function registerBatchRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerPath(submitRoute);
  app.post("/batches", apiKeyAuth, validateBatchBody, async (c) => {
    const request = validatedBodies.get(c.req.raw);
    if (request === undefined) throw new Error("POST /batches reached its handler without a validated body");
    const key = c.get("apiKey");
    requireProvider(request.scraper);
    if (request.webhookUrl !== null) {
      await checkBatchWebhookUrl(c.env, request.webhookUrl);
      // The deliveries are signed with the account's secret: it exists from now on (GET /account/webhook shows it).
      await ensureWebhookEndpoint(c.env, key.accountId);
    }
    const submitted = await submitBatch(
      c.env,
      { ...request, baseUrl: requestBaseUrl(c), idempotencyKey: c.req.header(IDEMPOTENCY_HEADER) },
      key,
      requestOrigin(c, "api"),
    );
    c.header("X-Credits-Remaining", String(submitted.creditsRemaining));
    if (submitted.replayed === true) c.header("Idempotent-Replayed", "true");
    return c.json({ batch_id: submitted.batchId, job_ids: submitted.jobIds, status: "pending" as const }, 202);
  });

  app.openapi(statusRoute, async (c) => {
    const batchId = c.req.valid("param").batch_id.toLowerCase();
    const batch = isUuid(batchId) ? await findAccountBatch(c.env.DB, c.get("apiKey").accountId, batchId) : null;
    if (batch === null) throw new NotFoundError(BATCH_NOT_FOUND_DETAIL);
    const jobs = await batchJobStatuses(c.env.DB, batch.batchId);
    const counts: Record<JobStatus, number> = { pending: 0, done: 0, failed: 0 };
    for (const job of jobs) counts[job.status] += 1;
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        batch_id: batch.batchId,
        scraper: batch.scraper,
        status: counts.pending > 0 ? ("pending" as const) : ("done" as const),
        created_at: isoTimestamp(Date.parse(batch.createdAt)),
        webhook_url: batch.webhookUrl,
        total: jobs.length,
        counts,
        jobs: jobs.map((job) => ({ job_id: job.jobId, status: job.status })),
      },
      200,
    );
  });
}
