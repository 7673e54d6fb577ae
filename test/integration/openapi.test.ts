/**
 * The OpenAPI 3.1 documents are generated from the same zod schemas that validate, completed for SDK generators
 * (operationIds, per-operation security, servers, examples) and split in two: the customers' at /openapi.json (/docs
 * renders it, test/integration/docs.test.ts) and the operator's at /admin/openapi.json, behind the admin token.
 * `redocly lint` checks both in npm test.
 */
import { exports } from "cloudflare:workers";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/http/app-env";
import { openApiDocument } from "../../src/http/openapi-document";
import { derivedOperationId } from "../../src/http/openapi-operation-ids";
import { pascalCase } from "../../src/util/pascal-case";
import { allProviders, responseSchemaOf, SCRAPER_IDS } from "../../src/scrapers/registry";
import { adminApi } from "../support/workers/account-helpers";
import { api, BASE } from "../support/workers/helpers";

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: string[]; default?: unknown; minimum?: number; maximum?: number };
}
interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; license?: { name: string; identifier?: string } };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
    parameters?: Record<string, unknown>;
    securitySchemes: Record<string, unknown>;
  };
}

async function document(): Promise<OpenApiDocument> {
  const response = await api("/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument;
}

async function operatorDocument(): Promise<OpenApiDocument> {
  const response = await adminApi("/admin/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument;
}

/** The component a `#/components/<kind>/<name>` reference names, if the document has it. */
function componentAt(spec: OpenApiDocument, reference: string): unknown {
  const [, , kind, name] = reference.split("/");
  const group = kind === "schemas" ? spec.components.schemas : kind === "parameters" ? spec.components.parameters : undefined;
  return name === undefined ? undefined : group?.[name];
}

/** Every `$ref` anywhere in `value`. */
function referencesIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => (key === "$ref" && typeof item === "string" ? [item] : referencesIn(item)));
}

function operations(spec: OpenApiDocument): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  );
}

const API_KEY = [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }];

describe("OpenAPI", () => {
  it("documents for customers every scraper's sync and job routes, the job status, batches, markdown, account and status", async () => {
    const spec = await document();
    expect(spec.openapi).toBe("3.1.0");
    for (const scraper of SCRAPER_IDS) {
      expect(spec.paths[`/scrapers/${scraper}`]?.get).toBeDefined();
      expect(spec.paths[`/scrapers/${scraper}/jobs`]?.post).toBeDefined();
    }
    for (const path of ["/jobs/{job_id}", "/jobs", "/batches", "/md/{file}", "/account", "/account/webhook", "/status.json"]) {
      expect(spec.paths[path], path).toBeDefined();
    }
    expect(Object.keys(spec.components.securitySchemes).sort()).toEqual(["ApiKeyHeader", "ApiKeyQuery"]);
  });

  it("shows customers no operator endpoint: no /admin path, no admin token scheme, no Operator tag", async () => {
    const response = await api("/openapi.json");
    const text = await response.text();
    const spec = JSON.parse(text) as OpenApiDocument & { tags: Array<{ name: string }> };
    expect(Object.keys(spec.paths).filter((path) => path.startsWith("/admin"))).toEqual([]);
    expect(spec.components.securitySchemes).not.toHaveProperty("AdminToken");
    for (const { method, path, operation } of operations(spec)) {
      expect(JSON.stringify(operation.security), `${method} ${path}`).not.toContain("AdminToken");
    }
    expect(spec.tags.map((tag) => tag.name)).not.toContain("Operator");
    expect(text).not.toMatch(/ADMIN_TOKEN|Authorization: Bearer/);
  });

  it("keeps only the components its own operations use, in both documents, and every reference resolves", async () => {
    for (const spec of [await document(), await operatorDocument()]) {
      const references = new Set(referencesIn(spec.paths));
      // Components reached through other components count too.
      for (let size = 0; size !== references.size; ) {
        size = references.size;
        for (const reference of [...references]) {
          const name = reference.replace("#/components/schemas/", "");
          for (const inner of referencesIn(spec.components.schemas[name])) references.add(inner);
        }
      }
      for (const reference of references) expect(componentAt(spec, reference), reference).toBeDefined();
      for (const name of Object.keys(spec.components.schemas)) expect(references.has(`#/components/schemas/${name}`), name).toBe(true);
    }
  });
});

