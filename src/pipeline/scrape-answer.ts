/**
 * The provider-derived part of a response: `result`, `result_markdown` and the scraper's own fields. Its own module
 * (re-exported by ./scrape-request.ts) so that ./served-by.ts, and the unit tests of it, need nothing of the runtime.
 */
export type ScrapeAnswer = Record<string, unknown> & { result: string; result_markdown: string | null };
