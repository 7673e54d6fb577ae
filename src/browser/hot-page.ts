/**
 * Hot pages: the next scrape's page, already on the provider's landing page with the capture hook in it, so a scrape
 * on a pooled session only types, sends and reads (issue 14; docs/performance.md, "Hot pages").
 *
 * A scrape says what its start looks like: the capture rules it installs (`recordCaptureRules`, by the capture layer)
 * and the landing page it opens first (`recordLanding`, by the navigation engine when a provider marks its first
 * navigation as a landing that does not depend on the prompt). While that scrape waits for its answer, the browser
 * layer prepares the next page the same way (`prepareHotPage`): a new browser context, localised, the capture hook
 * installed before any page script in BUFFERED mode, then the landing opened. The next lease of the session finds it
 * (`inspectHotPage`) and hands it to its scrape, whose capture layer claims the buffer (`claimHotCapture`) and whose
 * navigation engine then skips the landing's navigation (`skipsLanding`).
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
import { z } from "zod";
import { CAPTURE_HOT, captureHookSource, HotHookMarkSchema, type SerializedRule } from "./page/capture/page-hook";
import { openLocalisedPage } from "./session";

const { mark: HOT_MARK, claim: HOT_CLAIM, overflow: HOT_OVERFLOW } = CAPTURE_HOT;

/** A hot page older than this is closed instead of used: a provider page idle for long may hold stale tokens. */
export const HOT_PAGE_MAX_AGE_MS = 120_000;

/** How the scrape on a page started: what the next scrape's hot page repeats. */
interface PageStart {
  rules: readonly SerializedRule[] | null;
  landing: string | null;
}

const starts = new WeakMap<Page, PageStart>();

function startOf(page: Page): PageStart {
  const start = starts.get(page) ?? { rules: null, landing: null };
  starts.set(page, start);
  return start;
}

/** The capture layer installed these rules on `page` (before its first navigation). */
export function recordCaptureRules(page: Page, rules: readonly SerializedRule[]): void {
  startOf(page).rules = rules;
}

/**
 * The navigation engine opened `url` on `page` as the provider's landing page (one that does not depend on the prompt
 * or any other per-request input besides what the URL says). Only the first landing of a scrape counts.
 */
function recordLanding(page: Page, url: string): void {
  const start = startOf(page);
  start.landing ??= url;
}

/** The capture rules and landing to prepare the next page with, when this scrape had both. */
export function hotPageRecipe(page: Page): { rules: readonly SerializedRule[]; landing: string } | null {
  const start = starts.get(page);
  if (start?.rules == null || start.landing === null) return null;
  return { rules: start.rules, landing: start.landing };
}

function rulesKey(rules: readonly SerializedRule[]): string {
  return JSON.stringify(rules);
}

/** What the hook of a hot page says of itself (read back from the page, which is not trusted: checked). */
const HotMarkSchema = HotHookMarkSchema.extend({ ready: z.boolean() });
export type HotMark = z.infer<typeof HotMarkSchema>;

/** A hot page handed to a scrape: claimed by its capture layer, then its landing navigation is skipped once. */
interface TakenHotPage {
  mark: HotMark;
  state: "taken" | "claimed" | "used" | "spoiled";
}

const taken = new WeakMap<Page, TakenHotPage>();

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

/** `page` starts this scrape hot. */
export function adoptHotPage(page: Page, mark: HotMark): void {
  taken.set(page, { mark, state: "taken" });
}

/** Whether the scrape on `page` started from a hot page (for the step timings). */
export function isHotPage(page: Page): boolean {
  return taken.has(page);
}

/**
 * Called by the capture layer once its binding listens: on a hot page prepared with the same rules, the hook's buffer
 * is flushed to the binding (in order) and the hook streams from now on. A hot page with other rules, or whose claim
 * fails, is spoiled: the scrape then opens its landing normally (a new document, with this scrape's hook).
 */
export async function claimHotCapture(page: Page, rules: readonly SerializedRule[]): Promise<void> {
  const hot = taken.get(page);
  if (hot === undefined || hot.state !== "taken") return;
  if (hot.mark.rulesKey !== rulesKey(rules)) {
    hot.state = "spoiled";
    return;
  }
  const claimed: unknown = await page.evaluate(`window.${HOT_CLAIM}()`).catch(() => false);
  hot.state = claimed === true ? "claimed" : "spoiled";
}

/**
 * Called by the navigation engine for a landing navigation: true (skip it) when the page is a claimed hot page on that
 * very landing and this is the scrape's first landing; the landing is recorded either way, for the next page.
 */
export function skipsLanding(page: Page, url: string): boolean {
  recordLanding(page, url);
  const hot = taken.get(page);
  if (hot === undefined || hot.state !== "claimed") return false;
  if (hot.mark.landing !== url) {
    hot.state = "spoiled";
    return false;
  }
  hot.state = "used";
  return true;
}

/**
 * Opens the next scrape's hot page in `browser`: a new context, localised for `country`, the capture hook (buffered)
 * before any page script, the landing loaded (DOM content loaded), then marked ready. Resolves (never rejects) once
 * it is there or could not be made; a page that could not be made is closed, or left unmarked for the next scrape to
 * close.
 */
export async function prepareHotPage(
  browser: Browser,
  country: string,
  recipe: { rules: readonly SerializedRule[]; landing: string },
  signal: AbortSignal,
): Promise<void> {
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
