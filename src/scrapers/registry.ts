/**
 * What the platform derives from the providers' declarations: scraper ids, each provider's query schema (common +
 * own parameters) and response schema, accepted parameter names, and the origin of its site for a request.
 */
import type { CitedSource } from "../schemas/cited-sources";
import { z } from "@hono/zod-openapi";
import { type CommonParamShape, commonParamShape, type CommonParams, type ProviderParamShape } from "../params/common-params";
import { CommonScrapeFieldsSchema } from "../schemas/responses";
import type { RecordedInputs } from "../browser/page/capture/recording";
import type { ProviderAccountPolicy, ProviderDefinition, ScrapeContext } from "./provider-contract";
import { PROVIDERS } from "./provider-list";

/** Any provider, seen through what the platform needs of it (its own parameter types erased to the common ones). */
export interface AnyProvider {
  readonly id: ScraperId;
  readonly name: string;
  readonly kind: string;
  readonly summary: string;
  readonly version: string;
  readonly modelLabelField?: string;
  /** Called with an answer its schema accepted (method syntax: each provider's own answer type is narrower). */
  citedSources(answer: z.output<z.ZodObject<z.ZodRawShape>>): CitedSource[];
  readonly params: ProviderParamShape;
  readonly countries?: ProviderDefinition<string, ProviderParamShape, z.ZodObject<z.ZodRawShape>>["countries"];
  readonly answer: z.ZodObject<z.ZodRawShape>;
  readonly example?: Record<string, unknown>;
  readonly origin: { real(params: CommonParams): string; templateValues?(params: CommonParams): Record<string, string> };
  allowedDomains(origin: string): string[];
  scrape(context: ScrapeContext<CommonParams>): Promise<unknown>;
  replay?(inputs: RecordedInputs, params: CommonParams): unknown;
  readonly accounts?: ProviderAccountPolicy<CommonParams>;
}

export type ScraperId = (typeof PROVIDERS)[number]["id"];
export const SCRAPER_IDS: readonly ScraperId[] = PROVIDERS.map((provider) => provider.id);

const BY_ID = new Map<string, AnyProvider>(PROVIDERS.map((provider): [string, AnyProvider] => [provider.id, provider]));

export function providerById(id: string): AnyProvider | undefined {
  return BY_ID.get(id);
}

export function isScraperId(id: string): id is ScraperId {
  return BY_ID.has(id);
}

export function allProviders(): AnyProvider[] {
  return [...BY_ID.values()];
}

/** A provider's query schema: the common parameters and its own, strict (unknown keys refused). */
export type QuerySchema = z.ZodObject<CommonParamShape & ProviderParamShape, z.core.$strict>;

const querySchemas = new Map<string, QuerySchema>();

/** The provider's query-string schema: the common parameters with its country rules, plus its own; unknown keys refused. */
export function querySchemaOf(provider: AnyProvider): QuerySchema {
  let schema = querySchemas.get(provider.id);
  if (schema === undefined) {
    schema = z.strictObject({ ...commonParamShape(provider.id, provider.countries), ...provider.params });
    querySchemas.set(provider.id, schema);
  }
  return schema;
}

/** Names the provider accepts, for the "unknown parameter" message. */
export function acceptedParameterNames(provider: AnyProvider): string[] {
  return [...Object.keys(commonParamShape(provider.id, provider.countries)), ...Object.keys(provider.params)];
}

const responseSchemas = new Map<string, z.ZodObject<z.ZodRawShape>>();

/** The provider's full 200 body: the common fields of spec §2.1 and its answer's fields. */
export function responseSchemaOf(provider: AnyProvider): z.ZodObject<z.ZodRawShape> {
  let schema = responseSchemas.get(provider.id);
  if (schema === undefined) {
    schema = CommonScrapeFieldsSchema.extend(provider.answer.shape).openapi(`${pascalCase(provider.id)}Response`);
    responseSchemas.set(provider.id, schema);
  }
  return schema;
}

function pascalCase(id: string): string {
  return id
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

/** The environment variable that overrides a provider's origin: `PROVIDER_ORIGIN_<ID>`. */
function originVariableOf(id: string): string {
  return `PROVIDER_ORIGIN_${id.toUpperCase()}`;
}

/**
 * The origin of the provider's site for these parameters, without a trailing slash: the operator's override (a
 * template whose `{name}` placeholders the provider fills, e.g. Amazon's `{domain}`) or the real site. `env` is the
 * Worker's environment, read by name only, so any object will do: the registry stays importable where the Worker's
 * `Env` type is not declared (the unit tests in Node, which validate with the query schemas above).
 */
export function resolveOrigin(env: object, provider: AnyProvider, params: CommonParams): string {
  const configured: unknown = Reflect.get(env, originVariableOf(provider.id));
  const override = typeof configured === "string" ? configured.trim() : "";
  if (override === "") return provider.origin.real(params).replace(/\/+$/, "");
  const values = provider.origin.templateValues?.(params) ?? {};
  return override.replace(/\{(\w+)\}/g, (placeholder, name: string) => values[name] ?? placeholder).replace(/\/+$/, "");
}
