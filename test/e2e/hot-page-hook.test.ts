/**
 * The hot page's capture hook in real Chromium (src/browser/hot-page.ts), against the replica server's capture lab:
 * what the page exchanged before any scrape listened is kept and handed to the scrape that claims it, in order; a page
 * whose buffer overflowed, that is too old, or that was prepared with other capture rules is not used as it is.
 */
import type { Browser, Page } from "@cloudflare/puppeteer";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { withScrapePage } from "../../src/browser/page-lease";
import { HOT_PAGE_MAX_AGE_MS, inspectHotPage, prepareHotPage } from "../../src/browser/hot-page";
import { PageSession } from "../../src/browser/page/page-session";
import { serializeCaptureRules, startCapture } from "../../src/browser/page/capture/capture";
import type { CaptureRule } from "../../src/browser/page/capture/types";
import { decodeUtf8Chunks } from "../../src/scrapers/shared/decode/lines";

const LAB = `${env.REPLICA_URL}/__capture-lab/`;
const RULES: CaptureRule[] = [
  { name: "stream", url: /\/__capture-lab\/stream$/, transports: ["fetch", "xhr"] },
  { name: "socket", url: /\/__capture-lab\/ws$/, transports: ["websocket"] },
];

/** Prepares a hot page on the lab in `browser` and returns it (the new context's page). */
async function hotLabPage(browser: Browser): Promise<Page> {
  const before = new Set(browser.browserContexts());
  await prepareHotPage(browser, "US", { rules: serializeCaptureRules(RULES), landing: LAB }, AbortSignal.timeout(30_000));
  const context = browser.browserContexts().find((candidate) => !before.has(candidate));
  const [page] = (await context?.pages()) ?? [];
  if (page === undefined || page.url() !== LAB) throw new Error("no hot page was prepared");
  return page;
}

async function inSession(work: (browser: Browser) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  await withScrapePage(
    env,
    { country: "US", provider: "hot-page-lab", allowedDomains: ["127.0.0.1"], signal: controller.signal, deadline: Date.now() + 60_000 },
    ({ page }) => work(page.browser()),
  );
}

describe("a hot page's capture hook", () => {
  it("keeps what the page exchanged before a scrape listened, and hands it over in order when claimed", async () => {
    await inSession(async (browser) => {
      const hot = await hotLabPage(browser);
      try {
        // the page talks while nobody listens: the hook keeps it
        const pageSaw = await hot.evaluate(`labFetch(JSON.stringify({ kind: "chat", text: "before the claim" }))`);
        const mark = await inspectHotPage(hot, Date.now());
        expect(mark).toMatchObject({ landing: LAB, ready: true });
        if (mark === null) return;
        // the page as the browser layer hands it over: a session that starts hot with the mark read
        const session = new PageSession(hot, { hotMark: mark });
        const capture = await startCapture(session, RULES, "hot-page-lab");
        const kept = await capture.waitForExchange("stream", { signal: AbortSignal.timeout(5_000), startTimeoutMs: 1_000 });
        expect(JSON.parse(kept.requestBody ?? "null")).toEqual({ kind: "chat", text: "before the claim" });
        expect(kept.complete).toBe(true);
        expect(decodeUtf8Chunks(kept.chunks)).toBe(pageSaw);
        // claimed: later exchanges stream as on a fresh page
        await hot.evaluate(`labFetch(JSON.stringify({ kind: "chat", text: "after the claim" }))`);
        const later = await capture.waitForExchange("stream", { signal: AbortSignal.timeout(5_000), startTimeoutMs: 5_000, index: 1 });
        expect(JSON.parse(later.requestBody ?? "null")).toEqual({ kind: "chat", text: "after the claim" });
        // the landing is skipped once, for exactly that URL
        expect(session.hotPage.skipsLanding(LAB)).toBe(true);
        expect(session.hotPage.skipsLanding(LAB)).toBe(false);
      } finally {
        await hot.browserContext().close();
      }
    });
  });

  it("is not used when its buffer overflowed, when it is too old, or with other capture rules", async () => {
    await inSession(async (browser) => {
      const overflowed = await hotLabPage(browser);
      const other = await hotLabPage(browser);
      try {
        // 1,100 frames each way on one socket: more than the 2,000 messages a hot page keeps
        const echoed = await overflowed.evaluate(
          `labWebSocket(Array.from({ length: 1100 }, (_, i) => "frame " + i)).then((r) => r.length)`,
        );
        expect(echoed).toBe(1100);
        expect(await inspectHotPage(overflowed, Date.now())).toBeNull();

        const mark = await inspectHotPage(other, Date.now());
        expect(mark).not.toBeNull();
        if (mark === null) return;
        expect(await inspectHotPage(other, mark.preparedAt + HOT_PAGE_MAX_AGE_MS + 1)).toBeNull();
        // other rules: the hook is not claimed, so the scrape's landing is navigated as usual
        const session = new PageSession(other, { hotMark: mark });
        await startCapture(session, RULES.slice(1), "hot-page-lab");
        expect(session.hotPage.skipsLanding(LAB)).toBe(false);
      } finally {
        await overflowed.browserContext().close();
        await other.browserContext().close();
      }
    });
  });
});