describe("The operator's document, GET /admin/openapi.json", () => {
  it("answers only with the admin token: 401 without it or with a wrong one", async () => {
    for (const token of [null, "not-the-admin-token-but-long-enough-to-count"]) {
      const response = await adminApi("/admin/openapi.json", { token });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "invalid_admin_token" });
    }
    const keyHolder = await api("/admin/openapi.json", { apiKey: "sk_test_not_an_operator" });
    expect(keyHolder.status).toBe(401);
  });

  it("documents the operator routes, all of them and nothing else, with the admin token as their only scheme", async () => {
    const spec = await operatorDocument();
    expect(spec.openapi).toBe("3.1.0");
    for (const path of ["/admin/accounts", "/admin/accounts/{account_id}/keys", "/admin/pools", "/admin/providers", "/admin/captures"]) {
      expect(spec.paths[path], path).toBeDefined();
    }
    for (const { method, path, operation } of operations(spec)) {
      expect(path, method).toMatch(/^\/admin\//);
      expect(operation.security, `${method} ${path}`).toEqual([{ AdminToken: [] }]);
    }
    expect(Object.keys(spec.components.securitySchemes)).toEqual(["AdminToken"]);
    expect(spec.servers).toEqual([{ url: BASE, description: "This deployment" }]);
    expect(spec.info.license).toEqual({ name: "Proprietary", identifier: "LicenseRef-Proprietary" });
    expect(spec.info.title).toMatch(/operator/i);
  });

  it("together with the customers' document covers every route once: the same declarations feed both", async () => {
    const customer = operations(await document()).map(({ method, path }) => `${method} ${path}`);
    const operator = operations(await operatorDocument()).map(({ method, path }) => `${method} ${path}`);
    expect(customer.filter((name) => operator.includes(name))).toEqual([]);
    const documented = new Set([...customer, ...operator]);
    expect(documented.size).toBe(customer.length + operator.length);
    // The operator half is not a token few: account, key, credit, pool, provider-account and capture administration.
    expect(operator.length).toBeGreaterThan(15);
  });

  it("the grok parameters and response come from the validation schemas", async () => {
    const spec = await document();
    const parameters = spec.paths["/scrapers/grok"]?.get?.parameters ?? [];
    const byName = new Map(parameters.filter((parameter) => parameter.in === "query").map((parameter) => [parameter.name, parameter]));
    // the spec's query parameters, unchanged; evidence is asked with a header beside them
    expect([...byName.keys()].sort()).toEqual(["api_key", "bypass_cache", "country", "mode", "prompt", "timeout"]);
    expect(parameters.filter((parameter) => parameter.in === "header").map((parameter) => parameter.name)).toEqual(["X-Evidence"]);
    expect(byName.get("prompt")?.required).toBe(true);
    expect(byName.get("mode")?.schema?.enum).toEqual(["MODEL_MODE_AUTO", "MODEL_MODE_FAST", "MODEL_MODE_EXPERT"]);
    expect(byName.get("timeout")?.schema).toMatchObject({ default: 300, minimum: 10, maximum: 600 });
    const grok = spec.components.schemas.GrokResponse;
    for (const field of ["scraper", "status", "job_id", "prompt", "country", "mode", "result", "credits_used", "elapsed_ms", "cached"]) {
      expect(grok?.required).toContain(field);
    }
    for (const field of [
      "web_sources",
      "social_results",
      "related_questions",
      "conversation",
      "llm_model",
      "result_markdown",
      "markdown_url",
    ]) {
      expect(grok?.properties).toHaveProperty(field);
    }
    expect(Object.keys(spec.paths["/scrapers/grok"]?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "401", "404", "408", "429", "500", "502", "503", "504"]),
    );
  });
});

