/**
 * What the playground's form shows for each scraper, taken from the same declarations as validation and the API
 * reference: each provider's query schema (`querySchemaOf`) is put through the OpenAPI generator, and the documented
 * query parameters (type, choices, default, description) become form fields. A parameter a provider declares appears
 * in the playground without any change here; its countries come from its `countries` declaration.
 */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { ParameterObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";
import { ISO_COUNTRY_CODES } from "../../params/countries";
import { type AnyProvider, allProviders, querySchemaOf, type ScraperId } from "../../scrapers/registry";

/** How a parameter is entered: a checkbox, one of a list, or free text. */
type FieldKind = "boolean" | "choice" | "number" | "text";

export interface ScraperField {
  /** The query parameter's name in the API. */
  name: string;
  kind: FieldKind;
  description: string;
  /** The API's default, as the query-string text that means it ("true", "300", "MODEL_MODE_AUTO"); "" when none. */
  defaultValue: string;
  /** The allowed values of a `choice` field, in declared order. */
  choices: readonly string[];
  minimum?: number;
  maximum?: number;
  required: boolean;
}

export interface PlaygroundScraper {
  id: ScraperId;
  name: string;
  kind: string;
  summary: string;
  /** Parameters every scraper takes (prompt, country, bypass_cache, timeout), as this scraper documents them. */
  common: Readonly<Record<CommonFieldName, ScraperField>>;
  /** The scraper's own parameters (mode, web_search, markdown_json …), in declared order. */
  own: readonly ScraperField[];
  /** Countries this scraper refuses, or null. */
  refusedCountries: readonly string[] | null;
  /** The only countries this scraper serves, or null when it serves every country it does not refuse. */
  allowedCountries: readonly string[] | null;
}

const COMMON_FIELD_NAMES = ["prompt", "country", "bypass_cache", "timeout"] as const;
type CommonFieldName = (typeof COMMON_FIELD_NAMES)[number];
/** Query parameters that are not form fields: the key is picked from the account's keys, never typed or sent. */
const TRANSPORT_PARAMETERS: ReadonlySet<string> = new Set(["api_key"]);

function isReference(value: object): value is ReferenceObject {
  return "$ref" in value;
}

function queryParametersOf(provider: AnyProvider): ParameterObject[] {
  // A private generator: the documented parameters are exactly those of the API's own route for this scraper.
  const generator = new OpenAPIHono();
  generator.openAPIRegistry.registerPath(
    createRoute({
      method: "get",
      path: `/scrapers/${provider.id}`,
      request: { query: querySchemaOf(provider) },
      responses: { 200: { description: "The answer" } },
    }),
  );
  const document = generator.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "playground", version: "1" } });
  const parameters = document.paths?.[`/scrapers/${provider.id}`]?.get?.parameters ?? [];
  return parameters.filter((parameter): parameter is ParameterObject => !isReference(parameter) && parameter.in === "query");
}

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "";
}

function fieldOf(parameter: ParameterObject): ScraperField {
  const schema: SchemaObject = parameter.schema !== undefined && !isReference(parameter.schema) ? parameter.schema : {};
  const choices = Array.isArray(schema.enum) ? schema.enum.map(textOf) : [];
  const kind: FieldKind =
    choices.length > 0
      ? "choice"
      : schema.type === "boolean"
        ? "boolean"
        : schema.type === "number" || schema.type === "integer"
          ? "number"
          : "text";
  return {
    name: parameter.name,
    kind,
    description: parameter.description ?? schema.description ?? "",
    defaultValue: textOf(schema.default),
    choices,
    ...(typeof schema.minimum === "number" ? { minimum: schema.minimum } : {}),
    ...(typeof schema.maximum === "number" ? { maximum: schema.maximum } : {}),
    required: parameter.required === true,
  };
}

function describeScraper(provider: AnyProvider): PlaygroundScraper {
  const fields = new Map(queryParametersOf(provider).map((parameter) => [parameter.name, fieldOf(parameter)]));
  const commonField = (name: CommonFieldName): ScraperField => {
    const field = fields.get(name);
    if (field === undefined) throw new Error(`The ${provider.id} scraper does not document its ${name} parameter`);
    return field;
  };
  const common = {
    prompt: commonField("prompt"),
    country: commonField("country"),
    bypass_cache: commonField("bypass_cache"),
    timeout: commonField("timeout"),
  };
  const commonNames: ReadonlySet<string> = new Set(COMMON_FIELD_NAMES);
  return {
    id: provider.id,
    name: provider.name,
    kind: provider.kind,
    summary: provider.summary,
    common,
    own: [...fields.values()].filter((field) => !commonNames.has(field.name) && !TRANSPORT_PARAMETERS.has(field.name)),
    refusedCountries: provider.countries?.refused ?? null,
    allowedCountries: provider.countries?.allowed ?? null,
  };
}

let described: readonly PlaygroundScraper[] | undefined;

/** Every scraper as the playground shows it, in the providers' declared order (computed once per isolate). */
export function playgroundScrapers(): readonly PlaygroundScraper[] {
  described ??= allProviders().map(describeScraper);
  return described;
}

export function playgroundScraper(id: string): PlaygroundScraper | undefined {
  return playgroundScrapers().find((scraper) => scraper.id === id);
}

/**
 * Whether the scraper serves a country: the rule its query schema applies, from the same declaration. This one only
 * shapes the form's list; the run itself is validated by the schema.
 */
export function servesCountry(scraper: PlaygroundScraper, code: string): boolean {
  if (!ISO_COUNTRY_CODES.has(code) || scraper.refusedCountries?.includes(code) === true) return false;
  return scraper.allowedCountries === null || scraper.allowedCountries.includes(code);
}

export interface CountryOption {
  code: string;
  label: string;
}

let countries: readonly CountryOption[] | undefined;

/** Every assigned ISO 3166-1 alpha-2 code with its English name, sorted by name. */
export function countryOptions(): readonly CountryOption[] {
  if (countries !== undefined) return countries;
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames(["en"], { type: "region" });
  } catch {
    // A runtime without region names still gets a usable list of codes.
  }
  const nameOf = (code: string): string => {
    try {
      return names?.of(code) ?? code;
    } catch {
      return code;
    }
  };
  countries = [...ISO_COUNTRY_CODES]
    .map((code) => ({ code, label: `${nameOf(code)} (${code})` }))
    .sort((left, right) => left.label.localeCompare(right.label, "en"));
  return countries;
}
