/**
 * `GET /openapi.json` (OpenAPI 3.1 generated from the same zod schemas that validate requests) and `GET /docs`, a
 * self-contained reference page rendered from that document (no third-party scripts, so it works anywhere).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { html, raw } from "hono/html";
import type { AppEnv } from "./app-env";

const API_INFO = {
  title: "AI Answer Scraper API",
  version: "1.0.0",
  description:
    "Submit a prompt to the real web interface of seven AI providers through a pool of browsers and get the full reply as structured JSON. " +
    "Every scrape costs 3 credits. Authenticate with the `X-API-Key` header (recommended) or the `api_key` query parameter.",
};

interface OperationView {
  method: string;
  path: string;
  summary: string;
  description: string;
  parameters: Array<{ name: string; in: string; required: boolean; description: string; type: string; default: string }>;
  responses: Array<{ status: string; description: string }>;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string {
  return typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
}

function operationsOf(document: Record<string, unknown>): OperationView[] {
  const operations: OperationView[] = [];
  for (const [path, item] of Object.entries(asRecord(document.paths))) {
    for (const [method, operationValue] of Object.entries(asRecord(item))) {
      const operation = asRecord(operationValue);
      const parameters = Array.isArray(operation.parameters) ? operation.parameters.map(asRecord) : [];
      operations.push({
        method: method.toUpperCase(),
        path,
        summary: text(operation.summary),
        description: text(operation.description),
        parameters: parameters.map((parameter) => {
          const schema = asRecord(parameter.schema);
          const enumValues = Array.isArray(schema.enum) ? ` (${schema.enum.join(", ")})` : "";
          return {
            name: text(parameter.name),
            in: text(parameter.in),
            required: parameter.required === true,
            description: text(schema.description ?? parameter.description),
            type: text(schema.type) + enumValues,
            default: schema.default === undefined ? "" : text(schema.default),
          };
        }),
        responses: Object.entries(asRecord(operation.responses)).map(([status, response]) => ({
          status,
          description: text(asRecord(response).description),
        })),
      });
    }
  }
  return operations;
}

function renderDocs(document: Record<string, unknown>) {
  const operations = operationsOf(document);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${API_INFO.title} — reference</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
  main { max-width: 980px; margin: 0 auto; padding: 32px 20px 64px; }
  h1 { margin: 0 0 8px; } .lead { color: #4a5568; }
  section { background: #fff; border: 1px solid #e2e5ea; border-radius: 10px; padding: 18px 20px; margin: 18px 0; }
  .verb { display: inline-block; min-width: 56px; font-weight: 700; font-family: ui-monospace, monospace; }
  .get { color: #1a7f37; } .post { color: #0b5cad; } .delete { color: #b42318; }
  code, .path { font-family: ui-monospace, monospace; }
  table { border-collapse: collapse; width: 100%; margin-top: 10px; font-size: 14px; }
  th, td { text-align: left; padding: 6px 8px; border-top: 1px solid #eef0f3; vertical-align: top; }
  th { color: #4a5568; font-weight: 600; }
  .req { color: #b42318; font-size: 12px; }
</style>
</head>
<body><main>
<h1>${API_INFO.title}</h1>
<p class="lead">${API_INFO.description}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are always JSON <code>{"detail": "..."}</code>.</p>
${operations.map(
  (operation) => html`<section>
  <div><span class="verb ${operation.method.toLowerCase()}">${operation.method}</span> <span class="path">${operation.path}</span></div>
  <p><strong>${operation.summary}</strong>${operation.description ? html` — ${operation.description}` : ""}</p>
  ${
    operation.parameters.length > 0
      ? html`<table><tr><th>Parameter</th><th>In</th><th>Type</th><th>Default</th><th>Description</th></tr>
      ${operation.parameters.map(
        (
          parameter,
        ) => html`<tr><td><code>${parameter.name}</code>${parameter.required ? raw(' <span class="req">required</span>') : ""}</td>
        <td>${parameter.in}</td><td>${parameter.type}</td><td>${parameter.default}</td><td>${parameter.description}</td></tr>`,
      )}</table>`
      : ""
  }
  <table><tr><th>Status</th><th>Meaning</th></tr>
  ${operation.responses.map((response) => html`<tr><td>${response.status}</td><td>${response.description}</td></tr>`)}</table>
</section>`,
)}
</main></body></html>`;
}

export function registerDocsRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyHeader", { type: "apiKey", in: "header", name: "X-API-Key" });
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyQuery", { type: "apiKey", in: "query", name: "api_key" });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", { type: "http", scheme: "bearer" });
  const documentConfig = { openapi: "3.1.0", info: API_INFO };
  app.doc31("/openapi.json", documentConfig);
  app.get("/docs", (c) => {
    const document = app.getOpenAPI31Document(documentConfig) as unknown as Record<string, unknown>;
    return c.html(renderDocs(document));
  });
  app.get("/", (c) => c.redirect("/docs"));
}
