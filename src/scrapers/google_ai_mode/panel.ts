/**
 * The "N sites" sources panel in the page (google_ai_mode.md §2: a button whose aria-label / text is "N sites" opens a
 * list, `[role="dialog"]` or a side panel). The folwr fragment usually carries the list (§3), but a page may build it
 * only once the button is clicked, load it on opening, or show its entries late and in batches: the button is found
 * by role and name, clicked until the list shows, and the entries are read once they stop arriving. What is read here
 * is raw (labels and hrefs as the page has them); the parser turns them into search results with the same rules as
 * the fragment's.
 */
import type { Page } from "@cloudflare/puppeteer";
import { z } from "@hono/zod-openapi";
import { ScraperDriftError } from "../../errors";
import type { Navigator, PageElement } from "../../browser/page/navigation/engine";
import { type PanelEntrySnapshot, PanelEntrySnapshotSchema } from "./parse";
import { PANEL_ON_PAGE } from "./selectors";

/** How long the "N sites" button may take to show once the answer is in (it renders with the answer, maybe later). */
const BUTTON_TIMEOUT_MS = 8_000;
/** When the fragment has no "N sites" button, one short look: the sheet puts it in the fragment. */
const NO_BUTTON_LOOK_MS = 1_000;
/** A click that shows nothing within this is repeated (a button not yet hydrated ignores clicks). */
const RECLICK_AFTER_MS = 3_500;
/** The list must show within this after the first click. */
const OPEN_TIMEOUT_MS = 14_000;
/** Entries have stopped arriving when their count holds this long (batches come a second or less apart)... */
const QUIET_MS = 1_600;
/** ...or this long once the count the button names is reached. */
const QUIET_AT_COUNT_MS = 300;
/** The whole read, after the list opened: entries may start 4 s later and arrive in batches. */
const ENTRIES_TIMEOUT_MS = 12_000;
const POLL_MS = 150;

const PanelOnPageSchema = z.object({
  labels: z.array(z.string()),
  expanded: z.boolean(),
  entries: z.array(PanelEntrySnapshotSchema),
});
type PanelOnPage = z.infer<typeof PanelOnPageSchema>;

/**
 * Opens the sources panel and returns its entries once they stop arriving; null when the page has no "N sites" button
 * (then the fragment is the only source). `fragmentHasButton` says whether the fragment carried the button.
 */
export async function readSourcesPanel(nav: Navigator, page: Page, fragmentHasButton: boolean): Promise<PanelEntrySnapshot[] | null> {
  const lookMs = Math.min(fragmentHasButton ? BUTTON_TIMEOUT_MS : NO_BUTTON_LOOK_MS, nav.remainingMs());
  let state = await pollState(nav, page, lookMs, (current) => current.labels.length > 0);
  if (state === null || state.labels.length === 0) return null;
  const button = await findSitesButton(nav, state.labels);
  if (button !== null) {
    const opened = await openPanel(nav, page, button);
    if (!opened) return (await panelState(page))?.entries ?? null;
  }
  state = await entriesSettled(nav, page, expectedCount(state.labels));
  return state?.entries ?? null;
}

/** The number the button's label names ("7 sites" → 7), when every such button names the same. */
function expectedCount(labels: readonly string[]): number | null {
  const counts = new Set(labels.map((label) => Number(/\d+/.exec(label)?.[0] ?? Number.NaN)));
  const [only] = [...counts];
  return counts.size === 1 && only !== undefined && Number.isInteger(only) && only > 0 ? only : null;
}

/** The button by role and accessible name; null when it cannot be told apart (an optional lookup falls back). */
async function findSitesButton(nav: Navigator, labels: readonly string[]): Promise<PageElement | null> {
  try {
    return await nav.findByRole({ roles: ["button"], name: labels }, { what: "sites_button", timeoutMs: 2_000, optional: true });
  } catch (error) {
    if (error instanceof ScraperDriftError) return null;
    throw error;
  }
}

/**
 * Clicks the button until the list shows (entries or the button expanded); the engine's click dismisses an
 * interruption that covers the button first. A click whose list shows nothing for RECLICK_AFTER_MS is repeated: a
 * button not yet hydrated ignores clicks, while a list that loads on opening may take seconds (so not sooner).
 */
async function openPanel(nav: Navigator, page: Page, button: PageElement): Promise<boolean> {
  const before = await panelState(page);
  // an expanded button or a list already in the page needs no click (a click would close it)
  if (before?.expanded === true) return true;
  const shown = async (): Promise<boolean> => {
    const state = await panelState(page);
    return state !== null && (state.expanded || state.entries.length > 0);
  };
  try {
    return await nav.clickUntil(button, shown, { what: "sites_list", timeoutMs: OPEN_TIMEOUT_MS, retryAfterMs: RECLICK_AFTER_MS });
  } catch (error) {
    // the button went away with the page's re-render and did not come back: the fragment's list stands
    if (error instanceof ScraperDriftError) return false;
    throw error;
  }
}

/** Waits until the entries stop arriving: a count above zero that holds (shorter once it reaches the named count). */
async function entriesSettled(nav: Navigator, page: Page, named: number | null): Promise<PanelOnPage | null> {
  const until = Date.now() + Math.min(ENTRIES_TIMEOUT_MS, nav.remainingMs());
  let last: PanelOnPage | null = null;
  let changedAt = Date.now();
  while (Date.now() < until) {
    nav.throwIfAborted();
    const state = await panelState(page);
    if (state !== null) {
      if (last === null || state.entries.length !== last.entries.length) changedAt = Date.now();
      last = state;
      const count = state.entries.length;
      const quiet = Date.now() - changedAt;
      if (count > 0 && (quiet >= QUIET_MS || (named !== null && count >= named && quiet >= QUIET_AT_COUNT_MS))) return state;
    }
    await sleep(POLL_MS);
  }
  return last;
}

async function pollState(
  nav: Navigator,
  page: Page,
  timeoutMs: number,
  done: (state: PanelOnPage) => boolean,
): Promise<PanelOnPage | null> {
  const until = Date.now() + Math.max(0, timeoutMs);
  let state: PanelOnPage | null = null;
  for (;;) {
    nav.throwIfAborted();
    state = await panelState(page);
    if ((state !== null && done(state)) || Date.now() >= until) return state;
    await sleep(POLL_MS);
  }
}

/** One read of the panel in the page; null when the page cannot answer (navigating, gone). */
async function panelState(page: Page): Promise<PanelOnPage | null> {
  const value: unknown = await page.evaluate(`(${PANEL_ON_PAGE})()`).catch(() => null);
  const parsed = PanelOnPageSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
