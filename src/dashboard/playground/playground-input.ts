/**
 * The playground's input: read from its form (or from a prefilled link), turned into the scraper's query string, and
 * validated by the scraper's own query schema, exactly as `GET /scrapers/{scraper}` validates it.
 *
 * Form field names: the common parameters by their API names (`prompt`, `country`, `bypass_cache`, `timeout`); a
 * scraper's own parameters as `<scraper>.<name>` (`grok.mode`, `copilot.mode`), because two scrapers may declare the
 * same name with different values; `key_id` and `run` for the key and the way to run; `evidence_<kind>` ("true") for
 * each evidence kind the run keeps (none checked: the account's default applies, as for a request without `X-Evidence`).
 */
import { InvalidParameterError } from "../../errors";
import { EVIDENCE_KINDS, type EvidenceKind } from "../../evidence/evidence-kinds";
import { describeValidationError, isCommonParams, type ScrapeParams } from "../../params/common-params";
import { acceptedParameterNames, providerById, querySchemaOf } from "../../scrapers/registry";
import { type PlaygroundScraper, playgroundScraper, playgroundScrapers } from "./scraper-forms";

export type RunMode = "sync" | "job";

/**
 * Sent by the form itself: a checkbox it does not send is then "off". A prefilled link carries no marker, and a
 * parameter it leaves out keeps its default.
 */
export const FORM_MARKER_FIELD = "form";
export const FORM_MARKER_VALUE = "playground";

export interface PlaygroundInput {
  scraper: PlaygroundScraper;
  prompt: string;
  country: string;
  bypassCache: boolean;
  /** Seconds as typed; "" means the API's default. */
  timeout: string;
  /** The chosen scraper's own parameters by API name; booleans as "true" / "false". */
  own: Readonly<Record<string, string>>;
  keyId: string;
  run: RunMode;
  /** The evidence kinds chosen for the run; empty: the account's default applies (no `X-Evidence`). */
  evidence: readonly EvidenceKind[];
}

export function evidenceFieldName(kind: EvidenceKind): string {
  return `evidence_${kind}`;
}

/** What the run asks for, as `scrapeSynchronously` and `submitJob` take it: undefined lets the account's default apply. */
export function evidenceAsked(input: PlaygroundInput): readonly EvidenceKind[] | undefined {
  return input.evidence.length === 0 ? undefined : input.evidence;
}

export function ownFieldName(scraperId: string, name: string): string {
  return `${scraperId}.${name}`;
}

/** The input a set of form fields (or a prefilled link's query) describes; unknown or missing values become defaults. */
export function readPlaygroundInput(fields: Readonly<Record<string, string>>): PlaygroundInput {
  const [firstScraper] = playgroundScrapers();
  const scraper = playgroundScraper(fields.scraper ?? "") ?? firstScraper;
  if (scraper === undefined) throw new Error("No scraper is declared");
  const fromForm = fields[FORM_MARKER_FIELD] === FORM_MARKER_VALUE;
  const own: Record<string, string> = {};
  for (const field of scraper.own) {
    const value = fields[ownFieldName(scraper.id, field.name)];
    if (field.kind === "boolean") {
      own[field.name] = value === undefined ? (fromForm ? "false" : field.defaultValue) : value === "true" ? "true" : "false";
    } else {
      own[field.name] = value?.trim() || field.defaultValue;
    }
  }
  return {
    scraper,
    prompt: fields.prompt ?? "",
    country: (fields.country ?? "").trim().toUpperCase() || scraper.common.country.defaultValue,
    bypassCache: fields.bypass_cache === "true",
    timeout: (fields.timeout ?? "").trim(),
    own,
    keyId: fields.key_id ?? "",
    run: fields.run === "job" ? "job" : "sync",
    evidence: EVIDENCE_KINDS.filter((kind) => fields[evidenceFieldName(kind)] === "true"),
  };
}

/**
 * The query string the input stands for, as ordered pairs: the prompt first, then every parameter whose value is
 * not the API's default (what a person would write by hand; the defaults apply either way).
 */
export function queryPairs(input: PlaygroundInput): Array<[string, string]> {
  const { common } = input.scraper;
  const pairs: Array<[string, string]> = [["prompt", input.prompt]];
  if (input.country !== common.country.defaultValue) pairs.push(["country", input.country]);
  for (const field of input.scraper.own) {
    const value = input.own[field.name] ?? field.defaultValue;
    if (value !== field.defaultValue) pairs.push([field.name, value]);
  }
  if (input.bypassCache) pairs.push(["bypass_cache", "true"]);
  if (input.timeout !== "" && input.timeout !== common.timeout.defaultValue) pairs.push(["timeout", input.timeout]);
  return pairs;
}

/** The validated parameters of the input, or an InvalidParameterError whose detail is the API's own 400 detail. */
export function validatedParams(input: PlaygroundInput): ScrapeParams {
  const provider = providerById(input.scraper.id);
  if (provider === undefined) throw new InvalidParameterError("scraper: is not a known scraper");
  const query = Object.fromEntries(queryPairs(input));
  const parsed = querySchemaOf(provider).safeParse(query);
  if (!parsed.success)
    throw new InvalidParameterError(describeValidationError(provider.id, acceptedParameterNames(provider), parsed.error));
  if (!isCommonParams(parsed.data)) throw new InvalidParameterError("Invalid parameters.");
  return parsed.data;
}

/**
 * The API's refusal of the input's country for its scraper (the 400 of `GET /scrapers/{scraper}?country=…`, from the
 * same schema), or null when the scraper serves it. A prefilled link is checked with it before anything is run.
 */
export function countryRefusal(input: PlaygroundInput): InvalidParameterError | null {
  const provider = providerById(input.scraper.id);
  if (provider === undefined) return null;
  const parsed = querySchemaOf(provider).pick({ country: true }).safeParse({ country: input.country });
  if (parsed.success) return null;
  return new InvalidParameterError(describeValidationError(provider.id, acceptedParameterNames(provider), parsed.error));
}

/** The link that opens the playground filled in with a request's parameters (from a result, or a job's parameters). */
export function playgroundLink(scraperId: string, params: Readonly<Record<string, unknown>>): string {
  const scraper = playgroundScraper(scraperId);
  if (scraper === undefined) return "/dashboard/playground";
  const query = new URLSearchParams({ scraper: scraper.id });
  for (const name of ["prompt", "country", "timeout"] as const) {
    const value = params[name];
    if (typeof value === "string" || typeof value === "number") query.set(name, String(value));
  }
  if (params.bypass_cache === true) query.set("bypass_cache", "true");
  for (const field of scraper.own) {
    const value = params[field.name];
    if (typeof value === "string" || typeof value === "boolean" || typeof value === "number")
      query.set(ownFieldName(scraper.id, field.name), String(value));
  }
  return `/dashboard/playground?${query.toString()}`;
}
