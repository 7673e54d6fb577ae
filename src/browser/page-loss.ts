/**
 * Whether a scrape failed because its browser or page went away, told from what puppeteer reports about the browser and
 * the page (the browser's `connected` state, the page's `close` and `error` events), never from an error's words.
 * @cloudflare/puppeteer does not type the error it rejects pending calls with when a target closes (TargetCloseError is
 * internal), and a ProtocolError is also what an ordinary failed command raises, so the error itself cannot say it.
 */
import type { Browser, Page } from "@cloudflare/puppeteer";
import { BrowserCrashedError, ServiceError, UpstreamError } from "../errors";

/** What was seen of the browser and the page while the scrape drove it. */
export interface PageHealth {
  /** The browser's connection is still open (puppeteer's `browser.connected`). */
  browserConnected: boolean;
  /** The page closed or its renderer crashed while it was driven. */
  pageLost: boolean;
}

/** Records whether the page closed or crashed until `stop` (called before the scrape closes the page itself). */
export interface PageLossWatch {
  readonly pageLost: boolean;
  stop(): void;
}

export function watchPageLoss(page: Page): PageLossWatch {
  let pageLost = false;
  let watching = true;
  const lose = (): void => {
    if (watching) pageLost = true;
  };
  page.once("close", lose);
  // puppeteer emits "error" on the page only when its renderer crashed (Inspector.targetCrashed)
  page.once("error", lose);
  return {
    get pageLost() {
      return pageLost;
    },
    stop() {
      watching = false;
      page.off("close", lose);
      page.off("error", lose);
    },
  };
}

/**
 * Turns an error thrown while a page was being driven into a client-safe one: ServiceErrors pass through (a crash seen
 * by the capture or navigation layer is already a BrowserCrashedError); a browser that disconnected or a page that
 * closed or crashed is a 502 "browser crashed" (the pool replaces the session); anything else is an upstream failure.
 */
export function classifyPageError(error: unknown, health: PageHealth): ServiceError {
  if (error instanceof ServiceError) return error;
  if (!health.browserConnected || health.pageLost) return new BrowserCrashedError(error);
  return new UpstreamError("The provider page could not be driven to an answer. Safe to retry.", { cause: error });
}

/** Browser crashes: the pool closes the session instead of handing it to the next scrape. */
export function isBrowserCrash(failure: ServiceError): boolean {
  return failure instanceof UpstreamError && failure.reason === "browser_crashed";
}
