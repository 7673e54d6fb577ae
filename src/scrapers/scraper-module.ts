import type { Page } from "@cloudflare/puppeteer";
import type { ScrapeParams, ScraperId } from "../params/scrape-params";

/** What a provider module receives for one scrape. */
export interface ScrapeContext<Id extends ScraperId> {
  /** A fresh page in its own browser context, already localised for `params.country`; the caller closes it. */
  page: Page;
  /** Provider origin without a trailing slash: the real site, or a replica in local runs and tests. */
  origin: string;
  params: ScrapeParams<Id>;
  /** Aborted when the caller's timeout passes; long waits must honour it. */
  signal: AbortSignal;
}

/**
 * The contract every provider implements. A module knows its provider's site (URLs, DOM, network exchange) and nothing
 * of HTTP, credits or caching; the pipeline knows nothing of providers beyond this interface.
 */
export interface ScraperModule<Id extends ScraperId> {
  readonly id: Id;
  /** The real site's origin, used when no `PROVIDER_ORIGIN_*` override is configured. */
  readonly defaultOrigin: string;
  /** Hostnames the browser session may reach for this provider (Browser Rendering guardrails). */
  allowedDomains(origin: string): string[];
  /**
   * Drives the page and returns every scraper-specific response field plus `result` and `result_markdown`.
   * Throws ServiceError subclasses (UpstreamError, UnexpectedResultError) for provider failures.
   */
  scrape(context: ScrapeContext<Id>): Promise<ScrapeAnswer>;
}

/** The provider-derived part of a response: `result`, `result_markdown` and the scraper's own fields. */
export interface ScrapeAnswer {
  result: string;
  result_markdown: string | null;
  [field: string]: unknown;
}
