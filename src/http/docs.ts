/**
 * `GET /openapi.json` (OpenAPI 3.1, generated from the same zod schemas that validate requests) and `GET /docs`, the API
 * reference: Swagger UI rendering that document, with "Try it out" and the Authorize button for the API key.
 * The page is a small shell served here (so it carries its own Content-Security-Policy); Swagger UI itself and our
 * initializer are static assets under /docs/assets/ (wrangler.toml `[assets]`, copied from swagger-ui-dist by
 * scripts/copy-docs-assets.mjs), so the reference needs no CDN and works offline.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { html } from "hono/html";
import { configuredBaseUrl } from "../util/public-base-url";
import type { AppEnv } from "./app-env";
import { API_INFO, openApiDocument } from "./openapi-document";

/** Where the assets live (public/docs/assets/): the only paths the Worker lets the asset server answer first. */
const DOCS_ASSETS = "/docs/assets";

/**
 * `servers` is this deployment: its configured public address, else the origin the document was requested from. Unlike
 * a link handed to someone else, the request's own Host only ever points the requester back at what they asked.
 */
function serverOf(c: Context<AppEnv>): string {
  return configuredBaseUrl(c.env) ?? new URL(c.req.url).origin;
}

/**
 * Scripts and styles from this origin only, no inline script or style attribute in the markup, no third party: Swagger
 * UI is served from our own assets, and "Try it out" may only call this deployment (the `servers` entry, which is this
 * origin unless PUBLIC_BASE_URL names another one). Swagger UI shows its icons as inline SVG and data: images.
 */
function contentSecurityPolicy(server: string): string {
  const connect = server === "" ? "'self'" : `'self' ${server}`;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

function docsPage() {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${API_INFO.title} — API reference</title>
<link rel="icon" type="image/png" href="${DOCS_ASSETS}/swagger-ui/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_ASSETS}/swagger-ui/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_ASSETS}/docs.css">
<script src="${DOCS_ASSETS}/swagger-ui/swagger-ui-bundle.js" defer></script>
<script src="${DOCS_ASSETS}/swagger-initializer.js" defer></script>
</head>
<body>
<div id="swagger-ui"><p class="docs-loading">Loading the API reference… The machine-readable document is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p></div>
<noscript><p class="docs-loading">The interactive reference needs JavaScript. The document itself: <a href="/openapi.json">/openapi.json</a>.</p></noscript>
</body>
</html>`;
}

export function registerDocsRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "Your API key (recommended: keeps the key out of URLs and logs).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyQuery", {
    type: "apiKey",
    in: "query",
    name: "api_key",
    description: "Your API key as a query parameter, when a header cannot be set.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The operator token (`ADMIN_TOKEN`).",
  });
  app.get("/openapi.json", (c) => c.json(openApiDocument(app, serverOf(c))));
  app.get("/docs", async (c) => {
    const configured = configuredBaseUrl(c.env);
    return c.html(await docsPage(), 200, {
      "Content-Security-Policy": contentSecurityPolicy(configured === null ? "" : new URL(configured).origin),
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Cache-Control": "no-cache",
    });
  });
  app.get("/", (c) => c.redirect("/docs"));
}
