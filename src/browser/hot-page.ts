/**
 * Hot pages: the next scrape's page, already on the provider's landing page with the capture hook in it, so a scrape
 * on a pooled session only types, sends and reads (issue 14; docs/performance.md, "Hot pages").
 *
 * A scrape says what its start looks like, in the `HotPageState` its page session holds
 * (src/browser/page/hot-page-state.ts, below this module: the page machinery never imports the browser layer): the
 * capture rules it installs (`recordCaptureRules`, by the capture layer) and the landing page it opens first (recorded
 * by `skipsLanding`, which the navigation engine calls when a provider marks its first navigation as a landing that
 * does not depend on the prompt). While that scrape waits for its answer, the browser layer prepares the next page the
 * same way (`prepareHotPage`): a new browser context, localised, the capture hook installed before any page script in
 * BUFFERED mode, then the landing opened. The next lease of the session finds it (`inspectHotPage`) and hands it to its
 * scrape with the mark it read (the session then `startedHot`), whose capture layer claims the buffer (`claimCapture`)
 * and whose navigation engine then skips the landing's navigation (`skipsLanding`).
 *
 * Why buffered: a CDP binding belongs to the connection that added it. Between two scrapes nobody is connected, and a
 * binding call then goes nowhere (verified on Chromium: the old function stays, its calls are dropped). So the hook
 * keeps what it sees (bounded) until a scrape's capture layer, connected and listening, claims it; from then on it
 * streams as on a fresh page. A page that navigated by itself meanwhile has no hook in its new document (the preparing
 * connection's new-document scripts are gone with it) and is not taken; neither is one that overflowed its buffer, is
 * older than HOT_PAGE_MAX_AGE_MS, or was left before its landing had loaded.
 *
 * The localisation (time zone, locale, Accept-Language, geolocation, viewport) is applied before the landing loads
 * and again when the next scrape connects: Chromium drops a connection's overrides when it disconnects, so only while
 * the page idles between two scrapes does it run without them (docs/performance.md says what that means).
 */
import type { Browser, Page } from "@cloudflare/puppeteer";
import { CAPTURE_HOT, captureHookSource } from "./page/capture/page-hook";
import { type HotMark, HotMarkSchema, type HotPageRecipe, rulesKey } from "./page/hot-page-state";
import { openLocalisedPage } from "./session";

const { mark: HOT_MARK, claim: HOT_CLAIM, overflow: HOT_OVERFLOW } = CAPTURE_HOT;

/** A hot page older than this is closed instead of used: a provider page idle for long may hold stale tokens. */
export const HOT_PAGE_MAX_AGE_MS = 120_000;

/**
 * Reads the mark a prepared page's hook left: null when the page has no claimable hook (not a hot page, or it
 * navigated by itself, or its buffer overflowed), when its landing had not loaded before the preparing connection
 * left, or when it is too old. `now` is passed for the age check.
 */
export async function inspectHotPage(page: Page, now: number): Promise<HotMark | null> {
  const raw: unknown = await page
    .evaluate(`(() => {
      const mark = window.${HOT_MARK};
      return mark && typeof window.${HOT_CLAIM} === "function" && !window.${HOT_OVERFLOW}
        ? { landing: mark.landing, rulesKey: mark.rulesKey, preparedAt: mark.preparedAt, ready: mark.ready === true }
        : null;
    })()`)
    .catch(() => null);
  const mark = HotMarkSchema.safeParse(raw);
  if (!mark.success || !mark.data.ready) return null;
  if (now - mark.data.preparedAt > HOT_PAGE_MAX_AGE_MS || mark.data.preparedAt > now) return null;
  return mark.data;
}

/**
 * Opens the next scrape's hot page in `browser`: a new context, localised for `country`, the capture hook (buffered)
 * before any page script, the landing loaded (DOM content loaded), then marked ready. Resolves (never rejects) once
 * it is there or could not be made; a page that could not be made is closed, or left unmarked for the next scrape to
 * close.
 */
export async function prepareHotPage(browser: Browser, country: string, recipe: HotPageRecipe, signal: AbortSignal): Promise<void> {
  const opened = await openLocalisedPage(browser, country).catch(() => null);
  if (opened === null) return;
  const { page, close } = opened;
  try {
    const preparedAt = Date.now();
    await page.evaluateOnNewDocument(
      captureHookSource(recipe.rules, { landing: recipe.landing, rulesKey: rulesKey(recipe.rules), preparedAt }),
    );
    signal.throwIfAborted();
    await page.goto(recipe.landing, { waitUntil: "domcontentloaded", timeout: HOT_PAGE_LOAD_TIMEOUT_MS });
    signal.throwIfAborted();
    await page.evaluate(`window.${HOT_MARK} && (window.${HOT_MARK}.ready = true)`);
  } catch {
    // a landing that failed to load (or a scrape that ended first) leaves nothing usable behind
    if (!signal.aborted) await close();
  }
}

/** A landing that takes longer than this to load is not worth keeping hot. */
const HOT_PAGE_LOAD_TIMEOUT_MS = 15_000;
