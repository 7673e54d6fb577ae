/**
 * Warm pages: each scrape prepares the next scrape's page while it waits for its own answer, and leaves it in the
 * session when it disconnects. Browser contexts outlive the CDP connection that created them (puppeteer creates them
 * without `disposeOnDetach`, and `puppeteer.connect` lists the existing ones), so the next lease of the session finds
 * it and skips the most expensive steps of a scrape's start: ~150 ms of `Target.createBrowserContext` +
 * `Target.createTarget` for a blank page, and the landing's navigation too for a hot page (src/browser/hot-page.ts),
 * which is what a scrape whose provider marked its landing gets (docs/performance.md).
 *
 * Clean by construction: a context is used by one scrape only, then closed; a blank page was never navigated, a hot
 * page only loaded the provider's landing, as the scrape would have. Whatever else is found in the session (a context
 * a crashed or timed-out scrape left behind, a hot page too old, prepared before an operator discarded them, or left
 * unfinished) is closed, never used.
 *
 * Why during the answer and not after the response: the lease is handed back exactly when it is today (no background
 * work after the response, so nobody waits for a session that is busy preparing), and the answer wait is idle time.
 * Why once the answer request has started, not as soon as the scrape waits: until then the provider's page is still
 * working (a session it opens, a socket, a token), and a page being prepared beside it on 2 cores slowed that down
 * (Copilot's socket took ~40 ms to open instead of ~12; docs/performance.md, round 5).
 */
import type { Browser } from "@cloudflare/puppeteer";
import { inspectHotPage, prepareHotPage } from "./hot-page";
import type { HotMark } from "./page/hot-page-state";
import type { PageSession } from "./page/page-session";
import { type ContextPage, openBlankPage } from "./session";

export interface WarmPageOptions {
  /** Whether a hot page may be used (not for a signed-in scrape: its cookies must be in place before the landing). */
  hot: boolean;
  /** Pages prepared before this (ms since epoch) are closed: an operator discarded them (the pool says when). */
  preparedSince: number;
}

/** A warm page, with the mark its hook left when it is a hot page (the scrape's page session starts hot then). */
export interface WarmPage extends ContextPage {
  hotMark: HotMark | null;
}

/**
 * The warm page left in this session by the previous scrape: a context of its own with exactly one page, either never
 * navigated (blank) or a usable hot page. Every other non-default context is closed.
 */
export async function takeWarmPage(browser: Browser, options: WarmPageOptions): Promise<WarmPage | null> {
  const now = Date.now();
  let warm: WarmPage | null = null;
  for (const context of browser.browserContexts()) {
    if (context === browser.defaultBrowserContext()) continue;
    const pages = await context.pages().catch(() => []);
    const [page] = pages;
    if (warm === null && pages.length === 1 && page !== undefined) {
      if (page.url() === "about:blank") {
        warm = { context, page, hotMark: null };
        continue;
      }
      const mark = options.hot ? await inspectHotPage(page, now) : null;
      if (mark !== null && mark.preparedAt >= options.preparedSince) {
        warm = { context, page, hotMark: mark };
        continue;
      }
    }
    await context.close().catch(() => undefined);
  }
  return warm;
}

/** The next scrape's page, being prepared; `abandon` stops waiting for it (what was not finished is not used). */
export interface NextPage {
  ready: Promise<void>;
  abandon(): void;
}

/**
 * Opens the next scrape's page in the background: hot when the scrape of `current` recorded a landing and capture
 * rules and `hot` allows it, else blank. `ready` never rejects.
 */
export function prepareNextPage(browser: Browser, country: string, current: PageSession, options: { hot: boolean }): NextPage {
  const controller = new AbortController();
  const recipe = options.hot ? current.hotPage.recipe() : null;
  const ready =
    recipe === null
      ? openBlankPage(browser).then(
          () => undefined,
          () => undefined,
        )
      : prepareHotPage(browser, country, recipe, controller.signal);
  return { ready, abandon: () => controller.abort() };
}
