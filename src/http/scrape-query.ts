/** Reading a scrape request's query string with the provider's own schema (shared by the sync and job routes). */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { InvalidParameterError } from "../errors";
import { type ScrapeParams, describeValidationError, isCommonParams } from "../params/common-params";
import { type AnyProvider, acceptedParameterNames, querySchemaOf } from "../scrapers/registry";
import type { AppEnv } from "./app-env";

/**
 * The validated parameters of `provider` from the request's query string, or a 400 whose detail names the parameter:
 * unknown parameters are refused, and so is a repeated one (`prompt=a&prompt=b`), never silently picked.
 */
function readScrapeQuery(c: Context<AppEnv>, provider: AnyProvider): ScrapeParams {
  const raw = c.req.queries();
  const single: Record<string, string> = {};
  for (const [name, values] of Object.entries(raw)) {
    if (values.length > 1) throw new InvalidParameterError(`${name}: must be given once, not ${values.length} times`);
    const [value] = values;
    if (value !== undefined) single[name] = value;
  }
  const parsed = querySchemaOf(provider).safeParse(single);
  if (!parsed.success)
    throw new InvalidParameterError(describeValidationError(provider.id, acceptedParameterNames(provider), parsed.error));
  // The schema's static type cannot name a provider's own parameters, so its output is checked for the common ones.
  if (!isCommonParams(parsed.data)) throw new InvalidParameterError("Invalid parameters.");
  return parsed.data;
}

/** Validates the query before anything else (authentication included) and stores it as `c.var.scrapeParams`. */
export function validateScrapeQuery(provider: AnyProvider) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set("scrapeParams", readScrapeQuery(c, provider));
    await next();
  });
}

/** Documents the balance header every accepted scrape request carries. */
export const CREDITS_REMAINING_HEADER = {
  "X-Credits-Remaining": { schema: { type: "integer" as const }, description: "Balance after this request" },
};
