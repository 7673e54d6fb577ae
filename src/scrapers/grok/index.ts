import type { ScraperModule } from "../scraper-module";
import { captureGrokExchange } from "./navigate";
import { parseGrokCapture } from "./parse";

/** Hosts grok.com's page loads and API calls use (page, static assets, auth redirects). */
const GROK_DOMAINS = ["grok.com", "assets.grok.com", "x.ai", "accounts.x.ai", "challenges.cloudflare.com"];

export const grokScraper: ScraperModule<"grok"> = {
  id: "grok",
  defaultOrigin: "https://grok.com",
  allowedDomains(origin) {
    return [...new Set([new URL(origin).hostname, ...GROK_DOMAINS])];
  },
  async scrape({ page, origin, params, signal }) {
    const capture = await captureGrokExchange({ page, origin, prompt: params.prompt, mode: params.mode, signal });
    const answer = parseGrokCapture(capture);
    return { mode: params.mode, ...answer };
  },
};
