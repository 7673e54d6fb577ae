/**
 * The OpenAPI 3.1 document as clients and SDK generators see it: what the zod-declared routes generate, completed in
 * one place so that every route (including ones added later) is SDK-ready without repeating anything per route:
 * - `servers`: the deployment's own origin (PUBLIC_BASE_URL, else the origin the document was requested from);
 * - `operationId` on every operation (src/http/openapi-operation-ids.ts);
 * - `security` on every operation: the route's own declaration, else the policy below;
 * - an example for every scraper's 200 response: the provider's declared one or one derived from its schema;
 * - examples for every error response, one per error code it can carry, with the service's real messages;
 * - `tags` in reading order with Markdown descriptions: one tag per scraper (its sync and job routes), then jobs,
 *   batches, results, account, status, operator. Swagger UI at /docs (src/http/docs.ts) shows them in this order;
 * - `x-codeSamples` on every customer operation: curl, Python and JavaScript (src/http/openapi-code-samples.ts).
 * Then it is split in two (src/http/openapi-audience.ts): the customers' document (`/openapi.json`, `/docs`) and the
 * operator's (`/admin/openapi.json`, `/admin/docs`), each with only the components, security schemes and tags its own
 * operations use. `redocly lint` (redocly.yaml) checks both in `npm test`.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type {
  OpenAPIObject,
  OperationObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
  SecurityRequirementObject,
  TagObject,
} from "openapi3-ts/oas31";
import { allProviders, type AnyProvider } from "../scrapers/registry";
import type { AppEnv } from "./app-env";
import { DOCS_GUIDES, guideUrl } from "./docs-guides";
import { type ApiAudience, audienceOfPath } from "./openapi-audience";
import { codeSamplesOf } from "./openapi-code-samples";
import { errorExamplesFor, exampleFromSchema } from "./openapi-examples";
import { API_KEY_SECURITY } from "./openapi-errors";
import { operationIdFor } from "./openapi-operation-ids";

export const API_INFO = {
  title: "AI Answer Scraper API",
  version: "1.0.0",
  description:
    "Submit a prompt to the real web interface of seven AI providers (ChatGPT, Perplexity, Grok, Microsoft Copilot, Gemini, " +
    "Google AI Mode, Amazon Rufus) through a pool of browsers and get the full reply as structured JSON.\n\n" +
    "- **Authentication:** send your API key in the `X-API-Key` header (recommended) or the `api_key` query parameter. " +
    "Here: *Authorize*, paste the key, then *Try it out* on any operation.\n" +
    "- **Server-side only:** the API sends no CORS headers and refuses preflight (`OPTIONS`) requests, so browsers cannot call it " +
    "from other sites. Call it from your server and keep the key there.\n" +
    "- **Credits:** every scrape costs 3 credits; a synchronous scrape is charged only when it answers 200, a job at submission " +
    "(restored if every attempt fails). Every 200 carries `X-Credits-Remaining`.\n" +
    "- **Sync or async:** `GET /scrapers/{scraper}` waits for the answer; `POST /scrapers/{scraper}/jobs` returns a job id at " +
    "once, then poll `GET /jobs/{job_id}` until `status` is `done` or `failed`.\n" +
    "- **Errors** are JSON `{detail, code, request_id}` with the HTTP status: branch on `code`, show `detail`. Every response " +
    "carries `X-Request-Id` (yours when you send a well-formed one); quote it, or `request_id`, when you contact support.\n\n" +
    "Every operation shows code samples in curl, Python and JavaScript: set `API_KEY` to your key and `API_URL` to this " +
    "deployment's address, then run them as they are.\n\n" +
    `Guides: ${DOCS_GUIDES.map((guide) => `[${guide.label}](${guideUrl(guide.slug)})`).join(" · ")}. ` +
    "Machine-readable: [/openapi.json](/openapi.json) (OpenAPI 3.1).",
  // The service is sold, not open source. `LicenseRef-` is SPDX's form for a license that is not on its list.
  license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
};

/** The operator's document: the same routes' other half, for whoever holds the deployment's admin token. */
const OPERATOR_API_INFO = {
  title: "AI Answer Scraper operator API",
  version: API_INFO.version,
  description:
    "Administration of this deployment: accounts, API keys, credits, limits, browser pools, provider accounts, captures. " +
    "Every operation takes the operator token: `Authorization: Bearer <ADMIN_TOKEN>`. The customer API is at [/docs](/docs).",
  license: API_INFO.license,
};

const INFO_OF_AUDIENCE: Readonly<Record<ApiAudience, typeof API_INFO>> = { customer: API_INFO, operator: OPERATOR_API_INFO };

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** Operations anyone may call: the job status (spec §5.2: no key) and the hosted markdown (its URL is the secret). */
const PUBLIC_OPERATIONS: ReadonlySet<string> = new Set(["get /jobs/{job_id}", "get /md/{file}"]);
const ADMIN_SECURITY: SecurityRequirementObject[] = [{ AdminToken: [] }];

