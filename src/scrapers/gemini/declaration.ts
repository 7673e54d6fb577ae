/** Gemini's declarations (the search-company assistant, spec §2.6, §4.3): answer schema, domains, example. */
import { z } from "@hono/zod-openapi";

const GeminiCitationSchema = z.object({
  title: z.string().openapi({ description: "Title of the source card" }),
  url: z.string().openapi({ description: "The source's URL (Google redirects unwrapped, text fragments removed)" }),
  snippet: z.string().openapi({ description: "Text of the source card; empty when the card shows none" }),
  website_name: z.string().openapi({ description: "Site name shown on the citation chip" }),
  highlights: z.array(z.string()).openapi({ description: "Answer sentences or spans that carry a chip for this source" }),
});

export const GeminiAnswerSchema = z.object({
  result: z.string(),
  result_markdown: z.string().nullable(),
  citations: z.array(GeminiCitationSchema).openapi({ description: "One entry per distinct source, in order of its first chip" }),
  llm_model: z.string().nullable().openapi({ description: 'Model display name, e.g. "3.6 Flash"; null when the page does not say' }),
});

/** Hosts gemini.google.com's page loads and calls use (page, static assets, sign-in redirects, Google's /sorry page). */
export const GEMINI_DOMAINS = [
  "gemini.google.com",
  "www.gstatic.com",
  "ssl.gstatic.com",
  "fonts.gstatic.com",
  "fonts.googleapis.com",
  "lh3.googleusercontent.com",
  "accounts.google.com",
  "www.google.com",
  "apis.google.com",
  "play.google.com",
];

/** A full response for the docs (synthetic, abridged). */
export const GEMINI_EXAMPLE = {
  scraper: "gemini",
  status: "done",
  job_id: "6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f",
  prompt: "Who designed the Eiffel Tower?",
  country: "US",
  result:
    "The Eiffel Tower was designed by the engineering firm of Gustave Eiffel; Maurice Koechlin and Émile Nouguier drew the first plans.",
  result_markdown:
    "The Eiffel Tower was designed by the engineering firm of **Gustave Eiffel**; Maurice Koechlin and Émile Nouguier drew the first plans.",
  citations: [
    {
      title: "Eiffel Tower - Wikipedia",
      url: "https://en.wikipedia.org/wiki/Eiffel_Tower",
      snippet: "The tower is named after the engineer Gustave Eiffel, whose company designed and built the tower.",
      website_name: "Wikipedia",
      highlights: ["Maurice Koechlin and Émile Nouguier drew the first plans."],
    },
  ],
  llm_model: "3.6 Flash",
  credits_used: 3,
  elapsed_ms: 14250.5,
  cached: false,
  markdown_url: "https://api.example.com/md/6f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f.md",
  served_by: {
    country: "US",
    session: "anonymous",
    attempt: 1,
    hot_page: true,
    model_label: "3.6 Flash",
    scraper_version: "gemini/2026.11.1",
    from_cache: false,
  },
  evidence: null,
};
