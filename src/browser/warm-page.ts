/**
 * Warm pages: each scrape opens the next scrape's page (a new browser context with one blank page) while it waits for
 * its own answer, and leaves it in the session when it disconnects. Browser contexts outlive the CDP connection that
 * created them (puppeteer creates them without `disposeOnDetach`, and `puppeteer.connect` lists the existing ones), so
 * the next lease of the session finds it and skips the most expensive step of a scrape's start (~150 ms of
 * `Target.createBrowserContext` + `Target.createTarget` on this machine; docs/performance.md).
 *
 * Clean by construction: the page was never navigated, and a context is used by one scrape only, then closed. Whatever
 * else is found in the session (a context a crashed or timed-out scrape left behind) is closed, never used.
 *
 * Why during the answer and not after the response: the lease is handed back exactly when it is today (no background
 * work after the response, so nobody waits for a session that is busy preparing), and the answer wait is idle time.
 */
import type { Browser, Page } from "@cloudflare/puppeteer";
import { type ContextPage, openBlankPage } from "./session";

/**
 * The warm page left in this session by the previous scrape, when there is exactly one untouched blank page in a
 * context of its own; every other non-default context is closed.
 */
export async function takeWarmPage(browser: Browser): Promise<ContextPage | null> {
  let warm: ContextPage | null = null;
  for (const context of browser.browserContexts()) {
    if (context === browser.defaultBrowserContext()) continue;
    const pages = await context.pages().catch(() => []);
    const [page] = pages;
    if (warm === null && pages.length === 1 && page !== undefined && page.url() === "about:blank") warm = { context, page };
    else await context.close().catch(() => undefined);
  }
  return warm;
}

const answerWaitListeners = new WeakMap<Page, () => void>();

/** Runs `listener` (once) when the scrape on `page` starts waiting for its answer. */
export function whenAnswerWaitBegins(page: Page, listener: () => void): void {
  answerWaitListeners.set(page, listener);
}

/** Called by the capture layer when a provider starts waiting for the answer exchange. */
export function answerWaitBegins(page: Page): void {
  const listener = answerWaitListeners.get(page);
  answerWaitListeners.delete(page);
  listener?.();
}

/** Opens the next scrape's page in the background; resolves (never rejects) once it is there or could not be made. */
export function prepareWarmPage(browser: Browser): Promise<void> {
  return openBlankPage(browser).then(
    () => undefined,
    () => undefined,
  );
}
