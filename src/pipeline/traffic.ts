/**
 * Real traffic for the status page: the pipeline runs every customer scrape (sync request or job attempt) through
 * `observeCustomerScrape`, which records its outcome and latency. Best effort: a failed write is logged and the
 * scrape's own result or error is returned unchanged.
 */
import { ScrapeTimeoutError } from "../errors";
import { accountTag } from "../status/account-tag";
import { recordScrapeOutcome, type ScrapeOutcome } from "../status/outcome-log";
import type { ScrapeRequest, ScrapeResponse } from "./scrape-request";
import { logLine, type LogSubject } from "../util/log-line";

/**
 * A customer's time-out is evidence about the provider only when the customer allowed at least this long: the
 * canaries' default time limit (src/status/canaries.ts), i.e. as long as the service itself gives a provider. A
 * shorter `timeout` is the caller's own choice (10 s is allowed), and a refunded one: it would let anyone fail scrapes
 * for free. Time-outs past it are recorded, and count like every traffic failure: only when several accounts see them.
 */
const TIMEOUT_EVIDENCE_MIN_SECONDS = 120;

/**
 * Runs `scrape` and records how it went when it was a customer's scrape that reached the provider. Not recorded:
 * cache hits (they say nothing about the provider), scrapes whose client went away (refunded, and stopped by us, not by
 * the provider), time-outs shorter than TIMEOUT_EVIDENCE_MIN_SECONDS, and scrapes without an account (canaries record
 * their own outcome with the round they belong to; internal callers are not traffic).
 */
export async function observeCustomerScrape(
  env: Env,
  request: ScrapeRequest,
  scrape: () => Promise<ScrapeResponse>,
): Promise<ScrapeResponse> {
  const { accountId } = request;
  if (accountId === undefined) return scrape();
  const startedAt = Date.now();
  const base = { provider: request.scraper, country: request.params.country, source: "traffic", accountId } as const;
  let response: ScrapeResponse;
  try {
    response = await scrape();
  } catch (error) {
    if (isProviderEvidence(request, error)) await record(env, request, { ...base, ok: false, error, latencyMs: Date.now() - startedAt });
    throw error;
  }
  if (response.cached !== true) await record(env, request, { ...base, ok: true, latencyMs: Date.now() - startedAt });
  return response;
}

/** Whether a failed customer scrape may say anything about the provider (see observeCustomerScrape). */
function isProviderEvidence(request: ScrapeRequest, error: unknown): boolean {
  // Whatever the error, a scrape whose client left was cut short by us (the error may be the page's reaction to that).
  if (request.abandoned?.aborted === true) return false;
  if (error instanceof ScrapeTimeoutError && request.params.timeout < TIMEOUT_EVIDENCE_MIN_SECONDS) return false;
  return true;
}

type TrafficOutcome = Omit<Extract<ScrapeOutcome, { source: "traffic" }>, "accountTag"> & { accountId: string };

/** The outcome is known: a caller that can finish work after responding does not wait for the status page's row. */
async function record(env: Env, request: ScrapeRequest, outcome: TrafficOutcome): Promise<void> {
  const recorded = recordQuietly(env, outcome, request.logSubject);
  if (request.afterResponse === undefined) await recorded;
  else request.afterResponse(recorded);
}

async function recordQuietly(env: Env, { accountId, ...outcome }: TrafficOutcome, subject: LogSubject): Promise<void> {
  try {
    await recordScrapeOutcome(env.DB, { ...outcome, accountTag: await accountTag(env, accountId) });
  } catch (cause) {
    console.error(logLine(subject, "could not record the scrape outcome for the status page"), cause);
  }
}
