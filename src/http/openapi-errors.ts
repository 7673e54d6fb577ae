import { ErrorBodySchema } from "../schemas/responses";

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ErrorBodySchema } } });

/**
 * The error statuses of a scrape endpoint (DESIGN.md §4), documented once for every scraper route. Every body is
 * `{detail, code, request_id}`; the descriptions name the codes each status carries (the full table: docs/errors.md).
 */
export const SCRAPE_ERROR_RESPONSES = {
  400: errorResponse("Invalid or unknown parameter; `detail` names it (`invalid_parameter`)"),
  401: errorResponse("API key missing (`missing_api_key`), or invalid or revoked (`invalid_api_key`)"),
  404: errorResponse("Unknown scraper (`not_found`)"),
  408: errorResponse("The scrape did not finish within `timeout` (`timeout`; credits restored)"),
  429: errorResponse(
    "Credit limit reached (`insufficient_credits`, no Retry-After: only a top-up helps), rate limit per key or per account " +
      "(`rate_limited`), too many requests in flight for the account (`concurrency_limit`), or the scraper queue is full " +
      "(`queue_full`); the last three send Retry-After",
  ),
  500: errorResponse(
    "The scraper returned an empty or unexpected result (`unexpected_result`), or an internal error (`internal_error`); safe to retry",
  ),
  502: errorResponse(
    "Execution failed on the upstream provider or the browser (`upstream_error`); the provider showed an anti-bot challenge " +
      "(`provider_challenge`), asked for a sign-in (`provider_login_required`, a retry will not pass) or rate-limited the " +
      "session (`provider_rate_limited`); or the provider's page changed (`provider_changed`)",
  ),
  503: errorResponse(
    "The scraper pool is warming up (`pool_warming_up`), every browser session of the service is busy (`at_capacity`), a capacity " +
      "limiter could not be reached so no new work is admitted (`capacity_unavailable`), or the job could not be queued " +
      "(`service_unavailable`); retry in a few seconds (see Retry-After)",
  ),
  504: errorResponse("Network time-out reaching the scraper machine (`browser_unreachable`)"),
} as const;

export { errorResponse };

/** Every key-authenticated route: the rate limiter is asked first, and when it cannot be reached nothing is admitted. */
export const LIMITER_UNAVAILABLE_RESPONSE = {
  503: errorResponse(
    "The service could not reach its rate limiter, so it admits no new request (`capacity_unavailable`); retry after Retry-After",
  ),
} as const;

/** Either way of passing the key satisfies the API (spec §5). */
export const API_KEY_SECURITY: Array<Record<string, string[]>> = [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }];
