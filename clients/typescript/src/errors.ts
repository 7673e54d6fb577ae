/**
 * Typed errors of the client. Every error the API answers is `{detail, code, request_id}` with an HTTP status (and
 * `Retry-After` on 429 and 503) and an `X-Request-Id` header; `ApiError` carries the status, the detail, the wait and
 * the request id, and its subclasses let callers branch with `instanceof` instead of on numbers.
 * Errors that happen on the client's side (its own time-out, a job that failed or did not finish in time) have their
 * own classes.
 */

/** Statuses after which the same request may succeed later (time-out, rate limit or full queue, provider or pool trouble). */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** An error answer of the API. */
export class ApiError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The API's client-safe explanation (its `detail` field), e.g. "prompt: must be 1 to 4000 characters and not blank". */
  readonly detail: string;
  /** Seconds to wait before retrying, from `Retry-After` (429 and 503), when the API sent it. */
  readonly retryAfterSeconds: number | undefined;
  /** The request's id (`X-Request-Id`, the body's `request_id`): quote it to support. Undefined when no API answered. */
  readonly requestId: string | undefined;

  constructor(status: number, detail: string, retryAfterSeconds: number | undefined, requestId?: string) {
    super(`${status}: ${detail}`);
    this.name = new.target.name;
    this.status = status;
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds;
    this.requestId = requestId;
  }

  /** Whether the same request may succeed later (after `retryAfterSeconds` when set). A credit shortfall needs a top-up. */
  get retryable(): boolean {
    return RETRYABLE_STATUSES.has(this.status);
  }
}

/** 400: a parameter is missing, invalid or unknown; `detail` names it and the rule. */
export class InvalidRequestError extends ApiError {}

/** 401: the API key is missing, unknown or revoked. */
export class AuthenticationError extends ApiError {}

/** 404: unknown scraper, or a job that is unknown or older than 24 hours. */
export class NotFoundError extends ApiError {}

/** 408: the scrape did not finish within its `timeout` (nothing was charged); retry with a higher one. */
export class ScrapeTimeoutError extends ApiError {}

/** 409: a conflict with the current state (e.g. an idempotency key reused with other parameters). */
export class ConflictError extends ApiError {}

/** 429: not enough credits, the key's rate limit, or the country's scraper queue is full; see `retryAfterSeconds`. */
export class RateLimitError extends ApiError {}

/** 5xx: the provider, the browser pool or the service failed (500, 502, 503 warming up, 504); safe to retry. */
export class ServerError extends ApiError {}

const ERROR_CLASSES: Readonly<Record<number, typeof ApiError>> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  404: NotFoundError,
  408: ScrapeTimeoutError,
  409: ConflictError,
  429: RateLimitError,
};

function retryAfterOf(response: Response): number | undefined {
  const header = response.headers.get("Retry-After");
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** The `detail` of an error body, or a generic text when the body is not the API's `{detail}` (e.g. a proxy's page). */
function detailOf(body: unknown, status: number): string {
  if (typeof body === "object" && body !== null && "detail" in body && typeof body.detail === "string") return body.detail;
  return `The API answered HTTP ${status}.`;
}

/** The typed error of an error response whose body has already been parsed (`body` is `undefined` when it was not JSON). */
export function apiErrorOf(response: Response, body: unknown): ApiError {
  const ErrorClass = ERROR_CLASSES[response.status] ?? (response.status >= 500 ? ServerError : ApiError);
  // The header is on every answer of the API, JSON or not; a proxy's own error page has none.
  const requestId = response.headers.get("X-Request-Id") ?? undefined;
  return new ErrorClass(response.status, detailOf(body, response.status), retryAfterOf(response), requestId);
}

/** `scrape()` gave up after its own time-out (`timeoutMs`); the scrape may still complete, and be charged, on the server. */
export class ClientTimeoutError extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`No answer within ${timeoutMs} ms.`);
    this.name = "ClientTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** A job ended `failed`: every attempt failed and its credits were restored. */
export class JobFailedError extends Error {
  readonly jobId: string;
  /** The job's `error`, a client-safe explanation. */
  readonly detail: string;

  constructor(jobId: string, detail: string) {
    super(`Job ${jobId} failed: ${detail}`);
    this.name = "JobFailedError";
    this.jobId = jobId;
    this.detail = detail;
  }
}

/** `waitForJob()` stopped polling after `timeoutMs` while the job was still pending (it may still finish). */
export class JobWaitTimeoutError extends Error {
  readonly jobId: string;
  readonly timeoutMs: number;

  constructor(jobId: string, timeoutMs: number) {
    super(`Job ${jobId} was still pending after ${timeoutMs} ms.`);
    this.name = "JobWaitTimeoutError";
    this.jobId = jobId;
    this.timeoutMs = timeoutMs;
  }
}