/**
 * The security of an operation that declares none: the operator token under `/admin/`, nothing for the public
 * operations above, and the API key (header or query) for everything else — the customer API's rule, so a new route
 * that forgets to declare its security is documented as needing the key rather than as open. A public route declares
 * `security: []` itself.
 */
function defaultSecurityFor(method: string, path: string): SecurityRequirementObject[] {
  if (PUBLIC_OPERATIONS.has(`${method} ${path}`)) return [];
  if (audienceOfPath(path) === "operator") return ADMIN_SECURITY;
  return API_KEY_SECURITY;
}

function completeOperation(method: string, path: string, operation: OperationObject): OperationObject {
  return {
    ...withErrorExamples(path, operation),
    operationId: operation.operationId ?? operationIdFor(method, path),
    security: operation.security ?? defaultSecurityFor(method, path),
  };
}

/** The example of a provider's 200 body: its own, or one derived from the schema with its id filled in. */
function responseExampleOf(document: OpenAPIObject, provider: AnyProvider, schema: SchemaObject | ReferenceObject | undefined): unknown {
  if (provider.example !== undefined) return provider.example;
  if (schema === undefined) return undefined;
  const derived = exampleFromSchema(document, schema);
  // Shared fields carry one provider's example value (`scraper: "grok"`); the example must name this scraper.
  return typeof derived === "object" && derived !== null ? { ...derived, scraper: provider.id } : derived;
}

function addScraperExamples(document: OpenAPIObject): void {
  for (const provider of allProviders()) {
    const response = document.paths?.[`/scrapers/${provider.id}`]?.get?.responses?.["200"];
    const media = response !== undefined && "content" in response ? response.content?.["application/json"] : undefined;
    if (media === undefined || media.example !== undefined || media.examples !== undefined) continue;
    media.example = responseExampleOf(document, provider, media.schema);
  }
}

/** `x-codeSamples` for every customer operation (the operator's page is for operators, who have the CLI). */
function addCodeSamples(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (audienceOfPath(path) !== "customer") continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation !== undefined) operation["x-codeSamples"] = codeSamplesOf(document, method, path, operation);
    }
  }
}

/** Every operation of the complete document, both audiences, without `servers`. */
function completedDocument(app: OpenAPIHono<AppEnv>): OpenAPIObject {
  const generated = app.getOpenAPI31Document({ openapi: "3.1.0", info: API_INFO });
  const paths: Record<string, PathItemObject> = {};
  for (const [path, item] of Object.entries(generated.paths ?? {})) {
    const completed: PathItemObject = { ...item };
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation !== undefined) completed[method] = completeOperation(method, path, operation);
    }
    paths[path] = completed;
  }
  const document: OpenAPIObject = { ...generated, paths };
  addScraperExamples(document);
  addCodeSamples(document);
  return document;
}

/** The `$ref` targets `value` names, anywhere inside it. */
function referencesIn(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) referencesIn(item, found);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [key, item] of Object.entries(value)) {
    if (key === "$ref" && typeof item === "string") found.add(item);
    else referencesIn(item, found);
  }
}

/** The value of `key` in `record`, when `record` is an object that has it. */
function entryOf(record: unknown, key: string | undefined): unknown {
  if (typeof record !== "object" || record === null || key === undefined) return undefined;
  return Object.entries(record).find(([name]) => name === key)?.[1];
}

/** The `#/components/<kind>/<name>` references reachable from the paths, following references inside components. */
function reachableComponents(document: OpenAPIObject, paths: Record<string, PathItemObject>): Set<string> {
  const reached = new Set<string>();
  referencesIn(paths, reached);
  const pending = [...reached];
  for (let reference = pending.pop(); reference !== undefined; reference = pending.pop()) {
    const [, , kind, name] = reference.split("/");
    const inner = new Set<string>();
    referencesIn(entryOf(entryOf(document.components, kind), name), inner);
    for (const found of inner) {
      if (reached.has(found)) continue;
      reached.add(found);
      pending.push(found);
    }
  }
  return reached;
}

/** The entries of a components group that `reached` names (`#/components/<kind>/<name>`). */
function keptComponents<T>(group: Record<string, T> | undefined, kind: string, reached: Set<string>): Record<string, T> | undefined {
  if (group === undefined) return undefined;
  return Object.fromEntries(Object.entries(group).filter(([name]) => reached.has(`#/components/${kind}/${name}`)));
}

/** The security schemes the operations of `paths` name. */
function usedSecuritySchemes(paths: Record<string, PathItemObject>): Set<string> {
  return new Set(
    Object.values(paths).flatMap((item) =>
      HTTP_METHODS.flatMap((method) => (item[method]?.security ?? []).flatMap((requirement) => Object.keys(requirement))),
    ),
  );
}

