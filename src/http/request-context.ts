import type { Context } from "hono";
import type { AppEnv } from "./app-env";

/** The public origin callers used, so hosted URLs point back at the same deployment. */
export function requestBaseUrl(c: Context<AppEnv>): string {
  return new URL(c.req.url).origin;
}

/** A URL fit for logs: the `api_key` query parameter is never written anywhere. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.searchParams.has("api_key")) parsed.searchParams.set("api_key", "[redacted]");
  return parsed.pathname + parsed.search;
}
