import { type RequestOrigin, withRequestLog } from "../accounts/request-log";
import type { AuthenticatedKey } from "../auth/api-keys";
import { CREDITS_PER_REQUEST, refundCredits } from "../credits/ledger";
import { evidenceRequestFor } from "../evidence/account-evidence";
import type { EvidenceKind } from "../evidence/evidence-kinds";
import { BrowserHoldClock, recordRefundedBrowserTime } from "../limits/refunded-browser-time";
import { holdRequestSlot } from "../limits/request-slot";
import { requestSubject } from "../util/log-line";
import { chargeScrape } from "./charge";
import { runScrape } from "./pipeline";
import type { ScrapeRequest, ScrapeResponse } from "./scrape-request";

interface SyncScrapeOutcome {
  response: ScrapeResponse;
  creditsRemaining: number;
}

/**
 * A synchronous scrape as its surface asks for it: its log lines are named after the request (`origin`), and it keeps
 * the evidence it asked for (`X-Evidence`), or when it did not say (undefined) its account's default.
 */
type SyncScrapeRequest = Omit<ScrapeRequest, "logSubject" | "accountId" | "admitBrowserWork" | "evidence"> & {
  evidenceAsked?: readonly EvidenceKind[];
};

/**
 * A synchronous scrape: credits are reserved first and restored on any error (a refusal by the account's bound on
 * scrapes in flight included), so the caller pays only for a 200. The browser time a refunded scrape held is added
 * to the account's refunded browser time, which past its budget reduces the account's concurrency
 * (src/limits/refunded-browser-time.ts): a refund makes a failure free, not the capacity it held. Either way the
 * request lands in the account's request log (src/accounts/request-log.ts) after the response.
 */
export async function scrapeSynchronously(
  env: Env,
  request: SyncScrapeRequest,
  key: AuthenticatedKey,
  origin: RequestOrigin,
): Promise<SyncScrapeOutcome> {
  return withRequestLog(
    env.DB,
    origin,
    { accountId: key.accountId, keyId: key.keyId, kind: "sync", scraper: request.scraper, jobId: request.jobId, itemCount: null },
    () => chargedScrape(env, request, key, origin),
    () => ({ statusCode: 200, outcome: "done", credits: CREDITS_PER_REQUEST }),
  );
}

async function chargedScrape(
  env: Env,
  request: SyncScrapeRequest,
  key: AuthenticatedKey,
  origin: RequestOrigin,
): Promise<SyncScrapeOutcome> {
  // read before the charge: nothing to give back if it fails
  const { evidenceAsked, ...scrape } = request;
  const evidence = await evidenceRequestFor(env.DB, key.accountId, evidenceAsked);
  const charged = await chargeScrape(env, request.scraper, key, request.jobId);
  const logSubject = requestSubject(origin.requestId);
  const browserHold = new BrowserHoldClock();
  try {
    // The account comes from the key, whoever built the request: it scopes the cache and the pool's fair share.
    // Only browser work holds one of the account's request slots: cache hits and coalesced requests never wait for one.
    const admitBrowserWork = browserHold.admission(() => holdRequestSlot(env, key.accountId, request.params.timeout, logSubject));
    const response = await runScrape(
      env,
      { ...scrape, accountId: key.accountId, admitBrowserWork, logSubject, evidence },
      request.params.timeout,
    );
    return { response, creditsRemaining: charged.creditsRemaining };
  } catch (error) {
    const heldMs = browserHold.heldMs();
    await Promise.all([
      refundCredits(env.DB, charged.accountId, request.jobId, "sync scrape failed"),
      heldMs === null ? undefined : recordRefundedBrowserTime(env.DB, key.accountId, heldMs, logSubject),
    ]);
    throw error;
  }
}