/** One audience's half of the complete document: its operations, and only the components and tags they use. */
function documentOfAudience(complete: OpenAPIObject, audience: ApiAudience): OpenAPIObject {
  const paths = Object.fromEntries(Object.entries(complete.paths ?? {}).filter(([path]) => audienceOfPath(path) === audience));
  const reached = reachableComponents(complete, paths);
  const schemes = usedSecuritySchemes(paths);
  const components = complete.components ?? {};
  const document: OpenAPIObject = {
    ...complete,
    info: INFO_OF_AUDIENCE[audience],
    paths,
    components: {
      ...components,
      schemas: keptComponents(components.schemas, "schemas", reached),
      parameters: keptComponents(components.parameters, "parameters", reached),
      securitySchemes: Object.fromEntries(Object.entries(components.securitySchemes ?? {}).filter(([name]) => schemes.has(name))),
    },
  };
  document.tags = documentTags(document);
  return document;
}

/** The tags after the scrapers', in reading order, with what each groups. */
const ROUTE_TAGS: readonly TagObject[] = [
  {
    name: "Jobs",
    description:
      "Asynchronous jobs: each scraper's `POST /scrapers/{scraper}/jobs` (listed under its scraper) answers `202` with a `job_id`; " +
      "poll `GET /jobs/{job_id}` (no key needed: the id is the secret) every few seconds until `status` is `done` (the full " +
      "response is in `result`) or `failed` (`error` says why; the credits are restored). Jobs are kept 24 hours.",
  },
  { name: "Batches", description: "Many prompts in one request, each becoming a job; progress of the whole batch." },
  { name: "Results", description: "Hosted markdown of a response (`markdown_url`), kept 24 hours; no key needed." },
  { name: "Account", description: "Your balance and usage, and the webhook that tells your server when a job ends." },
  { name: "Status", description: "The public status page and its JSON: recent success rates per provider." },
  {
    name: "Operator",
    description:
      "Administration of this deployment with the operator token (`Authorization: Bearer <ADMIN_TOKEN>`): accounts, keys, " +
      "credits, browser pools, provider accounts, captures.",
  },
];

/** Markdown for a scraper's tag: what it is, its own parameters and the countries it serves. */
function scraperTagDescription(provider: AnyProvider): string {
  const own = Object.keys(provider.params);
  const parameters = own.length === 0 ? "none beyond the common ones" : own.map((name) => `\`${name}\``).join(", ");
  const countries = provider.countries?.allowed
    ? `only ${provider.countries.allowed.join(", ")}`
    : provider.countries?.refused
      ? `all except ${provider.countries.refused.join(", ")}`
      : "all";
  const kind = provider.kind.charAt(0).toUpperCase() + provider.kind.slice(1);
  return (
    `**${kind}.** ${provider.summary}\n\n` +
    `Own parameters: ${parameters}. Countries: ${countries}. ` +
    "Synchronously with `GET`, or as a job with `POST …/jobs`; 3 credits either way."
  );
}

/** Every tag the operations use, in reading order: the scrapers (in the providers' order), then the others. */
function documentTags(document: OpenAPIObject): TagObject[] {
  const declared: TagObject[] = [
    ...allProviders().map((provider) => ({ name: provider.name, description: scraperTagDescription(provider) })),
    ...ROUTE_TAGS,
  ];
  const used = new Set(Object.values(document.paths ?? {}).flatMap((item) => HTTP_METHODS.flatMap((method) => item[method]?.tags ?? [])));
  // A tag a later route introduces still gets listed (after the known ones) rather than silently dropped.
  const known = new Set(declared.map((tag) => tag.name));
  return [...declared.filter((tag) => used.has(tag.name)), ...[...used].filter((name) => !known.has(name)).map((name) => ({ name }))];
}

function isResponseObject(response: ResponseObject | ReferenceObject): response is ResponseObject {
  return !("$ref" in response);
}

/**
 * The operation's responses with an example for every error response (4xx/5xx with a JSON body) that has none. New
 * objects: the generator may share one response object between routes, and each route's example names its own path.
 */
function withErrorExamples(path: string, operation: OperationObject): OperationObject {
  const responses: Record<string, ResponseObject | ReferenceObject> = {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const media = isResponseObject(response) ? response.content?.["application/json"] : undefined;
    const code = Number(status);
    const isError = code >= 400; // false for `default` too
    if (!isResponseObject(response) || media === undefined || !isError || media.example !== undefined || media.examples !== undefined) {
      responses[status] = response;
      continue;
    }
    const examples = errorExamplesFor(path, code, response.description);
    responses[status] = { ...response, content: { ...response.content, "application/json": { ...media, examples } } };
  }
  return { ...operation, responses };
}

/** Both audiences' documents without `servers`: they depend only on the registered routes, so they are built once per isolate. */
const documents = new WeakMap<OpenAPIHono<AppEnv>, Record<ApiAudience, OpenAPIObject>>();

/** The document of `audience` (the customers' unless said otherwise), served from `origin` (the `servers` entry clients call). */
export function openApiDocument(app: OpenAPIHono<AppEnv>, origin: string, audience: ApiAudience = "customer"): OpenAPIObject {
  let built = documents.get(app);
  if (built === undefined) {
    const complete = completedDocument(app);
    built = { customer: documentOfAudience(complete, "customer"), operator: documentOfAudience(complete, "operator") };
    documents.set(app, built);
  }
  return { ...built[audience], servers: [{ url: origin, description: "This deployment" }] };
}
