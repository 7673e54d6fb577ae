/**
 * The OpenAPI 3.1 document as clients and SDK generators see it: what the zod-declared routes generate, completed in
 * one place so that every route (including ones added later) is SDK-ready without repeating anything per route:
 * - `servers`: the deployment's own origin (the origin the document was requested from);
 * - `operationId` on every operation (src/http/openapi-operation-ids.ts);
 * - `security` on every operation: the route's own declaration, else the policy below;
 * - an example for every scraper's 200 response: the provider's declared one or one derived from its schema.
 * `redocly lint` (redocly.yaml) checks the result in `npm test`.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type {
  OpenAPIObject,
  OperationObject,
  PathItemObject,
  ReferenceObject,
  SchemaObject,
  SecurityRequirementObject,
} from "openapi3-ts/oas31";
import { allProviders, type AnyProvider } from "../scrapers/registry";
import type { AppEnv } from "./app-env";
import { exampleFromSchema } from "./openapi-examples";
import { API_KEY_SECURITY } from "./openapi-errors";
import { operationIdFor } from "./openapi-operation-ids";

export const API_INFO = {
  title: "AI Answer Scraper API",
  version: "1.0.0",
  description:
    "Submit a prompt to the real web interface of seven AI providers through a pool of browsers and get the full reply as structured JSON. " +
    "Every scrape costs 3 credits. Authenticate with the `X-API-Key` header (recommended) or the `api_key` query parameter.",
  // The service is sold, not open source. `LicenseRef-` is SPDX's form for a license that is not on its list.
  license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
};

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
export function defaultSecurityFor(method: string, path: string): SecurityRequirementObject[] {
  if (PUBLIC_OPERATIONS.has(`${method} ${path}`)) return [];
  if (path === "/admin" || path.startsWith("/admin/")) return ADMIN_SECURITY;
  return API_KEY_SECURITY;
}

function completeOperation(method: string, path: string, operation: OperationObject): OperationObject {
  return {
    ...operation,
    operationId: operation.operationId ?? operationIdFor(method, path),
    security: operation.security ?? defaultSecurityFor(method, path),
  };
}

/** The example of a provider's 200 body: its own, or one derived from the schema with its id filled in. */
export function responseExampleOf(
  document: OpenAPIObject,
  provider: AnyProvider,
  schema: SchemaObject | ReferenceObject | undefined,
): unknown {
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

/** The document without `servers`: it depends only on the registered routes, so it is built once per isolate. */
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
  return document;
}

const documents = new WeakMap<OpenAPIHono<AppEnv>, OpenAPIObject>();

/** The complete document of `app`, served from `origin` (the `servers` entry clients call by default). */
export function openApiDocument(app: OpenAPIHono<AppEnv>, origin: string): OpenAPIObject {
  let document = documents.get(app);
  if (document === undefined) {
    document = completedDocument(app);
    documents.set(app, document);
  }
  return { ...document, servers: [{ url: origin, description: "This deployment" }] };
}
