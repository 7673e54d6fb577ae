/**
 * One error hierarchy for the whole service. Every class carries the HTTP status it maps to, a client-safe `detail`
 * (never an internal message or a stack) and whether retrying the same work can help. The HTTP layer turns these into
 * `{detail}` bodies; the queue consumer uses `retryable` to choose between a retry and a final failure.
 */
export class ServiceError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly retryable: boolean;
  /** Seconds a client should wait before retrying, sent as `Retry-After` when set. */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, detail: string, options: { retryable?: boolean; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(detail, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.detail = detail;
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** 400: a parameter is missing or invalid; `detail` names the parameter and the rule. */
export class InvalidParameterError extends ServiceError {
  constructor(detail: string) {
    super(400, detail);
  }
}

/** 401: the API key (or admin token) is missing, unknown or revoked. */
export class UnauthorizedError extends ServiceError {
  constructor(detail: string) {
    super(401, detail);
  }
}

/** 404: unknown scraper, unknown or expired job, expired hosted markdown. */
export class NotFoundError extends ServiceError {
  constructor(detail: string) {
    super(404, detail);
  }
}

/** 405: the path exists, the method does not; `allow` lists the methods it takes (sent as `Allow`). */
export class MethodNotAllowedError extends ServiceError {
  readonly allow: readonly string[];

  constructor(allow: readonly string[]) {
    super(405, `Method not allowed here. Use ${allow.join(" or ")}.`);
    this.allow = allow;
  }
}

/** 409: the request conflicts with the current state (an email already taken, a balance that would go negative). */
export class ConflictError extends ServiceError {
  constructor(detail: string) {
    super(409, detail);
  }
}

/** 408: a synchronous scrape did not finish within the caller's `timeout`. Retrying with a higher timeout can help. */
export class ScrapeTimeoutError extends ServiceError {
  constructor(timeoutSeconds: number) {
    super(
      408,
      `The scrape did not finish within timeout=${timeoutSeconds} seconds. Retry with a higher timeout (up to 600) or a shorter prompt.`,
      { retryable: true },
    );
  }
}

/**
 * 499 (never sent: nobody is listening): the client of a synchronous scrape went away. The scrape is stopped and its
 * credits restored, as for any failure.
 */
export class ClientClosedRequestError extends ServiceError {
  constructor() {
    super(499, "The client closed the request before the scrape finished. No credits were charged.");
  }
}

/** 429: the account has too few credits. Not retryable by the service itself: only a top-up helps. */
export class InsufficientCreditsError extends ServiceError {
  constructor(required: number, remaining: number) {
    // No Retry-After: waiting does not help, and generic retry code would loop on it.
    super(429, `Credit limit reached: this request needs ${required} credits and the account has ${remaining}. Top up to continue.`);
  }
}

/** 429: per-key rate limit or a full scraper queue. */
export class TooManyRequestsError extends ServiceError {
  constructor(detail: string, retryAfterSeconds: number) {
    super(429, detail, { retryable: true, retryAfterSeconds });
  }
}

/** 500: the provider answered, but the reply was empty or could not be understood. Safe to retry. */
export class UnexpectedResultError extends ServiceError {
  constructor(detail = "The scraper returned an empty or unexpected result. Safe to retry.", cause?: unknown) {
    super(500, detail, { retryable: true, cause });
  }
}

/**
 * 502: the upstream provider or the browser failed (provider error, anti-bot challenge, login wall, browser crash).
 * `retryable` is false only for failures a retry cannot fix (a login wall, a region block).
 */
export class UpstreamError extends ServiceError {
  constructor(detail: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(502, detail, { retryable: options.retryable ?? true, cause: options.cause });
  }
}

/**
 * 502: the provider's page no longer looks the way its module expects (a control, menu entry or request field is
 * missing): the site changed. `code` is stable (`<provider>.<what>`, e.g. `grok.mode_item_missing`) so operators can see
 * within minutes which provider drifted (logs, `/admin/providers`); the client gets a safe 502. `reason` stays internal.
 * Retryable: sites roll out layouts gradually, so another session may still get the old one.
 */
export class ScraperDriftError extends UpstreamError {
  readonly provider: string;
  readonly code: string;

  constructor(provider: string, what: string, reason: string) {
    super(`The ${provider} page did not look as expected (its layout may have changed). Safe to retry; the operators are alerted.`, {
      retryable: true,
      cause: new Error(`${provider}.${what}: ${reason}`),
    });
    this.provider = provider;
    this.code = `${provider}.${what}`;
  }
}

/** 503: the browser pool has nothing warm and may not launch yet. */
export class PoolWarmingUpError extends ServiceError {
  constructor(retryAfterSeconds = 5) {
    super(503, "The scraper pool is warming up. Retry in a few seconds.", { retryable: true, retryAfterSeconds });
  }
}

/** 504: the browser service could not be reached in time. */
export class BrowserUnreachableError extends ServiceError {
  constructor(cause?: unknown) {
    super(504, "Network time-out reaching the scraper machine. Safe to retry.", { retryable: true, cause });
  }
}

/** Maps anything thrown to a ServiceError; unknown errors become a generic 500 whose cause is kept for the log only. */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return new ServiceError(500, "Internal error. Safe to retry.", { retryable: true, cause: error });
}
