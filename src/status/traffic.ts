/**
 * Real traffic for the status page: the pipeline runs every customer scrape (sync request or job attempt) through
 * `observeCustomerScrape`, which records its outcome and latency. Best effort: a failed write is logged and the
 * scrape's own result or error is returned unchanged.
 */
import type { ScrapeRequest, ScrapeResponse } from "../scrape/pipeline";
import { recordScrapeOutcome, type ScrapeOutcome } from "./outcome-log";

/**
 * Runs `scrape` and records how it went when it was a customer's scrape that reached the provider. Not recorded:
 * cache hits (they say nothing about the provider), and scrapes without an account (canaries record their own
 * outcome with the round they belong to; internal callers are not traffic).
 */
export async function observeCustomerScrape(
  env: Env,
  request: ScrapeRequest,
  scrape: () => Promise<ScrapeResponse>,
): Promise<ScrapeResponse> {
  if (request.accountId === undefined) return scrape();
  const startedAt = Date.now();
  const base: Pick<ScrapeOutcome, "provider" | "country" | "source"> = {
    provider: request.scraper,
    country: request.params.country,
    source: "traffic",
  };
  let response: ScrapeResponse;
  try {
    response = await scrape();
  } catch (error) {
    await record(env, request, { ...base, ok: false, error, latencyMs: Date.now() - startedAt });
    throw error;
  }
  if (response.cached !== true) await record(env, request, { ...base, ok: true, latencyMs: Date.now() - startedAt });
  return response;
}

/** The outcome is known: a caller that can finish work after responding does not wait for the status page's row. */
async function record(env: Env, request: ScrapeRequest, outcome: ScrapeOutcome): Promise<void> {
  const recorded = recordQuietly(env, outcome);
  if (request.afterResponse === undefined) await recorded;
  else request.afterResponse(recorded);
}

async function recordQuietly(env: Env, outcome: ScrapeOutcome): Promise<void> {
  try {
    await recordScrapeOutcome(env.DB, outcome);
  } catch (cause) {
    console.error("could not record the scrape outcome for the status page", cause);
  }
}
