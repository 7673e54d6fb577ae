/**
 * The scrape pipeline shared by the synchronous endpoint and the queue consumer: cache lookup, a page from the
 * browser pool, the provider module, the response object, cache entry and hosted markdown. It never branches on a
 * provider id and knows nothing of HTTP or credits.
 */
import { hostedMarkdownUrl, storeHostedMarkdown } from "../cache/hosted-markdown";
import { readCachedAnswer, responseCacheKey, writeCachedAnswer } from "../cache/response-cache";
import { withScrapePage } from "../browser/browser-provider";
import { NotImplementedError, ScrapeTimeoutError, UnexpectedResultError } from "../errors";
import type { ScrapeParams, ScraperId } from "../params/scrape-params";
import { CREDITS_PER_REQUEST } from "../credits/ledger";
import { providerOrigin, scraperModule } from "../scrapers/registry";
import type { ScrapeAnswer, ScraperModule } from "../scrapers/scraper-module";

/** How long a timed-out scrape may take to release its page and session before the 408 is sent. */
const CLEANUP_GRACE_MS = 3_000;

export interface ScrapeRequest<Id extends ScraperId = ScraperId> {
  scraper: Id;
  params: ScrapeParams<Id>;
  /** The sync request's or the job's id; also names the hosted markdown. */
  jobId: string;
  /** Public origin of this API, for `markdown_url`. */
  baseUrl: string;
  /** When the caller's request started (ms since epoch), for `elapsed_ms`. */
  startedAt: number;
}

export type ScrapeResponse = Record<string, unknown> & { job_id: string; result: string };

/** The provider module of `scraper`, or 501 when it is not built yet. */
export function requireScraperModule<Id extends ScraperId>(scraper: Id): ScraperModule<Id> {
  const module = scraperModule(scraper);
  if (module === undefined) {
    throw new NotImplementedError(`The ${scraper} scraper is not available yet. No credits were charged.`);
  }
  return module;
}

/**
 * Runs one scrape within `timeoutSeconds`. On time-out the page work is abandoned (its page and session are released
 * by their own `finally` blocks) and ScrapeTimeoutError is thrown.
 */
export async function runScrape<Id extends ScraperId>(
  env: Env,
  request: ScrapeRequest<Id>,
  timeoutSeconds: number,
): Promise<ScrapeResponse> {
  const controller = new AbortController();
  const deadline = Date.now() + timeoutSeconds * 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutSeconds * 1000);
  });
  const work = scrapeOrReadCache(env, request, controller.signal, deadline);
  // Settled either way below; never an unhandled rejection.
  work.catch(() => undefined);
  try {
    const winner = await Promise.race([work, timedOut]);
    if (winner !== "timeout") return winner;
    controller.abort(new ScrapeTimeoutError(timeoutSeconds));
    // Give the page work a moment to notice the abort and hand its browser session back within this request.
    await Promise.race([work.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, CLEANUP_GRACE_MS))]);
    throw new ScrapeTimeoutError(timeoutSeconds);
  } finally {
    clearTimeout(timer);
  }
}

async function scrapeOrReadCache<Id extends ScraperId>(
  env: Env,
  request: ScrapeRequest<Id>,
  signal: AbortSignal,
  deadline: number,
): Promise<ScrapeResponse> {
  const module = requireScraperModule(request.scraper);
  const cacheKey = await responseCacheKey(request.scraper, request.params);
  if (!request.params.bypass_cache) {
    const cached = await readCachedAnswer(env.CACHE, cacheKey);
    if (cached !== null && isScrapeAnswer(cached)) return finishResponse(env, request, cached, true);
  }
  const origin = providerOrigin(env, module);
  const answer = await withScrapePage(
    env,
    { country: request.params.country, allowedDomains: module.allowedDomains(origin), signal, deadline },
    (page) => module.scrape({ page, origin, params: request.params, signal }),
  );
  if (answer.result.trim() === "") throw new UnexpectedResultError();
  await writeCachedAnswer(env.CACHE, cacheKey, answer, Number(env.CACHE_TTL_SECONDS) || 3600);
  return finishResponse(env, request, answer, false);
}

function isScrapeAnswer(value: Record<string, unknown>): value is ScrapeAnswer {
  return typeof value.result === "string" && (typeof value.result_markdown === "string" || value.result_markdown === null);
}

async function finishResponse(env: Env, request: ScrapeRequest, answer: ScrapeAnswer, cached: boolean): Promise<ScrapeResponse> {
  await storeHostedMarkdown(env.MARKDOWN, request.jobId, answer.result_markdown ?? answer.result);
  return {
    scraper: request.scraper,
    status: "done",
    job_id: request.jobId,
    prompt: request.params.prompt,
    country: request.params.country,
    ...answer,
    credits_used: CREDITS_PER_REQUEST,
    elapsed_ms: Date.now() - request.startedAt,
    cached,
    markdown_url: hostedMarkdownUrl(request.baseUrl, request.jobId),
  };
}
