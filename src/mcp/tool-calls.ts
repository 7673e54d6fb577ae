/**
 * What an MCP tool call does: the same validation, pipeline and charging as the HTTP API. A scrape tool validates its
 * arguments with the provider's query schema (same rules, same `detail`), then runs `scrapeSynchronously`, whose browser work
 * holds one of the account's request slots like the HTTP route's (3 credits, charged only on an answer) or, with `as_job`, `submitJob`;
 * like the HTTP route, the whole call runs under the request's `waitUntil`, so a client that leaves mid-scrape stops the
 * scrape and still gets its credits back. `get_job` reads the job's record, for the caller's own jobs only, and asks the
 * D1 index first as `GET /jobs/{id}` does: a made-up id never wakes (and so creates) a Durable Object. Failures are tool
 * results with `isError` and the client-safe `detail`, so the assistant can read them and correct itself.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RequestOrigin } from "../accounts/request-log";
import type { AuthenticatedKey } from "../auth/api-keys";
import { indexedJobAccount } from "../jobs/jobs-table";
import { InvalidParameterError, NotFoundError, toServiceError } from "../errors";
import { JOB_NOT_FOUND_DETAIL } from "../http/jobs";
import { logLineOfRequest } from "../http/request-id";
import { describeValidationError, isCommonParams, type ScrapeParams } from "../params/common-params";
import { jobStub } from "../jobs/job-record";
import type { JobView } from "../jobs/job-types";
import { submitJob } from "../jobs/submit";
import { scrapeSynchronously } from "../pipeline/sync-scrape";
import { type AnyProvider, acceptedParameterNames, querySchemaOf } from "../scrapers/registry";
import { AS_JOB_ARGUMENT, JOB_STATUS_TOOL } from "./tool-definitions";
import { isUuid } from "../util/uuid";

/** What a tool call needs of the HTTP request that carried it. */
export interface ToolCallContext {
  env: Env;
  key: AuthenticatedKey;
  /** This deployment's origin, for `markdown_url`. */
  baseUrl: string;
  /** Aborted when the client goes away (or cancels the call): a synchronous scrape then stops and is refunded. */
  abandoned: AbortSignal;
  /** The request's `executionCtx.waitUntil`: work handed to it finishes after the client has gone. */
  waitUntil(work: Promise<unknown>): void;
  /** The HTTP request's id (`X-Request-Id`), for the log line of a failure and the failure's `_meta`. */
  requestId: string;
}

function structuredResult(value: Record<string, unknown>, note?: string): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text: JSON.stringify(value) }];
  if (note !== undefined) content.push({ type: "text", text: note });
  return { content, structuredContent: value };
}

/**
 * A failure as the assistant sees it: only the client-safe detail (and when to retry), never an internal message; the
 * request id in `_meta`, as `request_id` in the HTTP API's error bodies.
 */
export function errorResult(error: unknown, requestId: string): CallToolResult {
  const serviceError = toServiceError(error);
  if (serviceError.status >= 500)
    console.error(logLineOfRequest(requestId, `MCP tool call -> ${serviceError.status}`), serviceError.cause ?? error);
  const retry = serviceError.retryAfterSeconds === undefined ? "" : ` Retry after ${serviceError.retryAfterSeconds} seconds.`;
  return {
    isError: true,
    content: [{ type: "text", text: `${serviceError.detail}${retry}` }],
    _meta: {
      status: serviceError.status,
      code: serviceError.code,
      request_id: requestId,
      ...(serviceError.retryAfterSeconds === undefined ? {} : { retry_after: serviceError.retryAfterSeconds }),
    },
  };
}

/**
 * The tool's JSON arguments as the query string the HTTP API would receive, validated by the provider's own schema:
 * booleans and numbers become their text, so `bypass_cache: true` and `?bypass_cache=true` are the same request.
 */
