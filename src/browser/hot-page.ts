/**
 * Hot pages: the next scrape's page, already on the provider's landing page with the capture hook in it, so a scrape
 * on a pooled session only types, sends and reads (issue 14; docs/performance.md, "Hot pages").
 *
 * A scrape says what its start looks like, in the `HotPageState` of its page session (src/browser/page/page-session.ts):
 * the capture rules it installs (`recordCaptureRules`, by the capture layer) and the landing page it opens first
 * (recorded by `skipsLanding`, which the navigation engine calls when a provider marks its first navigation as a
 * landing that does not depend on the prompt). While that scrape waits for its answer, the browser layer prepares the
 * next page the same way (`prepareHotPage`): a new browser context, localised, the capture hook installed before any
 * page script in BUFFERED mode, then the landing opened. The next lease of the session finds it (`inspectHotPage`) and
 * hands it to its scrape with the mark it read (the session then `startedHot`), whose capture layer claims the buffer
 * (`claimCapture`) and whose navigation engine then skips the landing's navigation (`skipsLanding`).
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

function rulesKey(rules: readonly SerializedRule[]): string {
  return JSON.stringify(rules);
}

/** What the hook of a hot page says of itself (read back from the page, which is not trusted: checked). */
const HotMarkSchema = HotHookMarkSchema.extend({ ready: z.boolean() });
export type HotMark = z.infer<typeof HotMarkSchema>;

/** What a hot page's bookkeeping touches of the page: one script to claim the hook's buffer. */
export interface ClaimablePage {
  evaluate(expression: string): Promise<unknown>;
}

/** The capture rules and landing a scrape started with: what the next scrape's hot page repeats. */
export interface HotPageRecipe {
  rules: readonly SerializedRule[];
  landing: string;
}

/**
 * How the scrape on one page started, and whether it started from a hot page: held by the scrape's page session,
 * written by its capture layer and navigation engine, read by the browser layer for the next page. A hot page goes
 * taken → claimed (its capture layer claimed the hook's buffer) → used (its landing navigation was skipped), or is
 * spoiled on the way (other rules, a failed claim, another landing): the scrape then opens its landing normally.
 */
export class HotPageState {
  private rules: readonly SerializedRule[] | null = null;
  private landing: string | null = null;
  private hotState: "taken" | "claimed" | "used" | "spoiled";

  /** `mark`: the hook's mark of the hot page this scrape was handed (`inspectHotPage`), or null for any other page. */
  constructor(
    private readonly page: ClaimablePage,
    private readonly mark: HotMark | null,
  ) {
    this.hotState = mark === null ? "spoiled" : "taken";
  }

  /** Whether the scrape started from a hot page (for the step timings). */
  get startedHot(): boolean {
    return this.mark !== null;
  }

  /** The capture layer installed these rules on the page (before its first navigation). */
  recordCaptureRules(rules: readonly SerializedRule[]): void {
    this.rules = rules;
  }

  /** The capture rules and landing to prepare the next page with, when this scrape had both. */
  recipe(): HotPageRecipe | null {
    if (this.rules === null || this.landing === null) return null;
    return { rules: this.rules, landing: this.landing };
  }

  /**
   * Called by the capture layer once its binding listens: on a hot page prepared with the same rules, the hook's
   * buffer is flushed to the binding (in order) and the hook streams from now on. A hot page with other rules, or whose
   * claim fails, is spoiled: the scrape then opens its landing normally (a new document, with this scrape's hook).
   */
  async claimCapture(rules: readonly SerializedRule[]): Promise<void> {
    if (this.mark === null || this.hotState !== "taken") return;
    if (this.mark.rulesKey !== rulesKey(rules)) {
      this.hotState = "spoiled";
      return;
    }
    const claimed: unknown = await this.page.evaluate(`window.${HOT_CLAIM}()`).catch(() => false);
    this.hotState = claimed === true ? "claimed" : "spoiled";
  }

  /**
   * Called by the navigation engine for a landing navigation (one that does not depend on the prompt or any other
   * per-request input besides what the URL says): true (skip it) when the page is a claimed hot page on that very
   * landing and this is the scrape's first landing. The first landing is recorded either way, for the next page.
   */
  skipsLanding(url: string): boolean {
    this.landing ??= url;
    if (this.mark === null || this.hotState !== "claimed") return false;
    if (this.mark.landing !== url) {
      this.hotState = "spoiled";
      return false;
    }
    this.hotState = "used";
    return true;
  }
}

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
