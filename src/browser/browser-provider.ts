/**
 * Where scrapes get their pages. `withScrapePage` leases a session from the country's pool, connects, hands `work` a
 * clean localised page in its own browser context, and afterwards closes the context and disconnects (a healthy
 * session stays open for the next scrape) or reports the session broken so the pool replaces it.
 *
 * From the moment a lease is granted it is handed back on every path, including a deadline that passes while the
 * answer to `acquire` is on its way. A caller whose deadline passes while it waits tells the pool (`abandon`), so
 * its place in the queue, or a lease granted too late, goes to the next scrape at once.
 */
import type { Browser, Page } from "@cloudflare/puppeteer";
import { BrowserUnreachableError, PoolWarmingUpError, ServiceError, TooManyRequestsError, UpstreamError } from "../errors";
import { browserPoolStub } from "./browser-pool";
import { devtoolsBinding } from "./devtools-binding";
import type { AcquireResult } from "./pool-types";
import { classifyPageError, openLocalisedPage, puppeteer, type PageRequest } from "./session";
import { attachStepLog, StepLog, stepTimingsEnabled, writeStepLog } from "./step-timings";
import { prepareWarmPage, takeWarmPage, whenAnswerWaitBegins } from "./warm-page";

/** Time a lease may outlive the caller's deadline (closing the page, handing the session back). */
const LEASE_GRACE_MS = 30_000;
/** A stale session id (listed, but its browser is gone) is dropped and the acquisition tried once more. */
const CONNECT_ATTEMPTS = 2;

export const QUEUE_FULL_DETAIL = "The scraper queue is full for this country. Retry shortly.";
export const AT_CAPACITY_DETAIL = "Every browser session of the service is in use. Retry in a few seconds.";

export interface ScrapePageRequest extends PageRequest {
  /** The provider the page is for: sessions are partitioned per provider. */
  provider: string;
  /** The account the scrape is for: the pool shares its sessions fairly between accounts. Omitted for internal use. */
  accountId?: string;
  /** ms since epoch by which the scrape must be done. */
  deadline: number;
}

function acquisitionError(result: Extract<AcquireResult, { ok: false }>, cause?: unknown): ServiceError {
  switch (result.reason) {
    case "queue_full":
      return new TooManyRequestsError(QUEUE_FULL_DETAIL, result.retryAfterSeconds, "queue_full");
    case "warming_up":
      return new PoolWarmingUpError(result.retryAfterSeconds);
    case "at_capacity":
      return new ServiceError(503, AT_CAPACITY_DETAIL, {
        code: "at_capacity",
        retryable: true,
        retryAfterSeconds: result.retryAfterSeconds,
      });
    case "wait_timeout":
      return new UpstreamError("No browser session became free in time. Safe to retry.", { cause });
  }
}

export async function withScrapePage<T>(env: Env, request: ScrapePageRequest, work: (page: Page) => Promise<T>): Promise<T> {
  const steps = new StepLog();
  let outcome: "ok" | "error" = "error";
  try {
    const result = await leaseAndUsePage(env, request, work, steps);
    outcome = "ok";
    return result;
  } finally {
    if (stepTimingsEnabled(env)) writeStepLog({ provider: request.provider, country: request.country, outcome }, steps);
  }
}

async function leaseAndUsePage<T>(env: Env, request: ScrapePageRequest, work: (page: Page) => Promise<T>, steps: StepLog): Promise<T> {
  const pool = browserPoolStub(env, request.country);
  for (let attempt = 1; ; attempt += 1) {
    request.signal.throwIfAborted();
    const leaseId = crypto.randomUUID();
    const remainingMs = Math.max(0, request.deadline - Date.now());
    // If the caller gives up while waiting, the pool hears of it now rather than when the wait would have ended.
    const giveUp = () => {
      pool.abandon(leaseId).catch((error: unknown) => console.error("Could not give up a browser lease", error));
    };
    request.signal.addEventListener("abort", giveUp, { once: true });
    let lease: AcquireResult;
    try {
      lease = await steps.time(
        "lease",
        async (): Promise<AcquireResult> =>
          pool.acquire(request.country, {
            leaseId,
            accountId: request.accountId ?? "",
            provider: request.provider,
            allowedDomains: request.allowedDomains,
            waitMs: remainingMs,
            leaseMs: remainingMs + LEASE_GRACE_MS,
          }),
      );
    } finally {
      request.signal.removeEventListener("abort", giveUp);
    }
    if (!lease.ok) {
      request.signal.throwIfAborted();
      throw acquisitionError(lease);
    }
    const release = (healthy: boolean) => steps.time("release", () => pool.release(lease.sessionId, leaseId, healthy));
    if (request.signal.aborted) {
      // Granted just as the deadline passed: the session was never touched, so it goes back as it is.
      await release(true);
      request.signal.throwIfAborted();
    }

    let browser: Browser;
    try {
      browser = await steps.time("connect", () => puppeteer.connect(devtoolsBinding(env.BROWSER), lease.sessionId));
    } catch (error) {
      await release(false);
      if (attempt < CONNECT_ATTEMPTS) continue;
      throw new BrowserUnreachableError(error);
    }
    return await usePage(browser, request, work, release, steps);
  }
}

async function usePage<T>(
  browser: Browser,
  request: ScrapePageRequest,
  work: (page: Page) => Promise<T>,
  release: (healthy: boolean) => Promise<void>,
  steps: StepLog,
): Promise<T> {
  let healthy = true;
  let nextPage: Promise<void> | null = null;
  try {
    const warm = await steps.time("take_warm_page", () => takeWarmPage(browser));
    steps.warm = warm !== null;
    const { page, close } = await steps.time("open_page", () => openLocalisedPage(browser, request.country, warm));
    attachStepLog(page, steps);
    whenAnswerWaitBegins(page, () => {
      nextPage = prepareWarmPage(browser);
    });
    try {
      return await work(page);
    } finally {
      await steps.time("close_page", close);
      // normally long done: it started when this scrape began waiting for its answer
      if (nextPage !== null) await steps.time("warm_page_ready", () => nextPage ?? Promise.resolve());
    }
  } catch (error) {
    const failure = classifyPageError(error, browser);
    // Provider-level failures leave the browser fine; a dead connection or crash does not.
    healthy = browser.connected && !(failure instanceof UpstreamError && /crashed/.test(failure.detail));
    throw failure;
  } finally {
    if (healthy) {
      await steps.time("disconnect", () => browser.disconnect().catch(() => undefined));
    } else {
      await browser.close().catch(() => undefined);
    }
    await release(healthy);
  }
}
