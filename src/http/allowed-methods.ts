/**
 * Which methods each documented path takes, read once from the route declarations (both OpenAPI documents), so every
 * 405 of the API names the same `Allow` for a path whatever method was refused: a preflight (`OPTIONS`), a wrong
 * method on a scraper, a `DELETE` on a job. Every GET route answers HEAD too (Hono serves HEAD from GET), so HEAD is
 * listed wherever GET is.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env";
import { openApiDocument } from "./openapi-document";

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

interface DocumentedRoute {
  template: string;
  pattern: RegExp;
  allow: string[];
}

/** `/jobs/{job_id}` → a pattern matching `/jobs/<anything but a slash>`. */
function templatePattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/}]+\}/g, "[^/]+");
  return new RegExp(`^${escaped}$`);
}

function documentedRoutes(app: OpenAPIHono<AppEnv>, origin: string): DocumentedRoute[] {
  // Both documents: the operator's routes answer a wrong method as the customers' do.
  const paths = { ...openApiDocument(app, origin, "customer").paths, ...openApiDocument(app, origin, "operator").paths };
  return Object.entries(paths).map(([template, item]) => {
    const methods = METHODS.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase());
    return { template, pattern: templatePattern(template), allow: methods.includes("GET") ? [...methods, "HEAD"] : methods };
  });
}

export type AllowedMethods = (path: string, origin: string) => string[] | null;

/**
 * The methods `path` takes, or null when no documented route has that path. Built on the first call, when every route
 * is registered (the routes do not change afterwards). A literal path (`/jobs`) wins over a template that would also
 * match it (`/jobs/{job_id}`).
 */
export function allowedMethodsOf(app: OpenAPIHono<AppEnv>): AllowedMethods {
  let routes: DocumentedRoute[] | undefined;
  return (path, origin) => {
    routes ??= documentedRoutes(app, origin);
    const documented = routes.find(({ template }) => template === path) ?? routes.find(({ pattern }) => pattern.test(path));
    return documented?.allow ?? null;
  };
}
