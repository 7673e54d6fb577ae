/** Grok's declarations (the social-network assistant, spec §2.2, §4.3): parameters, answer schema, origin, domains. */
import { z } from "@hono/zod-openapi";
import { modeParam } from "../../params/common-params";
import { ConversationSchema, SocialResultSchema, WebSourceSchema } from "../../schemas/responses";

export const GROK_MODES = ["MODEL_MODE_AUTO", "MODEL_MODE_FAST", "MODEL_MODE_EXPERT"] as const;
const GrokModeSchema = z.enum(GROK_MODES);
export type GrokMode = z.infer<typeof GrokModeSchema>;

export const GROK_PARAMS = {
  mode: modeParam(
    GROK_MODES,
    "MODEL_MODE_AUTO",
    "Reasoning mode: AUTO (provider chooses), FAST (smaller model), EXPERT (deeper reasoning)",
  ),
};

/** What the Grok parser extracts from one captured exchange (everything of §2.2 that comes from the provider). */
const GrokParsedAnswerSchema = z.object({
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

/** A full response for the API reference, in the style of real output (a web source without a preview, a cited X post). */
export const GROK_EXAMPLE = {
  scraper: "grok",
  status: "done",
  job_id: "16cde716-4d60-41df-bab5-d17236a7518e",
  prompt: "What is new with Starship?",
  country: "US",
  result:
    "Starship's latest flight test reached orbit and returned the booster to the launch tower[1]. SpaceX says the next flight " +
    "will try a ship catch[2].",
  result_markdown:
    "Starship's latest flight test reached orbit and returned the booster to the launch tower[1](https://en.wikipedia.org/wiki/SpaceX_Starship). " +
    "SpaceX says the next flight will try a **ship catch**[2](https://x.com/SpaceX/status/1890000000000000000).",
  web_sources: [
    {
      title: "SpaceX Starship - Wikipedia",
      url: "https://en.wikipedia.org/wiki/SpaceX_Starship",
      preview: "Starship is a two-stage, fully reusable super heavy-lift launch vehicle under development by SpaceX.",
    },
    { title: "Starship | SpaceX", url: "https://www.spacex.com/vehicles/starship/", preview: null },
  ],
  social_results: [
    {
      post_id: "1890000000000000000",
      user_name: "SpaceX",
      name: "SpaceX",
      text: "Starship is go for its next flight test. Next up: catching the ship.",
      view_count: 1250000,
      profile_image_url: "https://pbs.twimg.com/profile_images/1082744382585856001/rH_k3PtQ_normal.jpg",
      create_time: "2026-03-01T08:15:00.000+00:00",
    },
  ],
  related_questions: ["When is the next Starship launch?", "How does the tower catch work?"],
  conversation: {
    conversation_id: "6a1f0c2e-5b7d-4e8a-9c3f-2d4b6a8c0e1f",
    title: "What is new with Starship?",
    temporary: false,
    create_time: "2026-03-01T09:26:53.589+00:00",
    modify_time: "2026-03-01T09:26:55.102+00:00",
  },
  llm_model: "grok-4-fast",
  mode: "MODEL_MODE_FAST",
  credits_used: 3,
  elapsed_ms: 1299,
  cached: false,
  markdown_url: "https://api.example.com/md/16cde716-4d60-41df-bab5-d17236a7518e.md",
  served_by: {
    country: "US",
    session: "anonymous",
    attempt: 1,
    hot_page: true,
    model_label: "grok-4-fast",
    scraper_version: "grok/2026.11.1",
    from_cache: false,
  },
  evidence: null,
};
