/**
 * The contract every provider implements, and the one place a provider declares everything about itself: its
 * parameters and defaults, refused or allowed countries, the schema of the fields it answers, where its site lives and
 * which domains its browser may reach, and how to drive its page. Validation, the OpenAPI document, the registry and the
 * routes are all derived from these declarations (see src/scrapers/provider-list.ts for the list).
 */
import type { CitedSource } from "../schemas/cited-sources";
import type { z } from "@hono/zod-openapi";
import type { PageSession } from "../browser/page/page-session";
import type { RecordedInputs, ScrapeRecorder } from "../browser/page/capture/recording";
import type { CommonParamShape, ProviderParamShape } from "../params/common-params";
import type { ProviderCountries } from "../params/countries";

/** The validated query parameters a provider receives: the common ones plus its own. */
export type ProviderParams<Shape extends ProviderParamShape> = z.output<z.ZodObject<CommonParamShape & Shape>>;

/** What a provider module receives for one scrape. */
export interface ScrapeContext<Params> {
  /**
   * The scrape's page session: a fresh page (`pageSession.page`) in its own browser context, already localised for
   * `params.country`, with the scrape's step log, hot-page state and answer-started signal. The provider hands it to
   * `startCapture` and `createNavigator`; the browser layer closes the page.
   */
  pageSession: PageSession;
  /** Origin of the provider's site for this request, without a trailing slash: the real site or a replica. */
  origin: string;
  params: Params;
  /** Aborted when the caller's timeout passes; every wait must honour it (the navigation engine does). */
  signal: AbortSignal;
  /** ms since epoch by which the scrape must be done (the signal fires then). */
  deadline: number;
  /**
   * Set when the scrape is being captured (`POST /admin/captures`): the provider reports here exactly what it hands its
   * parser, under the names its `replay` reads back.
   */
  recorder?: ScrapeRecorder;
}

/** How a provider's signed-in sessions (provider accounts, docs/real-sites.md) are scoped and used. */
export interface ProviderAccountPolicy<Params> {
  /**
   * Sessions belong to one marketplace (Amazon signs in per store): the marketplace of a request, which the account
   * must have been stored for. Absent: one session serves every country.
   */
  marketplaceOf?(params: Params): string;
  /** The marketplaces an account may be stored for, when `marketplaceOf` is declared. */
  readonly marketplaces?: readonly string[];
  /**
   * Whether a signed-out session is worth a try after a signed-in one hit a login wall (default true). False where the
   * site answers only signed-in sessions (Rufus).
   */
  readonly anonymousFallback?: boolean;
}

export interface ProviderDefinition<Id extends string, Shape extends ProviderParamShape, Answer extends z.ZodObject<z.ZodRawShape>> {
  /** The path segment: `/scrapers/{id}`. */
  readonly id: Id;
  /** Display name ("Grok"). */
  readonly name: string;
  /** What the spec calls it ("social-network assistant"), for the docs. */
  readonly kind: string;
  /** One sentence for the docs: what the scraper returns. */
  readonly summary: string;
  /**
   * The scraper's version, `<id>/<year>.<month>.<n>` (e.g. "grok/2026.11.1"), stated in every response's
   * `served_by.scraper_version`: bumped whenever its navigation or parser changes (CONTRIBUTING.md), so an answer can be
   * traced to the code that produced it.
   */
  readonly version: string;
  /**
   * The answer field holding the model label the provider's page or stream shows (`served_by.model_label`); absent
   * where the site shows none.
   */
  readonly modelLabelField?: keyof z.output<Answer> & string;
  /**
   * The sources the answer cites, in the answer's order, read from the provider's own fields (web sources, citations,
   * links, products): what a monitor ranks and compares between runs (docs/monitors.md). Each URL once, at its first place.
   */
  citedSources(answer: z.output<Answer>): CitedSource[];
  /** Provider-specific query parameters (zod, with OpenAPI metadata); the common ones are added by the platform. */
  readonly params: Shape;
  readonly countries?: ProviderCountries;
  /**
   * The provider's answer: `result`, `result_markdown` and its own fields (the response adds the common fields of
   * spec §2.1). The pipeline validates every answer against it, so a parser bug is a 500, never a malformed 200.
   */
  readonly answer: Answer;
  /** Example of a full response for the docs (common fields included). */
  readonly example?: Record<string, unknown>;
  /**
   * Where the provider's site lives for these parameters. `real` is the real site; an operator override
   * (`PROVIDER_ORIGIN_<ID>`) may be a template whose `{name}` placeholders are filled from `templateValues`
   * (Amazon: `{domain}` = the marketplace domain).
   */
  readonly origin: {
    real(params: ProviderParams<Shape>): string;
    templateValues?(params: ProviderParams<Shape>): Record<string, string>;
  };
  /** Hostnames the browser session may reach (Browser Rendering guardrails); `origin` is the resolved one. */
  allowedDomains(origin: string): string[];
  /**
   * Drives the page and returns the answer. Throws ServiceError subclasses for provider failures (UpstreamError,
   * ScraperDriftError, UnexpectedResultError), never with provider text in `detail`.
   */
  scrape(context: ScrapeContext<ProviderParams<Shape>>): Promise<z.output<Answer>>;
  /**
   * The answer from a capture file's recorded inputs (what `scrape` reported to its `recorder`) with the same pure
   * parser: replays captured exchanges in the unit tests, so a site change shows as a failing replay.
   */
  replay?(inputs: RecordedInputs, params: ProviderParams<Shape>): z.output<Answer>;
  /** Signed-in sessions: scoping and fallback (absent: one scope, anonymous fallback allowed). */
  readonly accounts?: ProviderAccountPolicy<ProviderParams<Shape>>;
}

/** Declares a provider with its types inferred (a typed identity function). */
export function defineProvider<const Id extends string, const Shape extends ProviderParamShape, Answer extends z.ZodObject<z.ZodRawShape>>(
  definition: ProviderDefinition<Id, Shape, Answer>,
): ProviderDefinition<Id, Shape, Answer> {
  return definition;
}
