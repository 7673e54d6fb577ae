/**
 * Where scrapes get their pages. `withScrapePage` leases a session from the country's pool, connects, hands `work` a
 * clean localised page in its own browser context, and afterwards closes the context and disconnects (a healthy
 * session stays open for the next scrape) or reports the session broken so the pool replaces it.
 */
import type { Browser, Page } from "@cloudflare/puppeteer";
import { BrowserUnreachableError, PoolWarmingUpError, type ServiceError, TooManyRequestsError, UpstreamError } from "../errors";
import { browserPoolStub } from "./browser-pool";
import type { AcquireResult } from "./pool-types";
import { classifyPageError, openLocalisedPage, puppeteer, type PageRequest } from "./session";

/** Time a lease may outlive the caller's deadline (closing the page, handing the session back). */
const LEASE_GRACE_MS = 30_000;
/** A stale session id (listed, but its browser is gone) is dropped and the acquisition tried once more. */
const CONNECT_ATTEMPTS = 2;

export const QUEUE_FULL_DETAIL = "The scraper queue is full for this country. Retry shortly.";

export interface ScrapePageRequest extends PageRequest {
  /** The provider the page is for: sessions are partitioned per provider. */
  provider: string;
  /** ms since epoch by which the scrape must be done. */
  deadline: number;
}

function acquisitionError(result: Extract<AcquireResult, { ok: false }>, cause?: unknown): ServiceError {
  switch (result.reason) {
    case "queue_full":
      return new TooManyRequestsError(QUEUE_FULL_DETAIL, result.retryAfterSeconds);
    case "warming_up":
      return new PoolWarmingUpError(result.retryAfterSeconds);
    case "wait_timeout":
      return new UpstreamError("No browser session became free in time. Safe to retry.", { cause });
  }
}

export async function withScrapePage<T>(env: Env, request: ScrapePageRequest, work: (page: Page) => Promise<T>): Promise<T> {
  const pool = browserPoolStub(env, request.country);
  for (let attempt = 1; ; attempt += 1) {
    const remainingMs = Math.max(0, request.deadline - Date.now());
    const lease = (await pool.acquire(request.country, {
      provider: request.provider,
      allowedDomains: request.allowedDomains,
      waitMs: remainingMs,
      leaseMs: remainingMs + LEASE_GRACE_MS,
    })) as AcquireResult;
    if (!lease.ok) throw acquisitionError(lease);
    request.signal.throwIfAborted();

    let browser: Browser;
    try {
      browser = await puppeteer.connect(env.BROWSER, lease.sessionId);
    } catch (error) {
      await pool.release(lease.sessionId, false);
      if (attempt < CONNECT_ATTEMPTS) continue;
      throw new BrowserUnreachableError(error);
    }
    return await usePage(browser, request, work, (healthy) => pool.release(lease.sessionId, healthy));
  }
}

async function usePage<T>(
  browser: Browser,
  request: ScrapePageRequest,
  work: (page: Page) => Promise<T>,
  release: (healthy: boolean) => Promise<void>,
): Promise<T> {
  let healthy = true;
  try {
    const { page, close } = await openLocalisedPage(browser, request.country);
    try {
      return await work(page);
    } finally {
      await close();
    }
  } catch (error) {
    const failure = classifyPageError(error, browser);
    // Provider-level failures leave the browser fine; a dead connection or crash does not.
    healthy = browser.connected && !(failure instanceof UpstreamError && /crashed/.test(failure.detail));
    throw failure;
  } finally {
    if (healthy) {
      await browser.disconnect().catch(() => undefined);
    } else {
      await browser.close().catch(() => undefined);
    }
    await release(healthy);
  }
}
