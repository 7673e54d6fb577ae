/** ChatGPT's declarations (the chat assistant, spec §2.6, §4.3): parameters, answer schema and the domains its page uses. */
import { z } from "@hono/zod-openapi";
import { booleanParam } from "../../params/common-params";

export const CHATGPT_PARAMS = {
  markdown_json: booleanParam("markdown_json", false, "true adds result_markdown_json, the markdown-it token tree of the reply"),
};

const LinkSchema = z.object({
  text: z.string().openapi({ description: "Link text (a citation's source name)" }),
  url: z.string().openapi({ description: "Absolute URL, without the utm_source=chatgpt.com parameter ChatGPT adds" }),
});

/** What the parser extracts from the captured conversation stream. */
const ChatgptParsedAnswerSchema = z.object({
  result: z.string(),
  result_markdown: z.string().nullable(),
  links: z.array(LinkSchema).openapi({ description: "Every hyperlink of the reply in order: citations and ordinary links" }),
  search_queries: z.array(z.string()).openapi({ description: "The web searches ChatGPT ran, in order, without repeats" }),
  llm_model: z.string().nullable().openapi({ description: "Model slug that answered, e.g. gpt-5-2026-10-14" }),
});
export type ChatgptParsedAnswer = z.infer<typeof ChatgptParsedAnswerSchema>;

/** The scraper's answer: the parsed fields plus, only with markdown_json=true, the token tree. */
export const ChatgptAnswerSchema = ChatgptParsedAnswerSchema.extend({
  result_markdown_json: z.array(z.record(z.string(), z.unknown())).optional().openapi({
    description: "markdown-it token tree of result_markdown (every Token field, children included); only with markdown_json=true",
  }),
});

/** Hosts chatgpt.com's page loads and API calls use (page, static assets, auth redirects, Cloudflare challenges). */
export const CHATGPT_DOMAINS = ["chatgpt.com", "cdn.oaistatic.com", "ab.chatgpt.com", "auth.openai.com", "challenges.cloudflare.com"];
