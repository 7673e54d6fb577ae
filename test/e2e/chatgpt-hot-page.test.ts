/**
 * ChatGPT on a hot page (src/scrapers/chatgpt/navigate.ts) in real Chromium against the replica: a page already on the
 * home page, prepared the way the browser layer prepares the next scrape's page, gets the prompt typed into its
 * composer and sent; no deep link is loaded. Web search, which the typed page does not ask for (an empty
 * `system_hints`, or none at all on the older build), is added by the capture patch and verified on the wire. A hot page
 * that cannot send (its composer gone, a login modal over it) falls back to the deep link, as a fresh page starts.
 * Expected answers come from the replica's scenario data (replicas/chatgpt/expected.ts), not from the parser.
 */
import type { Page } from "@cloudflare/puppeteer";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { expectedChatgptFields } from "../../replicas/chatgpt/expected";
import { pickChatgptScenario } from "../../replicas/chatgpt/scenarios";
import { withScrapePage } from "../../src/browser/page-lease";
import { prepareHotPage } from "../../src/browser/hot-page";
import { CHATGPT_CAPTURE_RULES, captureChatgptExchange } from "../../src/scrapers/chatgpt/navigate";
import { chatgptProvider } from "../../src/scrapers/chatgpt";
import { parseChatgptCapture } from "../../src/scrapers/chatgpt/parse";
import { resolveOrigin } from "../../src/scrapers/registry";
import { serializeCaptureRules } from "../../src/browser/page/capture/capture";
import { replicaControl, replicaLayouts } from "../support/workers/helpers";

const ORIGIN = resolveOrigin(env, chatgptProvider, { prompt: "", country: "US", bypass_cache: true, timeout: 60 });
const HOME = `${ORIGIN}/`;
/** The replica's layouts (checked against the replica below). */
const LAYOUTS = ["anonymous", "signed-in", "legacy-build"];

afterEach(async () => {
  await replicaControl("reset", { provider: "chatgpt" });
});

/** The URL the page's current document was loaded from (a later `history.replaceState` does not change it). */
async function documentUrl(page: Page): Promise<string> {
  return String(await page.evaluate(`performance.getEntriesByType("navigation")[0]?.name ?? ""`));
}

const RECIPE = { rules: serializeCaptureRules(CHATGPT_CAPTURE_RULES), landing: HOME };

function lease() {
  return {
    country: "US",
    provider: "chatgpt",
    allowedDomains: ["127.0.0.1"],
    signal: AbortSignal.timeout(60_000),
    deadline: Date.now() + 60_000,
  };
}

/**
 * Runs the ChatGPT capture on a hot page (after `spoil`, if given), as the browser layer hands one over: a first lease
 * of the session prepares the next page on ChatGPT's home page (as a scrape does while it waits for its answer) and
 * disconnects; the next lease of the same session is given that page.
 */
async function scrapeOnHotPage(prompt: string, spoil?: (page: Page) => Promise<void>) {
  await withScrapePage(env, lease(), ({ page }) => prepareHotPage(page.browser(), "US", RECIPE, AbortSignal.timeout(30_000)));
  const request = lease();
  return withScrapePage(env, request, async (pageSession) => {
    const { page } = pageSession;
    expect(pageSession.hotPage.startedHot).toBe(true);
    if (spoil !== undefined) await spoil(page);
    const { exchange } = await captureChatgptExchange({
      pageSession,
      origin: ORIGIN,
      prompt,
      signal: request.signal,
      deadline: request.deadline,
    });
    return {
      exchange,
      loadedFrom: await documentUrl(page),
      body: JSON.parse(exchange.requestBody ?? "null") as Record<string, unknown>,
    };
  });
}

describe("chatgpt on a hot page", () => {
  it("covers every layout the replica serves", async () => {
    expect(await replicaLayouts("chatgpt")).toEqual(LAYOUTS);
  });

  for (const layout of LAYOUTS) {
    it(`${layout}: the prompt is typed into the waiting composer, no deep link is loaded, web search is asked for on the wire`, async () => {
      await replicaControl("layout", { provider: "chatgpt", layout });
      const prompt = `many-references typed on the ${layout} hot page`;
      const { exchange, loadedFrom, body } = await scrapeOnHotPage(prompt);
      expect(loadedFrom).toBe(HOME);
      expect(body.messages).toMatchObject([{ author: { role: "user" }, content: { parts: [prompt] } }]);
      // the typed page asked for no tool: the patch added the hint (legacy build: the field was absent)
      expect(body.system_hints).toEqual(["search"]);
      const { result_markdown, links, search_queries, llm_model } = expectedChatgptFields(pickChatgptScenario(prompt), prompt);
      expect(parseChatgptCapture(exchange)).toMatchObject({ result_markdown, links, search_queries, llm_model });
    });
  }

  it("a hot page whose composer is gone falls back to the deep link, which answers", async () => {
    const prompt = "default answer after a lost composer";
    const { exchange, loadedFrom, body } = await scrapeOnHotPage(prompt, async (page) => {
      await page.evaluate(`document.querySelectorAll("form.composer").forEach((form) => form.remove())`);
    });
    expect(new URL(loadedFrom).searchParams.get("q")).toBe(prompt);
    expect(body.messages).toMatchObject([{ content: { parts: [prompt] } }]);
    expect(body.system_hints).toEqual(["search"]);
    expect(parseChatgptCapture(exchange).result_markdown).toBe(expectedChatgptFields(pickChatgptScenario(prompt), prompt).result_markdown);
  });

  it("a hot page that grew a login modal while idle starts over from the deep link instead of failing", async () => {
    const prompt = "default answer after an idle modal";
    const { exchange, loadedFrom } = await scrapeOnHotPage(prompt, async (page) => {
      await page.evaluate(`(() => {
        const template = document.getElementById("login-modal-template");
        if (template instanceof HTMLTemplateElement) document.body.append(template.content.cloneNode(true));
      })()`);
    });
    expect(new URL(loadedFrom).searchParams.get("q")).toBe(prompt);
    expect(parseChatgptCapture(exchange).result_markdown).toBe(expectedChatgptFields(pickChatgptScenario(prompt), prompt).result_markdown);
  });
});

describe("chatgpt on fuzzed hot pages (issue 29): the typed path through hydration, controlled inputs, interruptions, decoys", () => {
  // The hot page is prepared long before it is used in production; waiting out the hydration window here makes the
  // scrape type on it (a page still hydrating falls back to the deep link, which the fuzzed e2e seeds cover).
  const HYDRATED_MS = 5_500;
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: typed and sent on the page, every field of the answer exact`, async () => {
      await replicaControl("variation", { provider: "chatgpt", seed });
      const prompt = `table-citations typed on fuzzed hot page ${seed}`;
      const { exchange, body } = await scrapeOnHotPage(prompt, (page) =>
        page.evaluate(`new Promise((r) => setTimeout(r, ${HYDRATED_MS}))`).then(() => undefined),
      );
      expect(body.messages).toMatchObject([{ author: { role: "user" }, content: { parts: [prompt] } }]);
      expect(body.system_hints).toContain("search");
      expect(parseChatgptCapture(exchange)).toEqual(expectedChatgptFields(pickChatgptScenario(prompt), prompt));
    }, 90_000);
  }
});
