/**
 * The page lease: where scrapes get their pages. `withScrapePage` leases a session from the country's pool, connects,
 * hands `work` a clean localised page in its own browser context, wrapped in the scrape's page session
 * (src/browser/page/page-session.ts: its step log, hot-page state and answer-started signal), and afterwards closes the
 * context and disconnects (a healthy session stays open for the next scrape) or reports the session broken so the pool
 * replaces it.
 *
 * From the moment a lease is granted it is handed back on every path, including a deadline that passes while the
 * answer to `acquire` is on its way. A caller whose deadline passes while it waits tells the pool (`abandon`), so
 * its place in the queue, or a lease granted too late, goes to the next scrape at once.
 */
import type { Browser } from "@cloudflare/puppeteer";
import {
  BrowserUnreachableError,
  CapacityUnavailableError,
  PoolWarmingUpError,
  ServiceError,
  TooManyRequestsError,
  UpstreamError,
} from "../errors";
import { browserPoolStub } from "./browser-pool";
import { devtoolsBinding } from "./devtools-binding";
import type { AcquireResult } from "./pool-types";
import { classifyPageError, isBrowserCrash, type PageLossWatch, watchPageLoss } from "./page-loss";
import type { LeasedPageReport } from "./leased-page-report";
import { openLocalisedPage, puppeteer, type PageRequest } from "./session";
import { PageSession } from "./page/page-session";
import { StepLog, stepTimingsEnabled, writeStepLog } from "./page/step-timings";
import { type NextPage, prepareNextPage, takeWarmPage } from "./warm-page";
import { logLine, type LogSubject } from "../util/log-line";

/** Time a lease may outlive the caller's deadline (closing the page, handing the session back). */
const LEASE_GRACE_MS = 30_000;
/** How long after the deadline a wait that ended at it may take to see the caller's own timer fire. */
const DEADLINE_SLACK_MS = 250;
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
  /** A provider account's session goes into the page before the landing: such a scrape never starts hot. */
  signedIn?: boolean;
  /** Who the scrape's log lines are about (src/util/log-line.ts); omitted by tests driving a page directly. */
  logSubject?: LogSubject;
}

/**
 * How long a finished scrape still waits for the next scrape's page to be ready before it disconnects: an answer that
 * came faster than the landing loads costs at most this; the unfinished page is then closed by the next scrape.
 */
const NEXT_PAGE_GRACE_MS = 1_000;

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
    case "capacity_unavailable":
      return new CapacityUnavailableError(result.retryAfterSeconds);
    case "wait_timeout":
      return new UpstreamError("No browser session became free in time. Safe to retry.", { cause });
  }
}

export async function withScrapePage<T>(
  env: Env,
  request: ScrapePageRequest,
  work: (session: PageSession, report: LeasedPageReport) => Promise<T>,
): Promise<T> {
  const steps = new StepLog();
  let outcome: "ok" | "error" = "error";
  try {
    const result = await leaseAndUsePage(env, request, work, steps);
    outcome = "ok";
    return result;
  } finally {
    if (stepTimingsEnabled(env)) writeStepLog({ provider: request.provider, country: request.country, outcome }, steps, request.logSubject);
  }
}

async function leaseAndUsePage<T>(
  env: Env,
  request: ScrapePageRequest,
  work: (session: PageSession, report: LeasedPageReport) => Promise<T>,
  steps: StepLog,
): Promise<T> {
  const pool = browserPoolStub(env, request.country);
  for (let attempt = 1; ; attempt += 1) {
    request.signal.throwIfAborted();
    const leaseId = crypto.randomUUID();
    const remainingMs = Math.max(0, request.deadline - Date.now());
    // If the caller gives up while waiting, the pool hears of it now rather than when the wait would have ended.
    const giveUp = () => {
      pool
        .abandon(leaseId)
        .catch((error: unknown) => console.error(logLine(request.logSubject, "Could not give up a browser lease"), error));
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
      // The pool's wait ends at the caller's deadline, and so does the caller's own timer: whichever is seen first, the
      // caller's time-out is what happened (408), not an upstream failure.
      if (lease.reason === "wait_timeout") await abortedWithin(request.signal, request.deadline - Date.now() + DEADLINE_SLACK_MS);
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
    return await usePage(browser, request, lease.preparedPagesSince, work, release, steps);
  }
}

async function usePage<T>(
  browser: Browser,
  request: ScrapePageRequest,
  preparedSince: number,
  work: (session: PageSession, report: LeasedPageReport) => Promise<T>,
  release: (healthy: boolean) => Promise<void>,
  steps: StepLog,
): Promise<T> {
  let healthy = true;
  let nextPage: NextPage | null = null;
  let loss: PageLossWatch | null = null;
  const hot = request.signedIn !== true;
  try {
    const warm = await steps.time("take_warm_page", () => takeWarmPage(browser, { hot, preparedSince }));
    steps.warm = warm !== null;
    const { page, close } = await steps.time("open_page", () => openLocalisedPage(browser, request.country, warm));
    const session = new PageSession(page, { steps, hotMark: warm?.hotMark ?? null, logSubject: request.logSubject });
    steps.hot = session.hotPage.startedHot;
    const watch = watchPageLoss(page);
    loss = watch;
    session.whenAnswerRequestStarts(() => {
      nextPage = prepareNextPage(browser, request.country, session, { hot });
    });
    try {
      return await work(session, { country: request.country, signedIn: request.signedIn === true, hotPage: session.hotPage.startedHot });
    } finally {
      // the page closed from here on is this scrape's own doing
      watch.stop();
      // Sent, not waited for: the session's commands reach Chromium before the disconnect below, and Chromium disposes
      // the context whether or not the connection is still there to hear the reply (~10 ms a scrape's answer no longer
      // waits for). A context that survives anyway is closed by the next scrape on the session (takeWarmPage).
      void close();
      // normally long done: it started when this scrape's answer request did
      const next: NextPage | null = nextPage;
      if (next !== null) await steps.time("warm_page_ready", () => readyWithin(next, NEXT_PAGE_GRACE_MS));
    }
  } catch (error) {
    const failure = classifyPageError(error, { browserConnected: browser.connected, pageLost: loss?.pageLost ?? false });
    // Provider-level failures leave the browser fine; a dead connection or crash does not.
    healthy = browser.connected && !isBrowserCrash(failure);
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

/** Waits for the next page up to `graceMs`, then gives up on it (it is closed by the next scrape, never used). */
async function readyWithin(next: NextPage, graceMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), graceMs);
  });
  const outcome = await Promise.race([next.ready.then(() => "ready" as const), late]);
  clearTimeout(timer);
  if (outcome === "late") next.abandon();
}

/** Resolves once `signal` is aborted, or after `ms` (at least 0) when it is not. */
async function abortedWithin(signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, Math.max(0, ms));
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
