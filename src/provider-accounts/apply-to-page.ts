/**
 * Puts a stored session into a scrape's page before the provider's module opens the site: the cookies into the page's
 * browser context (its own, closed after the scrape, so a session never leaks into another scrape), and the
 * localStorage items into every document of their origin before the site's scripts run.
 */
import type { CookieParam, Page } from "@cloudflare/puppeteer";
import type { SessionCookie, StorageState } from "./storage-state";

/** A cookie without a domain belongs to the scrape's origin (a replica locally, the real site in live mode). */
function cookieParam(cookie: SessionCookie, origin: string): CookieParam {
  return {
    name: cookie.name,
    value: cookie.value,
    ...(cookie.domain === undefined ? { url: `${origin}/` } : { domain: cookie.domain }),
    path: cookie.path ?? "/",
    // an expiry in the past makes the browser drop the cookie: the site then sees the session as expired, as it would
    ...(cookie.expires !== undefined && cookie.expires > 0 ? { expires: cookie.expires } : {}),
    ...(cookie.httpOnly === undefined ? {} : { httpOnly: cookie.httpOnly }),
    ...(cookie.secure === undefined ? {} : { secure: cookie.secure }),
    ...(cookie.sameSite === undefined ? {} : { sameSite: cookie.sameSite }),
  };
}

/**
 * The page script that seeds localStorage: only items the origin does not hold yet, so what the site itself writes
 * during the scrape (a refreshed token) wins on later documents.
 */
function localStorageSeed(origins: StorageState["origins"]): string {
  const byOrigin = Object.fromEntries(origins.map((entry) => [entry.origin, entry.localStorage.map((item) => [item.name, item.value])]));
  return `(() => {
  const items = ${JSON.stringify(byOrigin)}[location.origin];
  if (!items) return;
  try {
    for (const [name, value] of items) if (localStorage.getItem(name) === null) localStorage.setItem(name, value);
  } catch {}
})();`;
}

export async function applySessionToPage(page: Page, session: StorageState, origin: string): Promise<void> {
  if (session.cookies.length > 0) await page.setCookie(...session.cookies.map((cookie) => cookieParam(cookie, origin)));
  if (session.origins.length > 0) await page.evaluateOnNewDocument(localStorageSeed(session.origins));
}
