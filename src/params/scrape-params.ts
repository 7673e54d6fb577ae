/**
 * Query parameters of the scrape endpoints (spec §4.1, §4.3), as zod schemas: the one source for validation and for
 * the OpenAPI document. Every message is phrased so that `"<parameter>: <message>"` reads as a complete `detail`.
 */
import { z } from "@hono/zod-openapi";
import { ISO_COUNTRY_CODES } from "./countries";

export const SCRAPER_IDS = ["chatgpt", "perplexity", "grok", "copilot", "gemini", "google_ai_mode", "amazon_rufus"] as const;
export type ScraperId = (typeof SCRAPER_IDS)[number];

/** Scrapers whose providers refuse Japan and Taiwan (spec §4.1). */
const COUNTRIES_REFUSED: Partial<Record<ScraperId, readonly string[]>> = {
  grok: ["JP", "TW"],
  gemini: ["JP", "TW"],
  copilot: ["JP", "TW"],
  google_ai_mode: ["JP", "TW"],
};

const BOOLEAN_WORDS: Readonly<Record<string, boolean>> = {
  true: true,
  "1": true,
  yes: true,
  on: true,
  false: false,
  "0": false,
  no: false,
  off: false,
};

const requiredString = (message: string) => z.string({ error: (issue) => (issue.input === undefined ? "is required" : message) });

function booleanParam(name: string, defaultValue: boolean, description: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return defaultValue;
      const value = BOOLEAN_WORDS[raw.trim().toLowerCase()];
      if (value === undefined) {
        ctx.addIssue({ code: "custom", message: "must be a boolean: true/false, 1/0, yes/no or on/off" });
        return z.NEVER;
      }
      return value;
    })
    .openapi({ param: { name, in: "query" }, type: "boolean", default: defaultValue, description });
}

const promptParam = requiredString("must be 1 to 4000 characters and not blank")
  .max(4000, { error: "must be 1 to 4000 characters and not blank" })
  .refine((prompt) => prompt.trim().length > 0, { error: "must be 1 to 4000 characters and not blank" })
  .openapi({
    param: { name: "prompt", in: "query", required: true },
    description: "The prompt to submit (1 to 4,000 characters, not blank)",
    example: "What are people saying about the new Falcon launch?",
  });

function countryParam(scraper: ScraperId) {
  const refused = COUNTRIES_REFUSED[scraper] ?? [];
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const code = (raw ?? "US").trim().toUpperCase();
      if (code.length !== 2) {
        ctx.addIssue({ code: "custom", message: "must be exactly 2 characters (an ISO 3166-1 alpha-2 code such as US or DE)" });
        return z.NEVER;
      }
      if (!ISO_COUNTRY_CODES.has(code)) {
        ctx.addIssue({ code: "custom", message: `${code} is not an assigned ISO 3166-1 alpha-2 country code` });
        return z.NEVER;
      }
      if (refused.includes(code)) {
        ctx.addIssue({ code: "custom", message: `${code} is not supported by the ${scraper} scraper` });
        return z.NEVER;
      }
      return code;
    })
    .openapi({
      param: { name: "country", in: "query" },
      type: "string",
      default: "US",
      description:
        "ISO 3166-1 alpha-2 country the request is routed through (case-insensitive)" +
        (refused.length > 0 ? `; ${refused.join(" and ")} are not supported by this scraper` : ""),
      example: "US",
    });
}

const timeoutParam = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined) return 300;
    const seconds = raw.trim() === "" ? Number.NaN : Number(raw);
    if (!Number.isFinite(seconds) || seconds < 10 || seconds > 600) {
      ctx.addIssue({ code: "custom", message: "must be a number of seconds from 10 to 600" });
      return z.NEVER;
    }
    return seconds;
  })
  .openapi({
    param: { name: "timeout", in: "query" },
    type: "number",
    default: 300,
    minimum: 10,
    maximum: 600,
    description: "Seconds to wait for the scrape (per attempt for jobs)",
  });

const apiKeyParam = z
  .string()
  .optional()
  .openapi({ param: { name: "api_key", in: "query" }, description: "API key, when the X-API-Key header is not used" });

