/**
 * One error hierarchy for the whole service. Every class carries the HTTP status it maps to, a client-safe `detail`
 * (never an internal message or a stack), a stable machine-readable `code` (docs/errors.md) and whether retrying the
 * same work can help. The HTTP layer turns these into `{detail, code, request_id}` bodies; the queue consumer uses `retryable` to
 * choose between a retry and a final failure.
 */

/**
 * Every `code` an error body can carry, with its status. Clients branch on the code, never on the prose of `detail`,
 * so a code, once published, keeps its meaning. The OpenAPI error schema lists these as its enum.
 */
export const ERROR_CODE_STATUSES = {
  invalid_parameter: 400,
  malformed_json: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  invalid_admin_token: 401,
  signed_out: 401,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  timeout: 408,
  conflict: 409,
  idempotency_key_reused: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  insufficient_credits: 429,
  rate_limited: 429,
  concurrency_limit: 429,
  queue_full: 429,
  key_creation_limit: 429,
  client_closed_request: 499,
  unexpected_result: 500,
  internal_error: 500,
  capture_mismatch: 500,
  upstream_error: 502,
  provider_challenge: 502,
  provider_login_required: 502,
  provider_rate_limited: 502,
  provider_changed: 502,
  pool_warming_up: 503,
  at_capacity: 503,
  capacity_unavailable: 503,
  service_unavailable: 503,
  not_configured: 503,
  browser_unreachable: 504,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CODE_STATUSES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODE_STATUSES, value);
}

export const ERROR_CODES: readonly ErrorCode[] = Object.keys(ERROR_CODE_STATUSES).filter(isErrorCode);

/** The code of a status no class or throw site names (e.g. Hono's own HTTPException): a fallback, not the design. */
export function defaultErrorCode(status: number): ErrorCode {
  switch (status) {
    case 400:
      return "invalid_parameter";
    case 401:
      return "invalid_api_key";
    case 404:
      return "not_found";
    case 405:
      return "method_not_allowed";
    case 406:
      return "not_acceptable";
    case 408:
      return "timeout";
    case 409:
      return "conflict";
    case 415:
      return "unsupported_media_type";
    case 429:
      return "rate_limited";
    case 502:
      return "upstream_error";
    case 503:
      return "service_unavailable";
    case 504:
      return "browser_unreachable";
    default:
      return "internal_error";
  }
}

