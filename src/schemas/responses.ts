/**
 * Response shapes of spec §2, as zod schemas: the one source for the TypeScript types the parsers produce and for the
 * OpenAPI document. Provider parsers return the scraper-specific part; the pipeline adds the common part (§2.1).
 */
import { z } from "@hono/zod-openapi";
import { GROK_MODES } from "../params/scrape-params";

export const ErrorBodySchema = z
  .object({ detail: z.string().openapi({ example: "prompt: must be 1 to 4000 characters and not blank" }) })
  .openapi("Error");

/** §2.1: fields every scraper's 200 response carries. */
export const CommonScrapeFieldsSchema = z.object({
  scraper: z.string().openapi({ description: "Identifier of the scraper that handled the request", example: "grok" }),
  status: z.literal("done"),
  job_id: z.string().openapi({ description: "Unique identifier of the job (UUIDv4)" }),
  prompt: z.string(),
  country: z.string().openapi({ description: "Country the request was routed through", example: "US" }),
  result: z.string().openapi({ description: "Plain-text reply" }),
  result_markdown: z.string().nullable().openapi({ description: "Markdown-formatted reply" }),
  credits_used: z.number().int().openapi({ example: 3 }),
  elapsed_ms: z.number().openapi({ description: "End-to-end duration in milliseconds" }),
  cached: z.boolean().openapi({ description: "true if served from cache" }),
  markdown_url: z.string().nullable().openapi({ description: "Hosted markdown of this response; expires after 24 hours" }),
});
export type CommonScrapeFields = z.infer<typeof CommonScrapeFieldsSchema>;

/** §2.3 */
export const WebSourceSchema = z
  .object({
    title: z.string(),
    url: z.string().openapi({ format: "uri" }),
    preview: z.string().nullable(),
  })
  .openapi("WebSource");
export type WebSource = z.infer<typeof WebSourceSchema>;

/** §2.4 */
export const SocialResultSchema = z
  .object({
    post_id: z.string(),
    user_name: z.string().openapi({ description: "Author handle without the leading @" }),
    name: z.string(),
    text: z.string(),
    view_count: z.number().int(),
    profile_image_url: z.string().nullable(),
    create_time: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("SocialResult");
export type SocialResult = z.infer<typeof SocialResultSchema>;

/** §2.5 */
export const ConversationSchema = z
  .object({
    conversation_id: z.string(),
    title: z.string().nullable(),
    temporary: z.boolean(),
    create_time: z.string().nullable().openapi({ format: "date-time" }),
    modify_time: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("Conversation");
export type Conversation = z.infer<typeof ConversationSchema>;

export const GrokModeSchema = z.enum(GROK_MODES);
export type GrokMode = z.infer<typeof GrokModeSchema>;

/** What the Grok parser extracts from one captured exchange (everything of §2.2 that comes from the provider). */
export const GrokAnswerSchema = z.object({
  result: z.string(),
  result_markdown: z.string().nullable(),
  web_sources: z.array(WebSourceSchema),
  social_results: z.array(SocialResultSchema),
  related_questions: z.array(z.string()),
  conversation: ConversationSchema.nullable(),
  llm_model: z.string().nullable().openapi({ description: "Model variant used, as <model_name>" }),
});
export type GrokAnswer = z.infer<typeof GrokAnswerSchema>;

/** §2.2: the social-network assistant's full response. */
export const GrokResponseSchema = CommonScrapeFieldsSchema.extend({ mode: GrokModeSchema })
  .extend(GrokAnswerSchema.shape)
  .openapi("GrokResponse");
export type GrokResponse = z.infer<typeof GrokResponseSchema>;

/** §2.6: the other scrapers' documented fields (their modules add exactly these). */
export const ChatgptResponseSchema = CommonScrapeFieldsSchema.extend({
  links: z.array(z.object({ text: z.string(), url: z.string() })),
  search_queries: z.array(z.string()),
  llm_model: z.string().nullable(),
  result_markdown_json: z
    .array(z.record(z.string(), z.unknown()))
    .optional()
    .openapi({ description: "markdown-it token tree; only with markdown_json=true" }),
}).openapi("ChatgptResponse");

export const PerplexityResponseSchema = CommonScrapeFieldsSchema.extend({
  sources: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
  related_questions: z.array(z.string()),
}).openapi("PerplexityResponse");

export const CopilotResponseSchema = CommonScrapeFieldsSchema.extend({
  mode: z.string(),
  citations: z.array(z.object({ title: z.string(), url: z.string() })),
  links: z.array(z.string()),
}).openapi("CopilotResponse");

export const GeminiResponseSchema = CommonScrapeFieldsSchema.extend({
  citations: z.array(
    z.object({ title: z.string(), url: z.string(), snippet: z.string(), website_name: z.string(), highlights: z.array(z.string()) }),
  ),
  llm_model: z.string().nullable(),
}).openapi("GeminiResponse");

export const GoogleAiModeResponseSchema = CommonScrapeFieldsSchema.extend({
  citations: z.array(z.object({ title: z.string(), url: z.string(), website_name: z.string() })),
  search_results: z.array(z.object({ title: z.string(), url: z.string() })),
}).openapi("GoogleAiModeResponse");

export const AmazonRufusResponseSchema = CommonScrapeFieldsSchema.extend({
  products: z.array(
    z.object({ asin: z.string(), title: z.string(), rating: z.string(), reviews: z.string(), url: z.string(), footer: z.string() }),
  ),
  related_questions: z.array(z.string()),
}).openapi("AmazonRufusResponse");

/** §2.7 */
export const JobSubmittedSchema = z
  .object({ job_id: z.string().openapi({ format: "uuid" }), status: z.literal("pending") })
  .openapi("JobSubmitted");

export const JobStatusSchema = z
  .object({
    job_id: z.string().openapi({ format: "uuid" }),
    status: z.enum(["pending", "done", "failed"]),
    scraper: z.string(),
    result: z.record(z.string(), z.unknown()).optional().openapi({ description: "The full scrape response; present when done" }),
    error: z.string().optional().openapi({ description: "Present when failed" }),
    created_at: z.string().openapi({ format: "date-time" }),
    completed_at: z.string().nullable().openapi({ format: "date-time", description: "null while pending" }),
    attempts: z.number().int().openapi({ description: "Scrape attempts started so far (at most 4)" }),
  })
  .openapi("JobStatus");
