/** What a request may safely contribute to URLs we hand out and to lines we log, and what its callees know of it. */
import type { Context } from "hono";
import type { RequestOrigin, RequestSurface } from "../accounts/request-log";
import { ServiceError } from "../errors";
import { configuredBaseUrl } from "../util/public-base-url";
import type { AppEnv } from "./app-env";
import { requestLogLine } from "./request-id";

export const BASE_URL_NOT_CONFIGURED_DETAIL =
  "This deployment is missing its public address (PUBLIC_BASE_URL). The operators have been alerted.";

/** Hosts that can only be this machine: loopback addresses and RFC 6761 `localhost`. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Hosts that can only be this machine or a test harness (loopback and RFC 2606 `.test`): for them, and only for them,
 * the request's own origin stands in for a missing PUBLIC_BASE_URL.
 */
function isLocalHost(hostname: string): boolean {
  return isLoopbackHost(hostname) || hostname.toLowerCase().endsWith(".test");
}

/**
 * Whether the visitor reached this deployment on this machine's own address (`npm start`'s 127.0.0.1:8787): then it is
 * a local deployment, and pages can name the project's commands instead of "ask whoever gave you access".
 */
export function isLoopbackRequest(c: Context<AppEnv>): boolean {
  return isLoopbackHost(new URL(c.req.url).hostname);
}

/**
 * The public address of this API for the URLs we hand out (`markdown_url`, dashboard sign-in links): PUBLIC_BASE_URL.
 * Never the request's `Host` header in production, which the caller controls: a link built from it would point
 * wherever the caller liked. Locally (loopback and test hosts) the request's origin is used when nothing is configured.
 */
export function requestBaseUrl(c: Context<AppEnv>): string {
  const configured = configuredBaseUrl(c.env);
  if (configured !== null) return configured;
  const url = new URL(c.req.url);
  if (isLocalHost(url.hostname)) return url.origin;
  console.error(
    requestLogLine(
      c,
      `PUBLIC_BASE_URL is not set (or not an http(s) URL); refusing to build links from the Host header ${logSafe(url.host)}`,
    ),
  );
  throw new ServiceError(500, BASE_URL_NOT_CONFIGURED_DETAIL, { code: "internal_error" });
}

/**
 * Text fit for a log line: control characters (CR, LF, tabs, escapes) are written as `\u000a` and the like, so a
 * value taken from a request can never start a line of its own and pass for something the service logged.
 */
function logSafe(text: string): string {
  let safe = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
    safe += control ? `\\u${code.toString(16).padStart(4, "0")}` : char;
  }
  return safe;
}

/** Path segments that carry a secret (legacy dashboard sign-in links put the token in the path). */
const SECRET_PATH = /^(\/dashboard\/login\/)[^/?#]+/;

/**
 * A URL fit for logs: the `api_key` query parameter and any sign-in token are never written anywhere, and nothing in
 * it can break the line.
 */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.searchParams.has("api_key")) parsed.searchParams.set("api_key", "[redacted]");
  return logSafe(parsed.pathname.replace(SECRET_PATH, "$1[redacted]") + parsed.search);
}

/** The URL's path alone, fit for logs like `redactedUrl`: no query (prompts are the customer's), no sign-in token. */
export function redactedPath(url: string): string {
  return logSafe(new URL(url).pathname.replace(SECRET_PATH, "$1[redacted]"));
}

/**
 * This request as the pipeline's callers (a scrape, a job or batch submission) see it: its id names their log lines
 * and its row in the account's request log (src/accounts/request-log.ts), written after the response.
 */
export function requestOrigin(c: Context<AppEnv>, surface: RequestSurface): RequestOrigin {
  return {
    requestId: c.get("requestId"),
    surface,
    startedAt: c.get("startedAt"),
    afterResponse: (work) => c.executionCtx.waitUntil(work),
  };
}
