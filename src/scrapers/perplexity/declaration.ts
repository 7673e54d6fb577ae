/** Perplexity's declarations (the answer engine, spec §2.6, §4.3): parameters, answer schema, origin, domains. */
import { z } from "@hono/zod-openapi";
import { booleanParam } from "../../params/common-params";

export const PERPLEXITY_PARAMS = {
  web_search: booleanParam("web_search", true, "true searches the web before answering; false answers from trained knowledge only"),
};

const PerplexitySourceSchema = z.object({
  title: z.string().openapi({ description: "Title of the cited page" }),
  url: z.string().openapi({ description: "Absolute URL of the cited page" }),
  snippet: z.string().openapi({ description: 'Excerpt Perplexity showed for the page ("" when it sent none)' }),
});
export type PerplexitySource = z.infer<typeof PerplexitySourceSchema>;

/** The answer fields (spec §2.6 answer engine): `[n]` markers in the markdown are 1-based indexes into `sources`. */
export const PerplexityAnswerSchema = z.object({
  result: z.string(),
  result_markdown: z.string().nullable(),
  sources: z.array(PerplexitySourceSchema).openapi({ description: "Web sources in citation order; [] when web_search=false" }),
  related_questions: z.array(z.string()).openapi({ description: "Suggested follow-up questions (may be empty)" }),
});
export type PerplexityAnswer = z.infer<typeof PerplexityAnswerSchema>;

/** Hosts perplexity.ai's page loads and API calls use (page, static assets, Cloudflare's challenge). */
export const PERPLEXITY_DOMAINS = [
  "www.perplexity.ai",
  "perplexity.ai",
  "pplx-next-static-public.perplexity.ai",
  "challenges.cloudflare.com",
];
