import type { ScraperId } from "../params/scrape-params";
import {
  AmazonRufusResponseSchema,
  ChatgptResponseSchema,
  CopilotResponseSchema,
  GeminiResponseSchema,
  GoogleAiModeResponseSchema,
  GrokResponseSchema,
  PerplexityResponseSchema,
} from "./responses";

/** Each scraper's 200 body, for the OpenAPI document and the job result. */
export const SCRAPE_RESPONSE_SCHEMAS = {
  chatgpt: ChatgptResponseSchema,
  perplexity: PerplexityResponseSchema,
  grok: GrokResponseSchema,
  copilot: CopilotResponseSchema,
  gemini: GeminiResponseSchema,
  google_ai_mode: GoogleAiModeResponseSchema,
  amazon_rufus: AmazonRufusResponseSchema,
} as const satisfies Record<ScraperId, unknown>;
