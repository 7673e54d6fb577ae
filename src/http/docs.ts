/**
 * The two API references, each an OpenAPI 3.1 document (generated from the same zod schemas that validate requests,
 * split by src/http/openapi-audience.ts) and a Swagger UI page rendering it:
 * - customers: `GET /openapi.json` and `GET /docs`, with "Try it out", the Authorize button for the API key, code
 *   samples in curl, Python and JavaScript, and links to the guides (public/docs/guides/, rendered at build time);
 * - the operator: `GET /admin/openapi.json` (the admin token, like every admin route) and `GET /admin/docs`, a page
 *   that shows nothing but a token field until the token it is given fetches that document.
 * The pages are small shells served here (so they carry their own Content-Security-Policy); Swagger UI itself and our
 * scripts are static assets under /docs/assets/ (wrangler.toml `[assets]`, copied from swagger-ui-dist by
 * scripts/copy-docs-assets.mjs), so the references need no CDN and work offline.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { html } from "hono/html";
import { configuredBaseUrl } from "../util/public-base-url";
import { requireAdminToken } from "./admin-token";
import type { AppEnv } from "./app-env";
import { DOCS_GUIDES, guideUrl } from "./docs-guides";
import { OPERATOR_PATH_PREFIX } from "./openapi-audience";
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

/** The links above the customers' reference: the reference itself, then every served guide. */
function guideLinks() {
  return html`<header class="docs-header">
<a class="docs-header-title" href="/docs">${API_INFO.title}</a>
<nav aria-label="Guides">${DOCS_GUIDES.map((guide) => html`<a href="${guideUrl(guide.slug)}">${guide.label}</a>`)}</nav>
</header>`;
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
<script src="${DOCS_ASSETS}/swagger-options.js" defer></script>
<script src="${DOCS_ASSETS}/code-samples.js" defer></script>
<script src="${DOCS_ASSETS}/swagger-initializer.js" defer></script>
</head>
<body>
${guideLinks()}
<div id="swagger-ui"><p class="docs-loading">Loading the API reference… The machine-readable document is <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p></div>
<noscript><p class="docs-loading">The interactive reference needs JavaScript. The document itself: <a href="/openapi.json">/openapi.json</a>.</p></noscript>
</body>
</html>`;
}

/**
 * The operator's page: nothing of the operator API is in it. Its script (operator-docs.js) asks for the token, fetches
 * /admin/openapi.json with it and only then starts Swagger UI; the token stays in that script's memory.
 */
function operatorDocsPage() {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${API_INFO.title} — operator reference</title>
<link rel="icon" type="image/png" href="${DOCS_ASSETS}/swagger-ui/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_ASSETS}/swagger-ui/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_ASSETS}/docs.css">
<script src="${DOCS_ASSETS}/swagger-ui/swagger-ui-bundle.js" defer></script>
<script src="${DOCS_ASSETS}/swagger-options.js" defer></script>
<script src="${DOCS_ASSETS}/operator-docs.js" defer></script>
</head>
<body>
<header class="docs-header"><span class="docs-header-title">Operator reference</span><nav aria-label="Customer reference"><a href="/docs">Customer API reference</a></nav></header>
<form id="operator-token-form" class="operator-token">
<label for="operator-token">Admin token (<code>ADMIN_TOKEN</code>)</label>
<input id="operator-token" name="token" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Show the operator reference</button>
<p id="operator-token-error" class="operator-token-error" role="alert" hidden></p>
<p class="operator-token-note">The token is kept in this tab's memory only and sent only to this deployment.</p>
</form>
<div id="swagger-ui"></div>
<noscript><p class="docs-loading">The operator reference needs JavaScript.</p></noscript>
</body>
</html>`;
}

/** The headers of both shells: their CSP, and nothing cached or referred. */
function shellHeaders(c: Context<AppEnv>): Record<string, string> {
  const configured = configuredBaseUrl(c.env);
  return {
    "Content-Security-Policy": contentSecurityPolicy(configured === null ? "" : new URL(configured).origin),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
  };
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
  app.get("/openapi.json", (c) => c.json(openApiDocument(app, serverOf(c), "customer")));
  app.get("/docs", async (c) => c.html(await docsPage(), 200, shellHeaders(c)));
  // Behind the token like every admin route; never stored by a cache on the way.
  app.get(`${OPERATOR_PATH_PREFIX}/openapi.json`, requireAdminToken, (c) =>
    c.json(openApiDocument(app, serverOf(c), "operator"), 200, { "Cache-Control": "no-store" }),
  );
  // The shell holds nothing of the operator API, so it needs no token (a browser cannot send one on navigation).
  app.get(`${OPERATOR_PATH_PREFIX}/docs`, async (c) => c.html(await operatorDocsPage(), 200, shellHeaders(c)));
  app.get("/", (c) => c.redirect("/docs"));
}
