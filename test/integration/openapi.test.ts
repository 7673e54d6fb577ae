/**
 * The OpenAPI 3.1 document is generated from the same zod schemas that validate, completed for SDK generators
 * (operationIds, per-operation security, servers, examples); /docs renders it (test/integration/docs.test.ts). `redocly lint`
 * checks it in npm test.
 */
import { exports } from "cloudflare:workers";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/http/app-env";
import { openApiDocument } from "../../src/http/openapi-document";
import { derivedOperationId } from "../../src/http/openapi-operation-ids";
import { pascalCase } from "../../src/util/pascal-case";
import { allProviders, responseSchemaOf, SCRAPER_IDS } from "../../src/scrapers/registry";
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
    securitySchemes: Record<string, unknown>;
  };
}

async function document(): Promise<OpenApiDocument> {
  const response = await api("/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument;
}

function operations(spec: OpenApiDocument): Array<{ method: string; path: string; operation: Operation }> {
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  );
}

const API_KEY = [{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }];

describe("OpenAPI", () => {
  it("documents every scraper's sync and job routes, the job status, markdown, account and operator routes", async () => {
    const spec = await document();
    expect(spec.openapi).toBe("3.1.0");
    for (const scraper of SCRAPER_IDS) {
      expect(spec.paths[`/scrapers/${scraper}`]?.get).toBeDefined();
      expect(spec.paths[`/scrapers/${scraper}/jobs`]?.post).toBeDefined();
    }
    for (const path of ["/jobs/{job_id}", "/md/{file}", "/account", "/admin/accounts", "/admin/pools"]) {
      expect(spec.paths[path], path).toBeDefined();
    }
    expect(Object.keys(spec.components.securitySchemes).sort()).toEqual(["AdminToken", "ApiKeyHeader", "ApiKeyQuery"]);
  });

  it("the grok parameters and response come from the validation schemas", async () => {
    const spec = await document();
    const parameters = spec.paths["/scrapers/grok"]?.get?.parameters ?? [];
    const byName = new Map(parameters.map((parameter) => [parameter.name, parameter]));
    expect([...byName.keys()].sort()).toEqual(["api_key", "bypass_cache", "country", "mode", "prompt", "timeout"]);
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
    expect(spec.paths["/admin/accounts"]?.get?.operationId).toBe("listAdminAccounts");
    expect(spec.paths["/admin/accounts"]?.post?.operationId).toBe("createAdminAccount");
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
    expect(spec.paths["/admin/accounts"]?.post?.security).toEqual([{ AdminToken: [] }]);
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
    expect(spec.paths?.["/admin/batches"]?.get).toMatchObject({ operationId: "listAdminBatches", security: [{ AdminToken: [] }] });
    expect(spec.servers).toEqual([{ url: "https://api.example.org", description: "This deployment" }]);
  });
});