function scrapeParamsOf(provider: AnyProvider, args: Record<string, unknown>): ScrapeParams {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(args)) {
    if (name === "api_key") {
      throw new InvalidParameterError(
        "api_key: the API key goes with the MCP connection (X-API-Key header or api_key in the /mcp URL), not in tool arguments",
      );
    }
    if (value === undefined || value === null) continue;
    if (typeof value === "string") query[name] = value;
    else if (typeof value === "number" || typeof value === "boolean") query[name] = String(value);
    else throw new InvalidParameterError(`${name}: must be a string, a number or a boolean`);
  }
  const parsed = querySchemaOf(provider).safeParse(query);
  if (!parsed.success) {
    const accepted = acceptedParameterNames(provider).filter((name) => name !== "api_key");
    throw new InvalidParameterError(describeValidationError(provider.id, [...accepted, AS_JOB_ARGUMENT], parsed.error));
  }
  // Same check as the HTTP route: the schema's static type cannot name a provider's own parameters.
  if (!isCommonParams(parsed.data)) throw new InvalidParameterError("Invalid parameters.");
  return parsed.data;
}

function asJobFlag(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (value === true) return true;
  throw new InvalidParameterError(`${AS_JOB_ARGUMENT}: must be a boolean`);
}

/**
 * `scrape_<scraper>`: the answer, or with `as_job` the submitted job; charged exactly like the HTTP API. The call is
 * handed to `waitUntil` whole: a client that disconnects cancels the request, and the charge → scrape → refund sequence
 * must still reach its refund.
 */
export function callScrapeTool(context: ToolCallContext, provider: AnyProvider, args: Record<string, unknown>): Promise<CallToolResult> {
  const call = runScrapeTool(context, provider, args);
  context.waitUntil(call);
  return call;
}

/** The tool call as the request log sees it: the HTTP request's id, its latency counted from the call. */
function toolCallOrigin(context: ToolCallContext): RequestOrigin {
  return { requestId: context.requestId, surface: "mcp", startedAt: Date.now(), afterResponse: (work) => context.waitUntil(work) };
}

/** Never throws: every failure is the tool's error result. */
async function runScrapeTool(context: ToolCallContext, provider: AnyProvider, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const { [AS_JOB_ARGUMENT]: asJob, ...queryArguments } = args;
    const wantsJob = asJobFlag(asJob);
    const params = scrapeParamsOf(provider, queryArguments);
    const origin = toolCallOrigin(context);
    if (wantsJob) {
      const { jobId, creditsRemaining } = await submitJob(
        context.env,
        { scraper: provider.id, params, baseUrl: context.baseUrl },
        context.key,
        origin,
      );
      const result = structuredResult(
        { job_id: jobId, status: "pending" },
        `Job submitted. Call ${JOB_STATUS_TOOL} with this job_id every few seconds until its status is done or failed.`,
      );
      return { ...result, _meta: { credits_remaining: creditsRemaining } };
    }
    const { response, creditsRemaining } = await scrapeSynchronously(
      context.env,
      {
        scraper: provider.id,
        params,
        jobId: crypto.randomUUID(),
        baseUrl: context.baseUrl,
        startedAt: Date.now(),
        abandoned: context.abandoned,
        afterResponse: (work) => context.waitUntil(work),
      },
      context.key,
      origin,
    );
    return { ...structuredResult(response), _meta: { credits_remaining: creditsRemaining } };
  } catch (error) {
    return errorResult(error, context.requestId);
  }
}

/** The job as `GET /jobs/{job_id}` shows it (the Durable Object's RPC result, typed as the view it returns). */
async function readJobView(env: Env, jobId: string): Promise<JobView | null> {
  return jobStub(env, jobId).view();
}

/**
 * `get_job`: the job's status as `GET /jobs/{job_id}` shows it, if the caller's account submitted it; any other id
 * (malformed, never submitted, expired, another account's) is the HTTP route's 404 detail.
 */
export async function callJobStatusTool(context: ToolCallContext, args: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const jobId = typeof args.job_id === "string" ? args.job_id.trim().toLowerCase() : "";
    if (!isUuid(jobId)) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    // The D1 index before the Durable Object: an id that was never submitted wakes no object.
    if ((await indexedJobAccount(context.env.DB, jobId)) !== context.key.accountId) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    const view = await readJobView(context.env, jobId);
    if (view === null) throw new NotFoundError(JOB_NOT_FOUND_DETAIL);
    return structuredResult({ ...view });
  } catch (error) {
    return errorResult(error, context.requestId);
  }
}
