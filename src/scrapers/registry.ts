/** Which provider modules exist, and where each provider lives (real site, or a replica via PROVIDER_ORIGIN_*). */
import type { ScraperId } from "../params/scrape-params";
import { grokScraper } from "./grok";
import type { ScraperModule } from "./scraper-module";

type ScraperModules = { [Id in ScraperId]?: ScraperModule<Id> };

const SCRAPER_MODULES: ScraperModules = {
  grok: grokScraper,
};

export function scraperModule<Id extends ScraperId>(id: Id): ScraperModule<Id> | undefined {
  return (SCRAPER_MODULES as { [K in Id]?: ScraperModule<K> })[id];
}

const ORIGIN_VARIABLES = {
  chatgpt: "PROVIDER_ORIGIN_CHATGPT",
  perplexity: "PROVIDER_ORIGIN_PERPLEXITY",
  grok: "PROVIDER_ORIGIN_GROK",
  copilot: "PROVIDER_ORIGIN_COPILOT",
  gemini: "PROVIDER_ORIGIN_GEMINI",
  google_ai_mode: "PROVIDER_ORIGIN_GOOGLE_AI_MODE",
  amazon_rufus: "PROVIDER_ORIGIN_AMAZON_RUFUS",
} as const satisfies Record<ScraperId, keyof Env>;

/** The configured origin override, or the module's real site; never with a trailing slash. */
export function providerOrigin(env: Env, module: ScraperModule<ScraperId>): string {
  const override = env[ORIGIN_VARIABLES[module.id]].trim();
  return (override === "" ? module.defaultOrigin : override).replace(/\/+$/, "");
}
