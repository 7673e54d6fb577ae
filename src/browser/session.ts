/**
 * Browser sessions from the Browser Rendering binding, and a clean, localised page per scrape.
 * Each scrape gets its own browser context (no cookies or storage shared with another scrape); the context and the
 * page are closed in `finally` whatever happens.
 */
import puppeteer, { type Browser, type BrowserContext, type Page, type WorkersLaunchOptions } from "@cloudflare/puppeteer";
import { localisationFor } from "./localisation";
import { browserLocationFor } from "./locations";

export interface PageRequest {
  country: string;
  allowedDomains: string[];
  signal: AbortSignal;
}

/** Launch options of a country's session: where it runs, how long it idles, which hosts it may reach. */
export function launchOptionsFor(country: string, allowedDomains: string[], keepAliveMs: number): WorkersLaunchOptions {
  const location = browserLocationFor(country) as WorkersLaunchOptions["location"] | undefined;
  return {
    ...(location === undefined ? {} : { location }),
    keep_alive: keepAliveMs,
    guardrails: { allowedDomains },
  };
}

/** A page in a browser context of its own, nothing else in that context. */
export interface ContextPage {
  context: BrowserContext;
  page: Page;
}

/** A new browser context with one blank page: what every scrape starts from. */
export async function openBlankPage(browser: Browser): Promise<ContextPage> {
  const context = await browser.createBrowserContext();
  try {
    return { context, page: await context.newPage() };
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The page a previous scrape on this session opened for the next one (src/browser/warm-page.ts), or a new one; then
 * localised for `country`. The localisation is applied on every connection, because Chromium drops a CDP session's
 * overrides (headers, timezone, locale, geolocation) when that session detaches.
 */
export async function openLocalisedPage(
  browser: Browser,
  country: string,
  warm: ContextPage | null = null,
): Promise<{ page: Page; close: () => Promise<void> }> {
  const localisation = localisationFor(country);
  const { context, page } = warm ?? (await openBlankPage(browser));
  const close = async () => {
    await context.close().catch(() => undefined);
  };
  try {
    const session = await page.createCDPSession();
    // independent overrides: one round trip for all of them
    await Promise.all([
      page.setExtraHTTPHeaders({ "Accept-Language": localisation.acceptLanguage }),
      page.emulateTimezone(localisation.timezone),
      session.send("Emulation.setLocaleOverride", { locale: localisation.locale }),
      localisation.geolocation === null ? Promise.resolve() : page.setGeolocation(localisation.geolocation),
      page.setViewport({ width: 1366, height: 900 }),
    ]);
    return { page, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export { puppeteer };
