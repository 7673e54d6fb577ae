/** Hono environment of the app: the Worker bindings plus per-request values set by middleware. */
import type { ScopedKey } from "../auth/api-keys";
import type { ScrapeParams } from "../params/common-params";

export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** The request's id (the caller's `X-Request-Id` when well-formed, else generated), set first by `requestId`. */
    requestId: string;
    /** ms since epoch when the request arrived, for `elapsed_ms`. */
    startedAt: number;
    /** The API key of the request and its scope, set by the `apiKeyAuth` middleware. */
    apiKey: ScopedKey;
    /** The validated query of a scrape request, set by `validateScrapeQuery`. */
    scrapeParams: ScrapeParams;
  };
}