describe("OpenAPI document for SDK generators", () => {
  it("names every operation with a stable, unique, URL-safe operationId: scrape<Scraper> and submit<Scraper>Job for every provider", async () => {
    const spec = await document();
    const ids = operations(spec).map(({ operation }) => operation.operationId);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const provider of allProviders()) {
      expect(spec.paths[`/scrapers/${provider.id}`]?.get?.operationId).toBe(`scrape${pascalCase(provider.id)}`);
      expect(spec.paths[`/scrapers/${provider.id}/jobs`]?.post?.operationId).toBe(`submit${pascalCase(provider.id)}Job`);
    }
    expect(spec.paths["/scrapers/grok"]?.get?.operationId).toBe("scrapeGrok");
    expect(spec.paths["/scrapers/google_ai_mode/jobs"]?.post?.operationId).toBe("submitGoogleAiModeJob");
    expect(spec.paths["/jobs/{job_id}"]?.get?.operationId).toBe("getJob");
    expect(spec.paths["/account"]?.get?.operationId).toBe("getAccount");
    expect(spec.paths["/md/{file}"]?.get?.operationId).toBe("getHostedMarkdown");
    const operator = await operatorDocument();
    expect(operator.paths["/admin/accounts"]?.get?.operationId).toBe("listAdminAccounts");
    expect(operator.paths["/admin/accounts"]?.post?.operationId).toBe("createAdminAccount");
    // Unique across both documents: the client is generated from the two together.
    const everyId = [...operations(spec), ...operations(operator)].map(({ operation }) => operation.operationId);
    expect(new Set(everyId).size).toBe(everyId.length);
  });

  it("declares security on every operation: the key (header or query) for scrapes, none for the job status", async () => {
    const spec = await document();
    for (const { method, path, operation } of operations(spec)) expect(operation.security, `${method} ${path}`).toBeDefined();
    for (const scraper of SCRAPER_IDS) {
      expect(spec.paths[`/scrapers/${scraper}`]?.get?.security).toEqual(API_KEY);
      expect(spec.paths[`/scrapers/${scraper}/jobs`]?.post?.security).toEqual(API_KEY);
    }
    expect(spec.paths["/jobs/{job_id}"]?.get?.security).toEqual([]);
    expect(spec.paths["/md/{file}"]?.get?.security).toEqual([]);
    expect(spec.paths["/account"]?.get?.security).toEqual(API_KEY);
    expect((await operatorDocument()).paths["/admin/accounts"]?.post?.security).toEqual([{ AdminToken: [] }]);
  });

  it("lists the deployment's own origin as the server, whichever origin the document is requested from", async () => {
    expect((await document()).servers).toEqual([{ url: BASE, description: "This deployment" }]);
    const elsewhere = await exports.default.fetch(new Request("https://scraper.example.org/openapi.json"));
    const spec = (await elsewhere.json()) as OpenApiDocument;
    expect(spec.servers).toEqual([{ url: "https://scraper.example.org", description: "This deployment" }]);
    expect(spec.info.license).toEqual({ name: "Proprietary", identifier: "LicenseRef-Proprietary" });
  });

  it("gives every scraper's 200 response an example that its response schema accepts: the declared one, or one derived from the schema", async () => {
    const spec = await document();
    for (const provider of allProviders()) {
      const example = spec.paths[`/scrapers/${provider.id}`]?.get?.responses["200"]?.content?.["application/json"]?.example;
      expect(example, provider.id).toBeDefined();
      const parsed = responseSchemaOf(provider).safeParse(example);
      expect(parsed.success, `${provider.id}: ${parsed.error?.message ?? ""}`).toBe(true);
      expect(example).toMatchObject({ scraper: provider.id, status: "done" });
      if (provider.example !== undefined) expect(example, provider.id).toEqual(provider.example);
    }
  });

  it("derives names from the method and path alone, so routes added later get predictable names", () => {
    expect(derivedOperationId("get", "/jobs")).toBe("listJobs");
    expect(derivedOperationId("get", "/jobs/{job_id}")).toBe("getJob");
    expect(derivedOperationId("post", "/batches")).toBe("createBatch");
    expect(derivedOperationId("get", "/batches/{batch_id}")).toBe("getBatch");
    expect(derivedOperationId("get", "/batches/{batch_id}/jobs")).toBe("listBatchJobs");
    expect(derivedOperationId("delete", "/webhooks/{webhook_id}")).toBe("deleteWebhook");
    expect(derivedOperationId("put", "/webhooks/{webhook_id}")).toBe("replaceWebhook");
    expect(derivedOperationId("patch", "/account/settings")).toBe("updateAccountSettings");
    expect(derivedOperationId("get", "/status")).toBe("getStatus");
    expect(derivedOperationId("get", "/account")).toBe("getAccount");
    expect(derivedOperationId("post", "/admin/accounts/{account_id}/login-links")).toBe("createAdminAccountLoginLink");
    expect(derivedOperationId("get", "/admin/entries")).toBe("listAdminEntries");
    expect(derivedOperationId("get", "/")).toBe("getRoot");
  });

  it("keeps a route's own operationId and security, and completes the ones it leaves out", () => {
    const app = new OpenAPIHono<AppEnv>();
    const ok = { 200: { description: "OK" } };
    app.openapi(createRoute({ method: "get", path: "/status", operationId: "getServiceStatus", security: [], responses: ok }), (c) =>
      c.body(null, 200),
    );
    app.openapi(
      createRoute({ method: "get", path: "/batches/{batch_id}", request: { params: z.object({ batch_id: z.string() }) }, responses: ok }),
      (c) => c.body(null, 200),
    );
    app.openapi(createRoute({ method: "get", path: "/admin/batches", responses: ok }), (c) => c.body(null, 200));
    const spec = openApiDocument(app, "https://api.example.org");
    expect(spec.paths?.["/status"]?.get).toMatchObject({ operationId: "getServiceStatus", security: [] });
    expect(spec.paths?.["/batches/{batch_id}"]?.get).toMatchObject({ operationId: "getBatch", security: API_KEY });
    expect(spec.paths?.["/admin/batches"]).toBeUndefined();
    expect(spec.servers).toEqual([{ url: "https://api.example.org", description: "This deployment" }]);
    // A route added under /admin lands in the operator's document, with the admin token, without declaring either.
    const operator = openApiDocument(app, "https://api.example.org", "operator");
    expect(Object.keys(operator.paths ?? {})).toEqual(["/admin/batches"]);
    expect(operator.paths?.["/admin/batches"]?.get).toMatchObject({ operationId: "listAdminBatches", security: [{ AdminToken: [] }] });
  });
});
