/**
 * The CORS stance: the API is server-side only. An API key is a secret that must never be shipped to a browser, so the
 * API sends no `Access-Control-Allow-*` header and answers every preflight (`OPTIONS`) on an API path with a 405 that
 * says so, instead of whatever the path would otherwise answer (a 404 "Unknown scraper", a generic 405). Browsers
 * then refuse the cross-origin call, and whoever opens the network panel reads why.
 * The interactive reference at /docs still works: its "Try it out" calls come from the same origin, which needs no CORS.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { ServiceError } from "../errors";
import type { AppEnv } from "./app-env";
import { openApiDocument } from "./openapi-document";

export const SERVER_SIDE_ONLY_DETAIL =
  "This API is server-side only: it does not support CORS, so a web page cannot call it from a browser. " +
  "Call it from your server (curl, Python, Node.js…) and keep the API key there.";

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

/** `/jobs/{job_id}` → a pattern matching `/jobs/<anything but a slash>`. */
function templatePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/}]+\}/g, "[^/]+");
  return new RegExp(`^${escaped}$`);
}

function documentedPaths(app: OpenAPIHono<AppEnv>, origin: string) {
  return { ...openApiDocument(app, origin, "customer").paths, ...openApiDocument(app, origin, "operator").paths };
}

/**
 * Refuses `OPTIONS` on every path the OpenAPI document lists, with `Allow` naming the methods the path does take (a 405
 * must). Other paths (the dashboard, an unknown scraper) answer as they would to any other method.
 */
export function registerPreflightRefusal(app: OpenAPIHono<AppEnv>): void {
  let routes: Array<{ template: string; pattern: RegExp; allow: string[] }> | undefined;
  app.use("*", async (c, next) => {
    if (c.req.method !== "OPTIONS") return next();
    // Built on the first OPTIONS request, when every route is registered; the routes do not change afterwards. Both
    // documents: the operator's routes are as server-side only as the customers'.
    routes ??= Object.entries(documentedPaths(app, new URL(c.req.url).origin)).map(([template, item]) => {
      const methods = METHODS.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase());
      // Every GET route answers HEAD too.
      return { template, pattern: templatePattern(template), allow: methods.includes("GET") ? [...methods, "HEAD"] : methods };
    });
    // A literal path (`/jobs`) before a template that would also match it.
    const path = c.req.path;
    const documented = routes.find(({ template }) => template === path) ?? routes.find(({ pattern }) => pattern.test(path));
    if (documented === undefined) return next();
    c.header("Allow", documented.allow.join(", "));
    throw new ServiceError(405, SERVER_SIDE_ONLY_DETAIL, { code: "method_not_allowed" });
  });
}
