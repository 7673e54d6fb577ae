/** Google AI Mode's declarations (the AI search mode, spec §2.6, §4.3): answer schema, search locale, origin, domains. */
import { z } from "@hono/zod-openapi";

export const GOOGLE_AI_MODE_ID = "google_ai_mode";

const CitationSchema = z
  .object({
    title: z.string().openapi({ description: "Title of the cited page" }),
    url: z.string().openapi({ description: "URL of the cited page (Google redirects unwrapped, #:~:text= fragments removed)" }),
    website_name: z.string().openapi({ description: "Name of the site (its hostname when Google gives none)" }),
  })
  .openapi("GoogleAiModeCitation");

const SearchResultSchema = z
  .object({
    title: z.string().openapi({ description: "Title of the page" }),
    url: z.string().openapi({ description: "URL of the page" }),
  })
  .openapi("GoogleAiModeSearchResult");

/** The answer fields of spec §2.6 ("AI search mode"), all read from the `/async/folwr` fragment. */
export const GoogleAiModeAnswerSchema = z.object({
  result: z.string(),
  result_markdown: z.string().nullable(),
  citations: z.array(CitationSchema).openapi({ description: "Sources cited inline, in order of first citation, without duplicates" }),
  search_results: z
    .array(SearchResultSchema)
    .openapi({ description: 'Every entry of the answer\'s "N sites" panel, in order; empty when there is none' }),
});
export type GoogleAiModeAnswer = z.infer<typeof GoogleAiModeAnswerSchema>;

/** `hl` / `gl` of the markets in the team table (google_ai_mode.md §1); other countries: English with their region. */
const SEARCH_LOCALES: Readonly<Record<string, { hl: string; gl: string }>> = {
  US: { hl: "en", gl: "us" },
  GB: { hl: "en", gl: "gb" },
  DE: { hl: "de", gl: "de" },
  FR: { hl: "fr", gl: "fr" },
  IT: { hl: "it", gl: "it" },
  ES: { hl: "es", gl: "es" },
  CA: { hl: "en", gl: "ca" },
  IN: { hl: "en", gl: "in" },
  AU: { hl: "en", gl: "au" },
  MX: { hl: "es", gl: "mx" },
  BR: { hl: "pt-BR", gl: "br" },
  NL: { hl: "nl", gl: "nl" },
};

/** The search language and region Google gets for a country (the API refuses JP and TW before this). */
export function searchLocaleOf(country: string): { hl: string; gl: string } {
  return SEARCH_LOCALES[country] ?? { hl: "en", gl: country.toLowerCase() };
}

/** Hosts the page and its redirects use: the search origin, static assets, the EU consent interstitial, sign-in. */
export const GOOGLE_AI_MODE_DOMAINS = [
  "www.google.com",
  "www.gstatic.com",
  "ssl.gstatic.com",
  "encrypted-tbn0.gstatic.com",
  "consent.google.com",
  // a sign-in redirect must land to be recognised as a login wall (blocked, it would look like a network failure)
  "accounts.google.com",
];

/** A full response for the docs (abridged answer). */
export const GOOGLE_AI_MODE_EXAMPLE = {
  scraper: "google_ai_mode",
  status: "done",
  job_id: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
  prompt: "How long is a day on Mars?",
  country: "US",
  result: "A day on Mars (a sol) lasts about 24 hours and 37 minutes.\n\n- Sidereal day: 24 h 37 min\n- Solar day: 24 h 39 min",
  result_markdown: "A day on Mars (a sol) lasts about 24 hours and 37 minutes.\n\n- Sidereal day: 24 h 37 min\n- Solar day: 24 h 39 min",
  citations: [{ title: "Mars Facts - NASA Science", url: "https://science.nasa.gov/mars/facts/", website_name: "NASA Science" }],
  search_results: [
    { title: "Mars Facts - NASA Science", url: "https://science.nasa.gov/mars/facts/" },
    { title: "Mars - Wikipedia", url: "https://en.wikipedia.org/wiki/Mars" },
  ],
  credits_used: 3,
  elapsed_ms: 9421.7,
  cached: false,
  markdown_url: "https://api.example.com/md/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f.md",
  served_by: {
    country: "US",
    session: "anonymous",
    attempt: 1,
    hot_page: true,
    model_label: null,
    scraper_version: "google_ai_mode/2026.11.1",
    from_cache: false,
  },
  evidence: null,
};
