/**
 * Query parameters shared by every scraper endpoint (spec §4.1) and the builders providers use for their own (§4.3),
 * as zod schemas: the one source for validation and for the OpenAPI document. Every message is phrased so that
 * `"<parameter>: <message>"` reads as a complete `detail`.
 */
import { z } from "@hono/zod-openapi";
import { ISO_COUNTRY_CODES, type ProviderCountries } from "./countries";
import { integerQueryParam } from "./integer-param";

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

export function booleanParam(name: string, defaultValue: boolean, description: string) {
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

function countryParam(scraper: string, countries: ProviderCountries) {
  const refused = countries.refused ?? [];
  const allowed = countries.allowed;
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
      if (allowed !== undefined && !allowed.includes(code)) {
        ctx.addIssue({ code: "custom", message: `${code} ${countries.allowedReason ?? `is not supported by the ${scraper} scraper`}` });
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
        (refused.length > 0 ? `; ${refused.join(" and ")} are not supported by this scraper` : "") +
        (allowed !== undefined ? `; one of ${allowed.join(", ")}` : ""),
      example: "US",
    });
}

/** Whole seconds in plain digits (`60`, not `6e1`, `0x3c` or `60.0`): see integer-param.ts. */
const timeoutParam = integerQueryParam({
  name: "timeout",
  min: 10,
  max: 600,
  defaultValue: 300,
  noun: "a number of seconds",
  description: "Whole seconds to wait for the scrape (per attempt for jobs), in digits",
});

const apiKeyParam = z
  .string()
  .optional()
  .openapi({ param: { name: "api_key", in: "query" }, description: "API key, when the X-API-Key header is not used" });

/** The parameters every scraper accepts (spec §4.1), with the scraper's country rules. */
export function commonParamShape(scraper: string, countries: ProviderCountries = {}) {
  return {
    prompt: promptParam,
    country: countryParam(scraper, countries),
    bypass_cache: booleanParam("bypass_cache", false, "true skips the response cache; credits are still charged"),
    timeout: timeoutParam,
    api_key: apiKeyParam,
  };
}

export function modeParam<const Modes extends readonly [string, ...string[]]>(
  modes: Modes,
  defaultMode: Modes[number],
  description: string,
) {
  return z
    .enum(modes, { error: `must be one of ${modes.join(", ")}` })
    .optional()
    .transform((mode) => mode ?? defaultMode)
    .openapi({ param: { name: "mode", in: "query" }, type: "string", enum: [...modes], default: defaultMode, description });
}

export type CommonParamShape = ReturnType<typeof commonParamShape>;
/** A provider's own query parameters: a zod schema per parameter name. */
export type ProviderParamShape = Record<string, z.ZodType>;
/** The common parameters after validation (what every provider's params include). */
export type CommonParams = z.output<z.ZodObject<CommonParamShape>>;
/** A scraper's validated parameters: the common ones plus its own (kept in job records and cache keys). */
export type ScrapeParams = CommonParams & { readonly [name: string]: unknown };

/** Whether a validated parameter object carries the common parameters with their types (a runtime check for typing). */
export function isCommonParams(value: Record<string, unknown>): value is ScrapeParams {
  return (
    typeof value.prompt === "string" &&
    typeof value.country === "string" &&
    typeof value.bypass_cache === "boolean" &&
    typeof value.timeout === "number" &&
    (value.api_key === undefined || typeof value.api_key === "string")
  );
}

/** Parameters that change the answer, i.e. everything but the transport ones; the cache key is built from these. */
export function answerDefiningParams(params: ScrapeParams): Record<string, unknown> {
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
export function describeValidationError(scraper: string, accepted: readonly string[], error: ValidationIssues): string {
  const issue = error.issues[0];
  if (issue === undefined) return "Invalid parameters.";
  if (issue.code === "unrecognized_keys") {
    const noun = issue.keys.length === 1 ? "Unknown parameter" : "Unknown parameters";
    return `${noun}: ${issue.keys.join(", ")}. The ${scraper} scraper accepts: ${accepted.join(", ")}.`;
  }
  const name = issue.path.map(String).join(".");
  return name === "" ? issue.message : `${name}: ${issue.message}`;
}
