/**
 * The API reference (src/http/docs.ts, src/http/openapi-document.ts): the /docs shell that loads Swagger UI from our own
 * assets under a strict Content-Security-Policy, and the document it renders: tags in reading order, summaries and
 * Markdown descriptions, a response example of its own provider on every scrape route, an example for every error
 * response, code samples in three languages on every operation, links to the served guides; and the operator's
 * /admin/docs shell, which holds nothing of the operator API. What Chromium makes of them: test/browser/docs.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { ERROR_CODE_STATUSES, ERROR_CODES } from "../../src/errors";
import { pascalCase } from "../../src/util/pascal-case";
import { ErrorBodySchema } from "../../src/schemas/responses";
import { allProviders, responseSchemaOf } from "../../src/scrapers/registry";
import { api } from "../support/workers/helpers";

interface Media {
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
interface CodeSample {
  lang: string;
  label: string;
  source: string;
}
interface Operation {
  "x-codeSamples"?: CodeSample[];
  security?: unknown[];
  tags?: string[];
  summary?: string;
  description?: string;
  responses: Record<string, { description: string; content?: Record<string, Media> }>;
}
interface Document {
  info: { description?: string };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[] }> };
}

async function openapi(): Promise<Document> {
  const response = await api("/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as Document;
}

function operations(document: Document): Array<{ name: string; path: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, operation })),
  );
}

describe("GET /docs", () => {
  it("is a Swagger UI shell loading only this origin's assets, with no inline script, under a strict CSP", async () => {
    const response = await api("/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:\/\//);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const page = await response.text();
    const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((script) => /src="([^"]+)"/.exec(script[1] ?? "")?.[1])).toEqual([
      "/docs/assets/swagger-ui/swagger-ui-bundle.js",
      "/docs/assets/swagger-options.js",
      "/docs/assets/code-samples.js",
      "/docs/assets/swagger-initializer.js",
    ]);
    for (const script of scripts) expect(script[2]?.trim()).toBe("");
    expect(page).toContain('href="/docs/assets/swagger-ui/swagger-ui.css"');
    // Every URL the page names is a path on this origin: nothing from a CDN.
    for (const [, url] of page.matchAll(/(?:src|href)="([^"]+)"/g)) expect(url).toMatch(/^\/(?!\/)/);
    expect(page).toContain('href="/openapi.json"');
    // The header links the served guides.
    for (const guide of ["examples", "errors", "async-jobs", "limits"]) expect(page).toContain(`href="/docs/guides/${guide}"`);
    expect(page).not.toMatch(/\/admin/);
  });

  it("lets Try it out call PUBLIC_BASE_URL when one is configured, since the document's servers entry names it", async () => {
    const configured = { ...env, PUBLIC_BASE_URL: "https://api.example.org/" };
    const response = await createApp().request("http://127.0.0.1:8787/docs", {}, configured);
    expect(response.headers.get("content-security-policy")).toContain("connect-src 'self' https://api.example.org;");
    const document = (await (await createApp().request("http://127.0.0.1:8787/openapi.json", {}, configured)).json()) as {
      servers: Array<{ url: string }>;
    };
    expect(document.servers.map((server) => server.url)).toEqual(["https://api.example.org"]);
    expect((await api("/docs")).headers.get("content-security-policy")).toContain("connect-src 'self';");
  });
});

describe("GET /admin/docs", () => {
  it("is a shell that asks for the admin token and holds nothing of the operator API, under the same CSP as /docs", async () => {
    const response = await api("/admin/docs");
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:\/\//);
    const page = await response.text();
    expect(page).toMatch(/<input[^>]*type="password"/);
    const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((script) => /src="([^"]+)"/.exec(script[1] ?? "")?.[1])).toEqual([
      "/docs/assets/swagger-ui/swagger-ui-bundle.js",
      "/docs/assets/swagger-options.js",
      "/docs/assets/operator-docs.js",
    ]);
    for (const script of scripts) expect(script[2]?.trim()).toBe("");
    // No operator path, operation or document in the page itself: the script fetches the document with the token.
    expect(page).not.toMatch(/\/admin\/(?!docs)|openapi\.json|accounts|pools/i);
  });
});

describe("The document /docs renders", () => {
  it("describes the API in Markdown, saying it is server-side only and how to authenticate", async () => {
    const description = (await openapi()).info.description ?? "";
    expect(description).toMatch(/server-side only/i);
    expect(description).toContain("`X-API-Key`");
    expect(description).toMatch(/CORS/);
  });

  it("links the guides served by this deployment, not files of a repository the reader cannot reach", async () => {
    const description = (await openapi()).info.description ?? "";
    expect(description).toContain("](/docs/guides/examples)");
    expect(description).toContain("](/docs/guides/errors)");
    expect(description).not.toMatch(/repository/);
    // Nowhere in the document a file of the repository: the reader of a deployment cannot open one.
    expect(JSON.stringify(await openapi())).not.toMatch(/docs\/[\w-]+\.md/);
  });

  it("gives every operation code samples in curl, Python and JavaScript that read API_KEY and API_URL", async () => {
    for (const { name, operation } of operations(await openapi())) {
      const samples = operation["x-codeSamples"] ?? [];
      expect(
        samples.map((sample) => sample.label),
        name,
      ).toEqual(["curl", "Python", "JavaScript"]);
      const [curl, python, javascript] = samples.map((sample) => sample.source);
      expect(curl, name).toMatch(/^curl .*"\$API_URL\//);
      expect(python, name).toContain('API_URL = os.environ.get("API_URL", "http://127.0.0.1:8787")');
      expect(python, name).toContain("urllib.request");
      expect(python, name).not.toMatch(/\brequests\b/);
      expect(javascript, name).toContain('const API_URL = process.env.API_URL ?? "http://127.0.0.1:8787";');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample is JavaScript source with a template literal
      expect(javascript, name).toContain("await fetch(`${API_URL}/");
      // Only the operations that take the key (not the keyless job status, hosted markdown and status) send it.
      if (operation.security?.length !== 0) {
        expect(curl, name).toContain('-H "X-API-Key: $API_KEY"');
        expect(python, name).toContain('API_KEY = os.environ["API_KEY"]');
        expect(javascript, name).toContain("const API_KEY = process.env.API_KEY;");
      }
    }
  });

  it("writes the sync scrape's sample from its declaration: its path, its prompt example, the key in the header", async () => {
    const grok = (await openapi()).paths["/scrapers/grok"]?.get?.["x-codeSamples"] ?? [];
    const [curl, python, javascript] = grok.map((sample) => sample.source);
    expect(curl).toBe(
      'curl -sS --fail-with-body "$API_URL/scrapers/grok?prompt=What%20are%20people%20saying%20about%20the%20new%20Falcon%20launch%3F&country=US" \\\n' +
        '  -H "X-API-Key: $API_KEY"',
    );
    expect(python).toContain(
      'query = urllib.parse.urlencode({"prompt": "What are people saying about the new Falcon launch?", "country": "US"})',
    );
    expect(python).toContain("timeout=330");
    expect(javascript).toContain('headers: { "X-API-Key": API_KEY }');
  });

  it("groups operations under declared tags in reading order: one per scraper (its sync and job routes) first, in the providers' order", async () => {
    const document = await openapi();
    const tags = document.tags ?? [];
    const providers = allProviders();
    expect(tags.slice(0, providers.length).map((tag) => tag.name)).toEqual(providers.map((provider) => provider.name));
    expect(tags.map((tag) => tag.name)).toEqual(expect.arrayContaining(["Jobs", "Batches", "Results", "Account", "Status"]));
    expect(tags.map((tag) => tag.name)).not.toContain("Operator");
    for (const tag of tags) expect(tag.description, tag.name).toMatch(/\S/);
    const declared = new Set(tags.map((tag) => tag.name));
    for (const { name, operation } of operations(document)) {
      expect(operation.tags?.length, name).toBe(1);
      expect(declared.has(operation.tags?.[0] ?? ""), name).toBe(true);
    }
    for (const provider of providers) {
      const tagged = operations(document)
        .filter(({ operation }) => operation.tags?.[0] === provider.name)
        .map(({ name }) => name);
      expect(tagged, provider.id).toEqual([`GET /scrapers/${provider.id}`, `POST /scrapers/${provider.id}/jobs`]);
    }
  });

  it("gives every operation a summary without Markdown (summaries are shown as plain text) and unique within its tag", async () => {
    const seen = new Set<string>();
    for (const { name, operation } of operations(await openapi())) {
      expect(operation.summary, name).toMatch(/\S/);
      expect(operation.summary, name).not.toMatch(/[`*]/);
      const key = `${operation.tags?.[0]} ${operation.summary}`;
      expect(seen.has(key), `${name}: ${key}`).toBe(false);
      seen.add(key);
    }
  });

  it("shows on every scrape route a full example of its own provider: every field a response always has, nullable ones included", async () => {
    const document = await openapi();
    for (const provider of allProviders()) {
      const media = document.paths[`/scrapers/${provider.id}`]?.get?.responses["200"]?.content?.["application/json"];
      const example = media?.example;
      expect(provider.example, `${provider.id} declares its own example`).toBeDefined();
      expect(example, provider.id).toEqual(provider.example);
      const parsed = responseSchemaOf(provider).safeParse(example);
      expect(parsed.success, `${provider.id}: ${parsed.error?.message ?? ""}`).toBe(true);
      // Every field a response always has (the schema's required ones, nullable included) is shown; optional ones
      // (ChatGPT's result_markdown_json, only with markdown_json=true) may be left out.
      const always = document.components.schemas[`${pascalCase(provider.id)}Response`]?.required ?? [];
      expect(always.length, provider.id).toBeGreaterThan(10);
      expect(Object.keys(example ?? {}), provider.id).toEqual(expect.arrayContaining(always));
      expect(example).toMatchObject({ scraper: provider.id, status: "done", credits_used: 3 });
    }
  });

  it("documents every error response with examples: one per code the status carries there, each a real {detail, code} body", async () => {
    const document = await openapi();
    let counted = 0;
    for (const { name, operation } of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.["application/json"];
        if (Number(status) < 400 || media === undefined) continue;
        const examples = Object.entries(media.examples ?? {});
        expect(examples.length, `${name} ${status}`).toBeGreaterThan(0);
        for (const [code, example] of examples) {
          const body = ErrorBodySchema.parse(example.value);
          expect(body.code, `${name} ${status}`).toBe(code);
          expect(ERROR_CODE_STATUSES[body.code], `${name} ${status} ${code}`).toBe(Number(status));
          expect(body.detail, `${name} ${status} ${code}`).toMatch(/\S/);
          counted += 1;
        }
      }
    }
    expect(counted).toBeGreaterThan(100);
    expect(ERROR_CODES.length).toBeGreaterThan(0);
  });

  it("picks the examples a route's error can really be: the codes its description names, the 404 of the route's own resource", async () => {
    const document = await openapi();
    const grok = document.paths["/scrapers/grok"]?.get?.responses ?? {};
    const codesOf = (status: string) => Object.keys(grok[status]?.content?.["application/json"]?.examples ?? {});
    expect(codesOf("401").sort()).toEqual(["invalid_api_key", "missing_api_key"]);
    expect(codesOf("429")).toEqual(expect.arrayContaining(["insufficient_credits", "rate_limited"]));
    const unknownScraper = grok["404"]?.content?.["application/json"]?.examples?.not_found?.value;
    expect(unknownScraper).toMatchObject({ code: "not_found", detail: expect.stringMatching(/^Unknown scraper\. Valid scrapers: /) });
    const job = document.paths["/jobs/{job_id}"]?.get?.responses["404"]?.content?.["application/json"]?.examples?.not_found?.value;
    expect(job).toMatchObject({ detail: expect.stringMatching(/^Job not found/) });
  });
});
