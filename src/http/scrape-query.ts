/** What the sync and the job-submission routes of a scraper share: their query schema and its validation hook. */
import { InvalidParameterError } from "../errors";
import { SCRAPE_PARAMS, describeValidationError, type ScraperId, type ValidationIssues } from "../params/scrape-params";

/**
 * zod-openapi cannot infer a route from a union of seven schemas, so routes are typed through one of them; the schema
 * used at run time is the scraper's own, and handlers read its output only as AnyScrapeParams (the shared fields).
 */
type QueryTypingSchema = (typeof SCRAPE_PARAMS)["grok"];

export function scrapeQuerySchema(scraper: ScraperId): QueryTypingSchema {
  return SCRAPE_PARAMS[scraper] as unknown as QueryTypingSchema;
}

/** Turns a failed validation into a 400 whose detail names the parameter. */
export function scrapeValidationHook(scraper: ScraperId) {
  return (result: { success: boolean; error?: ValidationIssues }): undefined => {
    if (!result.success && result.error !== undefined) throw new InvalidParameterError(describeValidationError(scraper, result.error));
    return undefined;
  };
}

/** Documents the balance header every accepted scrape request carries. */
export const CREDITS_REMAINING_HEADER = {
  "X-Credits-Remaining": { schema: { type: "integer" as const }, description: "Balance after this request" },
};
