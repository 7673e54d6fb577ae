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
import type { AllowedMethods } from "./allowed-methods";

export const SERVER_SIDE_ONLY_DETAIL =
  "This API is server-side only: it does not support CORS, so a web page cannot call it from a browser. " +
  "Call it from your server (curl, Python, Node.js…) and keep the API key there.";

/**
 * Refuses `OPTIONS` on every path the OpenAPI document lists, with `Allow` naming the methods the path does take (a 405
 * must). Other paths (the dashboard, an unknown scraper) answer as they would to any other method.
 */
export function registerPreflightRefusal(app: OpenAPIHono<AppEnv>, allowedMethods: AllowedMethods): void {
  app.use("*", async (c, next) => {
    if (c.req.method !== "OPTIONS") return next();
    const allow = allowedMethods(c.req.path, new URL(c.req.url).origin);
    if (allow === null) return next();
    c.header("Allow", allow.join(", "));
    throw new ServiceError(405, SERVER_SIDE_ONLY_DETAIL, { code: "method_not_allowed" });
  });
}
