/**
 * `GET /openapi.json` (OpenAPI 3.1 generated from the same zod schemas that validate requests) and `GET /docs`, a
 * self-contained reference page rendered from that document (no third-party scripts, so it works anywhere).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { html, raw } from "hono/html";
import type { OpenAPIObject, ParameterObject, ReferenceObject, SchemaObject } from "openapi3-ts/oas31";
import type { AppEnv } from "./app-env";
import { API_INFO, openApiDocument } from "./openapi-document";
import { configuredBaseUrl } from "./request-context";

interface OperationView {
  method: string;
  path: string;
  operationId: string;
  summary: string;
  description: string;
  parameters: Array<{ name: string; in: string; required: boolean; description: string; type: string; default: string }>;
  responses: Array<{ status: string; description: string }>;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;

function text(value: unknown): string {
  return typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
}

function isReference(value: object): value is ReferenceObject {
  return "$ref" in value;
}

function parameterView(parameter: ParameterObject): OperationView["parameters"][number] {
  const schema: SchemaObject = parameter.schema === undefined || isReference(parameter.schema) ? {} : parameter.schema;
  const enumValues = Array.isArray(schema.enum) ? ` (${schema.enum.join(", ")})` : "";
  return {
    name: parameter.name,
    in: parameter.in,
    required: parameter.required === true,
    description: text(schema.description ?? parameter.description),
    type: text(schema.type) + enumValues,
    default: schema.default === undefined ? "" : text(schema.default),
  };
}

function operationsOf(document: OpenAPIObject): OperationView[] {
  const operations: OperationView[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId ?? "",
        summary: text(operation.summary),
        description: text(operation.description),
        parameters: (operation.parameters ?? []).flatMap((parameter) => (isReference(parameter) ? [] : [parameterView(parameter)])),
        responses: Object.entries(operation.responses ?? {}).map(([status, response]) => ({
          status,
          description: isReference(response) ? "" : text(response.description),
        })),
      });
    }
  }
  return operations;
}

function renderDocs(document: OpenAPIObject) {
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
  .op { float: right; color: #6b7280; font-size: 13px; }
</style>
</head>
<body><main>
<h1>${API_INFO.title}</h1>
<p class="lead">${API_INFO.description}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are always JSON <code>{"detail": "..."}</code>.
MCP server for AI assistants: <code>/mcp</code> (streamable HTTP, same API key).</p>
${operations.map(
  (operation) => html`<section>
  <div><span class="verb ${operation.method.toLowerCase()}">${operation.method}</span> <span class="path">${operation.path}</span> <code class="op">${operation.operationId}</code></div>
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
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "Your API key (recommended: keeps the key out of URLs and logs)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyQuery", {
    type: "apiKey",
    in: "query",
    name: "api_key",
    description: "Your API key as a query parameter, when a header cannot be set",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator token (`ADMIN_TOKEN`)",
  });
  // `servers` is this deployment: its configured public address, else the origin the document was requested from. Unlike
  // a link handed to someone else, the request's own Host only ever points the requester back at what they asked.
  const serverOf = (c: Context<AppEnv>) => configuredBaseUrl(c.env) ?? new URL(c.req.url).origin;
  app.get("/openapi.json", (c) => c.json(openApiDocument(app, serverOf(c))));
  app.get("/docs", (c) => c.html(renderDocs(openApiDocument(app, serverOf(c)))));
  app.get("/", (c) => c.redirect("/docs"));
}