export interface ServiceErrorOptions {
  /** The machine-readable code; without it, the status's fallback (`defaultErrorCode`). */
  code?: ErrorCode;
  retryable?: boolean;
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class ServiceError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** Seconds a client should wait before retrying, sent as `Retry-After` when set. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, detail: string, options: ServiceErrorOptions = {}) {
    super(detail, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.detail = detail;
    this.code = options.code ?? defaultErrorCode(status);
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /**
   * The error body every route sends (spec §2.8 `detail`, plus the additive `code`, and the id of the request that
   * failed, the one its `X-Request-Id` header carries, for support to find it).
   */
  toBody(requestId: string): ErrorBody {
    return { detail: this.detail, code: this.code, request_id: requestId };
  }
}

export interface ErrorBody {
  detail: string;
  code: ErrorCode;
  request_id: string;
}

/** 400: a parameter is missing or invalid; `detail` names the parameter and the rule. */
export class InvalidParameterError extends ServiceError {
  constructor(detail: string, code: "invalid_parameter" | "malformed_json" = "invalid_parameter") {
    super(400, detail, { code });
  }
}

/** 401: the API key (or admin token, or dashboard session) is missing, unknown or revoked; `code` says which. */
export class UnauthorizedError extends ServiceError {
  constructor(detail: string, code: "missing_api_key" | "invalid_api_key" | "invalid_admin_token" | "signed_out") {
    super(401, detail, { code });
  }
}

/**
 * 403: the API key is valid but its scope does not cover the route (webhook settings need a `manage` key); `detail`
 * names the scope needed and how to get such a key. Retrying with the same key cannot help.
 */
export class InsufficientScopeError extends ServiceError {
  constructor(detail: string) {
    super(403, detail, { code: "insufficient_scope" });
  }
}

/** 404: unknown scraper, unknown or expired job, expired hosted markdown. */
export class NotFoundError extends ServiceError {
  constructor(detail: string) {
    super(404, detail, { code: "not_found" });
  }
}

/** `["GET", "PUT", "HEAD"]` → "GET, PUT or HEAD". */
function inWords(methods: readonly string[]): string {
  return methods.length < 2 ? methods.join("") : `${methods.slice(0, -1).join(", ")} or ${methods.at(-1)}`;
}

/** 405: the path exists, the method does not; `allow` lists the methods it takes (sent as `Allow`). */
export class MethodNotAllowedError extends ServiceError {
  readonly allow: readonly string[];

  constructor(allow: readonly string[]) {
    super(405, `Method not allowed here. Use ${inWords(allow)}.`, { code: "method_not_allowed" });
    this.allow = allow;
  }
}

/**
 * 409: the request conflicts with the current state (an email already taken, a balance that would go negative), or
 * an `Idempotency-Key` was reused for a different request or is still being processed.
 */
export class ConflictError extends ServiceError {
  constructor(
    detail: string,
    options: { code?: "conflict" | "idempotency_key_reused" | "idempotency_in_progress"; retryAfterSeconds?: number } = {},
  ) {
    super(409, detail, { code: options.code ?? "conflict", retryAfterSeconds: options.retryAfterSeconds });
  }
}

/**
 * 413: the request body is larger than its route's cap (src/http/body-limit.ts), refused before any of it is parsed;
 * `detail` says the cap and how to split the request. The same request can never pass: it must be made smaller.
 */
export class PayloadTooLargeError extends ServiceError {
  constructor(detail: string) {
    super(413, detail, { code: "payload_too_large" });
  }
}

/** 415: a JSON body route got a body that does not say it is JSON. */
export class UnsupportedMediaTypeError extends ServiceError {
  constructor(detail: string) {
    super(415, detail, { code: "unsupported_media_type" });
  }
}

/** 408: a synchronous scrape did not finish within the caller's `timeout`. Retrying with a higher timeout can help. */
export class ScrapeTimeoutError extends ServiceError {
  constructor(timeoutSeconds: number) {
    super(
      408,
      `The scrape did not finish within timeout=${timeoutSeconds} seconds. Retry with a higher timeout (up to 600) or a shorter prompt.`,
      { code: "timeout", retryable: true },
    );
  }
}

/**
 * 499 (never sent: nobody is listening): the client of a synchronous scrape went away. The scrape is stopped and its
 * credits restored, as for any failure.
 */
export class ClientClosedRequestError extends ServiceError {
  constructor() {
    super(499, "The client closed the request before the scrape finished. No credits were charged.", { code: "client_closed_request" });
  }
}

/** 429: the account has too few credits. Not retryable by the service itself: only a top-up helps. */
export class InsufficientCreditsError extends ServiceError {
  constructor(required: number, remaining: number) {
    // No Retry-After: waiting does not help, and generic retry code would loop on it.
    super(429, `Credit limit reached: this request needs ${required} credits and the account has ${remaining}. Top up to continue.`, {
      code: "insufficient_credits",
    });
  }
}

/**
 * 429 that waiting fixes (with `Retry-After`): a rate limit, too many requests in flight for the account, a full
 * scraper queue, or the daily key-creation cap. The code tells them apart; `insufficient_credits` is a separate class.
 */
export class TooManyRequestsError extends ServiceError {
  constructor(detail: string, retryAfterSeconds: number, code: "rate_limited" | "concurrency_limit" | "queue_full" | "key_creation_limit") {
    super(429, detail, { code, retryable: true, retryAfterSeconds });
  }
}

/** 500: the provider answered, but the reply was empty or could not be understood. Safe to retry. */
export class UnexpectedResultError extends ServiceError {
  constructor(detail = "The scraper returned an empty or unexpected result. Safe to retry.", cause?: unknown) {
    super(500, detail, { code: "unexpected_result", retryable: true, cause });
  }
}

/**
 * What kind of upstream failure it was, set where it is thrown (never read from the detail's words): an anti-bot
 * challenge, a login wall, the provider's own rate limit, a browser that crashed (the pool replaces its session), or any
 * other provider failure. The first three have their own public code, so a client (and the provider contract) can tell
 * them apart.
 */
export type UpstreamReason = "challenge" | "login_wall" | "rate_limited" | "browser_crashed" | "provider_error";

const UPSTREAM_CODES = {
  challenge: "provider_challenge",
  login_wall: "provider_login_required",
  rate_limited: "provider_rate_limited",
  browser_crashed: "upstream_error",
  provider_error: "upstream_error",
} as const satisfies Record<UpstreamReason, ErrorCode>;

/**
 * 502: the upstream provider or the browser failed (provider error, anti-bot challenge, login wall, browser crash).
 * `retryable` is false only for failures a retry cannot fix (a login wall, a region block). `reason` picks the code.
 */
export class UpstreamError extends ServiceError {
  readonly reason: UpstreamReason;

  constructor(detail: string, options: { retryable?: boolean; cause?: unknown; reason?: UpstreamReason; code?: "provider_changed" } = {}) {
    const reason = options.reason ?? "provider_error";
    super(502, detail, { code: options.code ?? UPSTREAM_CODES[reason], retryable: options.retryable ?? true, cause: options.cause });
    this.reason = reason;
  }
}

/**
 * 502: the browser or the scrape's page went away while it was driven (the browser disconnected, the page closed or its
 * renderer crashed). Thrown where that is observed (puppeteer's events), so the pool replaces the session by `reason`.
 */
export class BrowserCrashedError extends UpstreamError {
  constructor(cause?: unknown) {
    super("The browser session crashed during the scrape. Safe to retry.", { cause, reason: "browser_crashed" });
  }
}

/**
 * 502: the provider's page no longer looks the way its module expects (a control, menu entry or request field is
 * missing): the site changed. `driftCode` is stable (`<provider>.<what>`, e.g. `grok.mode_item_missing`) so operators can
 * see within minutes which provider drifted (logs, `/admin/providers`); the client gets a safe 502 with the generic code
 * `provider_changed`. `reason` stays internal.
 * Retryable: sites roll out layouts gradually, so another session may still get the old one.
 */
export class ScraperDriftError extends UpstreamError {
  readonly provider: string;
  readonly driftCode: string;

  constructor(provider: string, what: string, reason: string) {
    super(`The ${provider} page did not look as expected (its layout may have changed). Safe to retry; the operators are alerted.`, {
      code: "provider_changed",
      retryable: true,
      cause: new Error(`${provider}.${what}: ${reason}`),
    });
    this.provider = provider;
    this.driftCode = `${provider}.${what}`;
  }
}

/** 503: the browser pool has nothing warm and may not launch yet. */
export class PoolWarmingUpError extends ServiceError {
  constructor(retryAfterSeconds = 5) {
    super(503, "The scraper pool is warming up. Retry in a few seconds.", { code: "pool_warming_up", retryable: true, retryAfterSeconds });
  }
}

/**
 * 503: a limiter that admits work (the account's rate limiter, the global browser budget) could not be reached. The
 * request is refused rather than admitted unlimited (they fail closed); retrying in a few seconds usually works.
 */
export class CapacityUnavailableError extends ServiceError {
  constructor(retryAfterSeconds = 5, cause?: unknown) {
    super(503, "The service cannot check its capacity limits right now, so it accepts no new work. Retry in a few seconds.", {
      code: "capacity_unavailable",
      retryable: true,
      retryAfterSeconds,
      cause,
    });
  }
}

/** 504: the browser service could not be reached in time. */
export class BrowserUnreachableError extends ServiceError {
  constructor(cause?: unknown) {
    super(504, "Network time-out reaching the scraper machine. Safe to retry.", { code: "browser_unreachable", retryable: true, cause });
  }
}

/** Maps anything thrown to a ServiceError; unknown errors become a generic 500 whose cause is kept for the log only. */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return new ServiceError(500, "Internal error. Safe to retry.", { code: "internal_error", retryable: true, cause: error });
}
