import { ErrorBodySchema } from "../schemas/responses";

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ErrorBodySchema } } });

/** The error statuses of a scrape endpoint (DESIGN.md §4), documented once for every scraper route. */
export const SCRAPE_ERROR_RESPONSES = {
  400: errorResponse("Invalid or unknown parameter; `detail` names it"),
  401: errorResponse("API key missing, invalid or revoked"),
  404: errorResponse("Unknown scraper"),
  408: errorResponse("The scrape did not finish within `timeout` (credits restored)"),
  429: errorResponse(
    "Credit limit reached, rate limit (per key or per account), too many requests in flight for the account, or the scraper queue is full (see Retry-After)",
  ),
  500: errorResponse("The scraper returned an empty or unexpected result; safe to retry"),
  502: errorResponse("Execution failed on the upstream provider or the browser; safe to retry"),
  503: errorResponse(
    "The scraper pool is warming up, or every browser session of the service is busy; retry in a few seconds (see Retry-After)",
  ),
  504: errorResponse("Network time-out reaching the scraper machine"),
} as const;

export { errorResponse };

/** Either way of passing the key satisfies the API (spec §5). */
export const API_KEY_SECURITY: Array<Record<string, string[]>> = [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }];
