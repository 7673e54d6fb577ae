/** The OpenAPI 3.1 document is generated from the same zod schemas that validate; /docs renders it. */
import { describe, expect, it } from "vitest";
import { SCRAPER_IDS } from "../../src/scrapers/registry";
import { api } from "./helpers";

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { enum?: string[]; default?: unknown; minimum?: number; maximum?: number };
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { parameters?: Parameter[]; responses: Record<string, unknown> }>>;
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

  it("/docs is a readable HTML reference of the same document", async () => {
    const response = await api("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain("/scrapers/grok/jobs");
    expect(page).toContain("MODEL_MODE_EXPERT");
    expect(page).not.toContain("<script");
  });
});
