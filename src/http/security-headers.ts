/**
 * Strict-Transport-Security on every response to an https request (the dashboard, the API, the docs and status pages,
 * errors included): once a browser has seen it, it never again sends the session cookie or an `api_key` query
 * parameter to this host over plain http, even when a link or a typed address says http://.
 *
 * - One year (the value browsers' preload lists require) and `includeSubDomains`: every name under the service's host
 *   must serve https. No `preload`: that is an operator's decision, made with the browser vendors, not by the code.
 * - Not over plain http: RFC 6797 §7.2 forbids it there, and browsers ignore it anyway (anyone on the path could have
 *   added it). On Cloudflare the request's URL carries the scheme the client used; a self-hosted TLS proxy in front of
 *   workerd should add the header itself.
 * - Not for loopback hosts (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`), even over https: `includeSubDomains`
 *   for a year would pin the developer's machine, and every other local server on it then fails over http.
 *
 * The other security headers (Content-Security-Policy, X-Frame-Options, nosniff, Referrer-Policy) stay with the pages
 * that need them (src/dashboard/routes.tsx, src/http/status.ts, src/http/docs.ts, src/http/markdown.ts): they depend
 * on what each page loads; HSTS does not.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";

const STRICT_TRANSPORT_SECURITY = "max-age=31536000; includeSubDomains";

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Whether a response to this request URL gets Strict-Transport-Security. */
function wantsStrictTransportSecurity(requestUrl: string): boolean {
  const url = new URL(requestUrl);
  return url.protocol === "https:" && !isLoopbackHost(url.hostname);
}

export const strictTransportSecurity: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (wantsStrictTransportSecurity(c.req.url)) c.header("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
};

/**
 * Hosted markdown and evidence files are provider content (and so, indirectly, whatever a web page got the provider to
 * say), served from the dashboard's origin. They must never run as a page there: `nosniff` keeps browsers from reading
 * one as another type, and the policy forbids every script, style, frame, form and fetch and sandboxes the document, so
 * a page's HTML opens as inert, unstyled markup.
 */
export const HOSTED_DOCUMENT_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "same-origin",
} as const;
