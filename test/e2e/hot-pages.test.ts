/**
 * Hot pages end to end (issue 14; src/browser/hot-page.ts): real Chromium against the replicas. For every scraper that
 * marks its landing, the scrape after a first one starts on a page already on that landing: the replica sees ONE page
 * load per scrape (the next scrape's, prepared during the answer), where a scrape without a hot page makes two (its own
 * and the next one's). ChatGPT's own start is a deep link carrying the prompt; its hot page is on the home page, where
 * the prompt is typed instead. After the operator discards the prepared pages, the next scrape loads its own landing again.
 * The answers are checked as complete each time: on a hot page the capture hook, buffered until the scrape claimed it,
 * must still record the whole exchange (Copilot's WebSocket included), and the prompt is verified on the wire by the
 * scrapers themselves.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createTestAccount, discardPreparedPages, query, replicaControl, type TestAccount } from "../support/workers/helpers";

const LANDING_SCRAPERS = ["chatgpt", "grok", "perplexity", "copilot", "gemini", "amazon_rufus"] as const;

let account: TestAccount;

beforeAll(async () => {
  account = await createTestAccount(1500);
  await replicaControl("reset");
});

async function pageLoads(provider: string): Promise<number> {
  const state = (await (await fetch(`${env.REPLICA_URL}/__control/state`)).json()) as {
    providers: Record<string, { page_loads: number }>;
  };
  return state.providers[provider]?.page_loads ?? Number.NaN;
}

async function scrape(provider: string, prompt: string): Promise<{ status: number; result: string; cached: boolean }> {
  const response = await api(`/scrapers/${provider}?${query({ prompt, bypass_cache: "true", timeout: "60" })}`, {
    apiKey: account.apiKey,
  });
  const body = (await response.json()) as { result?: string; cached?: boolean; detail?: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { status: response.status, result: body.result ?? "", cached: body.cached ?? true };
}

describe("hot pages: the next scrape starts on the provider's landing page", () => {
  for (const provider of LANDING_SCRAPERS) {
    it(`${provider}: one page load per scrape on a hot page, two after the prepared pages are discarded`, async () => {
      // a first scrape (fresh or warm page) leaves a hot page behind
      const first = await scrape(provider, `hot pages first ${provider}`);
      expect(first.result.trim()).not.toBe("");

      const beforeHot = await pageLoads(provider);
      const hot = await scrape(provider, `hot pages second ${provider}`);
      expect(hot.cached).toBe(false);
      expect(hot.result.trim()).not.toBe("");
      // its own landing was skipped; the one load is the next scrape's page, prepared during this answer
      expect((await pageLoads(provider)) - beforeHot).toBe(1);

      await discardPreparedPages();
      const beforeFresh = await pageLoads(provider);
      const fresh = await scrape(provider, `hot pages third ${provider}`);
      expect(fresh.result.trim()).not.toBe("");
      expect((await pageLoads(provider)) - beforeFresh).toBe(2);
    });
  }
});
