/**
 * The list of providers: adding one is its folder (src/scrapers/<id>/), its replica (replicas/<id>/) and one entry here.
 * Everything else (scraper ids, validation, routes, OpenAPI, origins, pools) derives from this list.
 */
import { amazonRufusProvider } from "./amazon_rufus";
import { chatgptProvider } from "./chatgpt";
import { copilotProvider } from "./copilot";
import { geminiProvider } from "./gemini";
import { googleAiModeProvider } from "./google_ai_mode";
import { grokProvider } from "./grok";
import { perplexityProvider } from "./perplexity";

export const PROVIDERS = [
  chatgptProvider,
  perplexityProvider,
  grokProvider,
  copilotProvider,
  geminiProvider,
  googleAiModeProvider,
  amazonRufusProvider,
] as const;
