/**
 * The public status page: `GET /status` (HTML, or JSON for `Accept: application/json`), `GET /status.json` and its
 * stylesheet. No key: it shows aggregates only (src/status/).
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { accepts } from "hono/accepts";
import { ServiceError } from "../errors";
import { ServiceStatusSchema } from "../status/status-schema";
import { currentServiceStatus, STATUS_MAX_AGE_MS } from "../status/status-snapshot";
import type { AppEnv } from "./app-env";
import { errorResponse } from "./openapi-errors";
import { REQUEST_ID_HEADER } from "./request-id";
import { STATUS_CSS } from "./status-assets";
import { statusPageHtml } from "./status-page";

const CACHE_CONTROL = `public, max-age=${STATUS_MAX_AGE_MS / 1000}`;
/** The page has no script and loads only its own stylesheet. */
const PAGE_SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
} as const;

const HTML = "text/html";
const JSON_TYPE = "application/json";
type Representation = typeof HTML | typeof JSON_TYPE;
const NOT_ACCEPTABLE_DETAIL = "Not acceptable: this resource is available as text/html and application/json only.";
const NOT_ACCEPTABLE_JSON_DETAIL = "Not acceptable: /status.json is application/json only; GET /status serves the HTML page.";

/** How specific an Accept entry is: at equal quality an exact type wins over a range (`text/…`), which wins over any type. */
function specificity(type: string): number {
  if (type === "*/*" || type === "*") return 0;
  return type.endsWith("/*") ? 1 : 2;
}

/**
 * The representation of `offered` the request's Accept header prefers (RFC 9110 §12.5.1: highest quality, then the
 * most specific entry), the first offered when there is no Accept header, or null when it accepts none of them.
 */
function negotiate(c: Context<AppEnv>, offered: readonly [Representation, ...Representation[]]): Representation | null {
  const none = "";
  const chosen = accepts(c, {
    header: "Accept",
    supports: [...offered],
    default: offered[0],
    match: (entries) => {
      const ranked = entries
        .filter((entry) => entry.q > 0)
        .sort((a, b) => b.q - a.q || specificity(b.type.toLowerCase()) - specificity(a.type.toLowerCase()));
      for (const entry of ranked) {
        const type = entry.type.toLowerCase();
        const match = offered.find((candidate) =>
          specificity(type) === 0 ? true : specificity(type) === 1 ? candidate.startsWith(type.slice(0, -1)) : candidate === type,
        );
        if (match !== undefined) return match;
      }
      return none;
    },
  });
  return offered.find((candidate) => candidate === chosen) ?? null;
}

const DESCRIPTION =
  "Per provider: up, degraded, down (or unknown without data), success rate and p50/p95 latency of the scheduled " +
  "canary scrapes and of customer traffic over the last hour and day, and the latest failure's category. Public: " +
  "aggregates only. Figures are at most 30 seconds old.";

const statusRoute = createRoute({
  method: "get",
  path: "/status",
  operationId: "getServiceStatus",
  tags: ["Status"],
  summary: "Service status (HTML page, or JSON with Accept: application/json)",
  description: DESCRIPTION,
  security: [],
  responses: {
    200: {
      description: "The status page, or the status document when the request accepts application/json",
      content: { "application/json": { schema: ServiceStatusSchema }, "text/html": { schema: z.string() } },
    },
    406: errorResponse("The Accept header allows neither text/html nor application/json"),
  },
});

const statusJsonRoute = createRoute({
  method: "get",
  path: "/status.json",
  operationId: "getServiceStatusJson",
  tags: ["Status"],
  summary: "Service status as JSON",
  description: DESCRIPTION,
  security: [],
  responses: {
    200: { description: "The status document", content: { "application/json": { schema: ServiceStatusSchema } } },
    406: errorResponse("The Accept header does not allow application/json"),
  },
});

async function statusJson(c: Context<AppEnv>) {
  const status = await currentServiceStatus(c.env.DB);
  // Public aggregates: every site may show them (no credential is involved), and read the request id a report needs.
  return c.json(status, 200, {
    "Cache-Control": CACHE_CONTROL,
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": REQUEST_ID_HEADER,
  });
}

export function registerStatusRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(statusRoute, async (c) => {
    c.header("Vary", "Accept");
    const representation = negotiate(c, [HTML, JSON_TYPE]);
    if (representation === null) throw new ServiceError(406, NOT_ACCEPTABLE_DETAIL, { code: "not_acceptable" });
    if (representation === JSON_TYPE) return statusJson(c);
    const status = await currentServiceStatus(c.env.DB);
    return c.html(statusPageHtml(status), 200, { "Cache-Control": CACHE_CONTROL, ...PAGE_SECURITY_HEADERS });
  });
  app.openapi(statusJsonRoute, async (c) => {
    if (negotiate(c, [JSON_TYPE]) === null) throw new ServiceError(406, NOT_ACCEPTABLE_JSON_DETAIL, { code: "not_acceptable" });
    return statusJson(c);
  });
  app.get("/status.css", (c) =>
    c.body(STATUS_CSS, 200, {
      "Content-Type": "text/css; charset=utf-8",
      "Cache-Control": "public, max-age=300",
      "X-Content-Type-Options": "nosniff",
    }),
  );
}
