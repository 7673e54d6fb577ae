/**
 * Typed client of the AI Answer Scraper API.
 *
 * ```ts
 * const scraper = new AnswerScraperClient({ baseUrl: process.env.API_URL ?? "http://127.0.0.1:8787", apiKey: process.env.API_KEY ?? "" });
 * const answer = await scraper.scrape("grok", { prompt: "What is new with Starship?", mode: "MODEL_MODE_EXPERT" });
 * ```
 */
export {
  type AnswerScraperClientOptions,
  AnswerScraperClient,
  type CompletedJob,
  DEFAULT_POLL_INTERVAL_MS,
  type EvidenceKind,
  type ScrapeOptions,
  type SubmittedJob,
  type WaitOptions,
} from "./client.js";
export {
  ApiError,
  AuthenticationError,
  ClientTimeoutError,
  ConflictError,
  InvalidRequestError,
  JobFailedError,
  JobWaitTimeoutError,
  NotFoundError,
  RateLimitError,
  ScrapeTimeoutError,
  ServerError,
} from "./errors.js";
export { SCRAPER_IDS, type ScraperId, type ScraperQueries, type ScraperResponses } from "./generated/scrapers.gen.js";
/** Everything generated from the OpenAPI document: one function per operation (by operationId) and every schema's type. */
export * from "./generated/index.js";
