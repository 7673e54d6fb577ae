/**
 * Browser health after a failed scrape (src/browser/page-loss.ts) is told from the browser's and the page's state, never
 * from an error's words: the same "Target closed" text is a crash only when the browser or the page did go away.
 */
import { describe, expect, it } from "vitest";
import { classifyPageError, isBrowserCrash } from "../../src/browser/page-loss";
import { BrowserCrashedError, ScraperDriftError, UpstreamError } from "../../src/errors";

const HEALTHY = { browserConnected: true, pageLost: false };

describe("page loss: what a failed scrape says about its browser", () => {
  it("keeps a browser whose page failed with crash-like words but is still there", () => {
    for (const words of ["Protocol error (Runtime.evaluate): Target closed", "Attempted to use detached Frame", "Page crashed!"]) {
      const failure = classifyPageError(new Error(words), HEALTHY);
      expect(failure).toBeInstanceOf(UpstreamError);
      expect(isBrowserCrash(failure)).toBe(false);
      expect(failure.code).toBe("upstream_error");
    }
  });

  it("replaces the session when the browser disconnected, whatever the error says", () => {
    const failure = classifyPageError(new Error("Navigation timeout of 30000 ms exceeded"), { browserConnected: false, pageLost: false });
    expect(isBrowserCrash(failure)).toBe(true);
    expect(failure.status).toBe(502);
    expect(failure.detail).toBe("The browser session crashed during the scrape. Safe to retry.");
  });

  it("replaces the session when the page closed or crashed while it was driven", () => {
    expect(isBrowserCrash(classifyPageError(new Error("anything"), { browserConnected: true, pageLost: true }))).toBe(true);
  });

  it("passes service errors through: a drift stays a drift, a crash seen by the navigator stays a crash", () => {
    const drift = new ScraperDriftError("grok", "composer_missing", "none of the anchors became visible");
    expect(classifyPageError(drift, { browserConnected: false, pageLost: true })).toBe(drift);
    const crashed = new BrowserCrashedError(new Error("the page closed during navigation"));
    expect(isBrowserCrash(classifyPageError(crashed, HEALTHY))).toBe(true);
  });
});