function commonShape(scraper: ScraperId) {
  return {
    prompt: promptParam,
    country: countryParam(scraper),
    bypass_cache: booleanParam("bypass_cache", false, "true skips the response cache; credits are still charged"),
    timeout: timeoutParam,
    api_key: apiKeyParam,
  };
}

function modeParam<const Modes extends readonly [string, ...string[]]>(modes: Modes, defaultMode: Modes[number], description: string) {
  return z
    .enum(modes, { error: `must be one of ${modes.join(", ")}` })
    .optional()
    .transform((mode) => mode ?? defaultMode)
    .openapi({ param: { name: "mode", in: "query" }, type: "string", enum: [...modes], default: defaultMode, description });
}

export const GROK_MODES = ["MODEL_MODE_AUTO", "MODEL_MODE_FAST", "MODEL_MODE_EXPERT"] as const;
export const COPILOT_MODES = ["search", "smart", "chat", "reasoning", "study"] as const;

const scraperSpecificShapes = {
  chatgpt: {
    markdown_json: booleanParam("markdown_json", false, "true adds result_markdown_json, the markdown-it token tree of the reply"),
  },
  perplexity: {
    web_search: booleanParam("web_search", true, "true searches the web before answering; false answers from trained knowledge only"),
  },
  grok: {
    mode: modeParam(
      GROK_MODES,
      "MODEL_MODE_AUTO",
      "Reasoning mode: AUTO (provider chooses), FAST (smaller model), EXPERT (deeper reasoning)",
    ),
  },
  copilot: {
    mode: modeParam(COPILOT_MODES, "search", "search (web-grounded), smart, chat, reasoning or study"),
  },
  gemini: {},
  google_ai_mode: {},
  amazon_rufus: {},
} as const satisfies Record<ScraperId, Record<string, z.ZodType>>;

function scrapeParamsSchema<const Id extends ScraperId>(scraper: Id) {
  return z.strictObject({ ...commonShape(scraper), ...scraperSpecificShapes[scraper] });
}

export const SCRAPE_PARAMS = {
  chatgpt: scrapeParamsSchema("chatgpt"),
  perplexity: scrapeParamsSchema("perplexity"),
  grok: scrapeParamsSchema("grok"),
  copilot: scrapeParamsSchema("copilot"),
  gemini: scrapeParamsSchema("gemini"),
  google_ai_mode: scrapeParamsSchema("google_ai_mode"),
  amazon_rufus: scrapeParamsSchema("amazon_rufus"),
} as const;

export type ScrapeParams<Id extends ScraperId> = z.output<(typeof SCRAPE_PARAMS)[Id]>;
export type AnyScrapeParams = ScrapeParams<ScraperId>;

/** Names a scraper accepts, for the "unknown parameter" message. */
export function acceptedParameterNames(scraper: ScraperId): string[] {
  return [...Object.keys(commonShape(scraper)), ...Object.keys(scraperSpecificShapes[scraper])];
}

/** Parameters that change the answer, i.e. everything but the transport ones; the cache key is built from these. */
export function answerDefiningParams(params: AnyScrapeParams): Record<string, unknown> {
  const { api_key: _apiKey, bypass_cache: _bypass, timeout: _timeout, ...rest } = params;
  return rest;
}

/** The part of a ZodError that a `detail` is made from. */
export interface ValidationIssues {
  issues: readonly z.core.$ZodIssue[];
}

/**
 * Turns a failed validation into one `detail` naming the parameter and the rule, e.g.
 * "prompt: must be 1 to 4000 characters and not blank" or "Unknown parameter: foo. The grok scraper accepts ...".
 */
export function describeValidationError(scraper: ScraperId, error: ValidationIssues): string {
  const issue = error.issues[0];
  if (issue === undefined) return "Invalid parameters.";
  if (issue.code === "unrecognized_keys") {
    const noun = issue.keys.length === 1 ? "Unknown parameter" : "Unknown parameters";
    return `${noun}: ${issue.keys.join(", ")}. The ${scraper} scraper accepts: ${acceptedParameterNames(scraper).join(", ")}.`;
  }
  const name = issue.path.map(String).join(".");
  return name === "" ? issue.message : `${name}: ${issue.message}`;
}
