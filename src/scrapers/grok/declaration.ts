/** Grok's declarations (the social-network assistant, spec §2.2, §4.3): parameters, answer schema, origin, domains. */
import { z } from "@hono/zod-openapi";
import { modeParam } from "../../params/common-params";
import { ConversationSchema, SocialResultSchema, WebSourceSchema } from "../../schemas/responses";

export const GROK_MODES = ["MODEL_MODE_AUTO", "MODEL_MODE_FAST", "MODEL_MODE_EXPERT"] as const;
export const GrokModeSchema = z.enum(GROK_MODES);
export type GrokMode = z.infer<typeof GrokModeSchema>;

export const GROK_PARAMS = {
  mode: modeParam(
    GROK_MODES,
    "MODEL_MODE_AUTO",
    "Reasoning mode: AUTO (provider chooses), FAST (smaller model), EXPERT (deeper reasoning)",
  ),
};

/** What the Grok parser extracts from one captured exchange (everything of §2.2 that comes from the provider). */
export const GrokParsedAnswerSchema = z.object({
  result: z.string(),
  result_markdown: z.string().nullable(),
  web_sources: z.array(WebSourceSchema),
  social_results: z.array(SocialResultSchema),
  related_questions: z.array(z.string()),
  conversation: ConversationSchema.nullable(),
  llm_model: z.string().nullable().openapi({ description: "Model variant used, as <model_name>" }),
});
export type GrokAnswer = z.infer<typeof GrokParsedAnswerSchema>;

/** The scraper's answer: the parsed fields plus the mode used. */
export const GrokAnswerSchema = GrokParsedAnswerSchema.extend({
  mode: GrokModeSchema.openapi({ description: "Reasoning mode used" }),
});

/** Hosts grok.com's page loads and API calls use (page, static assets, auth redirects). */
export const GROK_DOMAINS = ["grok.com", "assets.grok.com", "x.ai", "accounts.x.ai", "challenges.cloudflare.com"];
