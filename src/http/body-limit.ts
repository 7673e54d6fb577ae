/**
 * The size cap of every request body, in one table, and its enforcement. A body is looked at in this order everywhere:
 * authentication (API key, admin token, dashboard session and origin), then this cap, then parsing. So an anonymous
 * caller's body is never read, and an authenticated one can make the isolate buffer no more than its route's cap: a
 * huge body cannot take down the isolate and every request in flight on it.
 *
 * The caps are enforced by apiKeyAuth, requireAdminToken and the dashboard's form reader, right after they authenticate,
 * from this table (by method and path), so a new route is capped by its authentication without remembering to. Each cap
 * is a few times the largest legitimate body of its routes. Hono's `bodyLimit` refuses a `Content-Length` over the cap
 * without reading anything, and counts a body sent without a length as it streams, stopping at the cap.
 */
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { PayloadTooLargeError } from "../errors";
import { MAX_BATCH_ITEMS } from "../jobs/batch-request";
import { MAX_STATE_BYTES } from "../provider-accounts/storage-state";

const KIB = 1024;

interface BodyCap {
  maxBytes: number;
  /** What to do instead, for the 413's detail: how to split the request, or what the body should hold. */
  advice: string;
}

/**
 * A batch item's share of the batch cap: a 4,000-character prompt of three-byte UTF-8 characters (12 KB) and its other
 * parameters. A prompt escaped as `\uXXXX` (six bytes a character) is larger: such a batch is split, or sent as UTF-8.
 */
const BATCH_ITEM_BYTES = 16 * KIB;

export const BODY_CAPS = {
  batch: {
    maxBytes: MAX_BATCH_ITEMS * BATCH_ITEM_BYTES,
    advice: `A batch holds at most ${MAX_BATCH_ITEMS} items of up to ${BATCH_ITEM_BYTES / KIB} KiB each: send several smaller batches.`,
  },
  // One tool call is a prompt and a few parameters (under 25 KiB even with every character escaped).
  mcp: { maxBytes: 64 * KIB, advice: "Send one tool call per request, or fewer calls in a JSON-RPC array." },
  // The account API's bodies are a URL or a name.
  api: { maxBytes: 16 * KIB, advice: "This endpoint's body is a small JSON object." },
  // Accounts, keys, credits, limits, pools, recovery: a few fields each.
  operator: { maxBytes: 16 * KIB, advice: "This endpoint's body is a small JSON object." },
  // A capture's query holds one prompt, as a scrape's does.
  capture: { maxBytes: 64 * KIB, advice: "A capture's body is one scraper and its query parameters." },
  // A provider session as Playwright exports it, pretty-printed or escaped, is at most about twice its stored size.
  providerSession: {
    maxBytes: 2 * MAX_STATE_BYTES,
    advice: `A session (storage_state) is at most ${MAX_STATE_BYTES / KIB} KiB as compact JSON: drop cookies and origins it does not need.`,
  },
  // Sign-in, keys, webhooks, sign-out: a CSRF token and a name, a token or a URL.
  dashboardForm: { maxBytes: 8 * KIB, advice: "Reload the page and send the form again." },
  // The playground's prompt (4,000 characters, up to nine bytes each once percent-encoded) and a few parameters.
  playgroundForm: { maxBytes: 64 * KIB, advice: "Shorten the prompt (at most 4,000 characters)." },
} as const satisfies Record<string, BodyCap>;

/** Who authenticated the request: the cap of a route that is not in ROUTE_CAPS. */
type BodyAudience = "api" | "operator" | "dashboard";

const AUDIENCE_DEFAULTS: Record<BodyAudience, BodyCap> = {
  api: BODY_CAPS.api,
  operator: BODY_CAPS.operator,
  dashboard: BODY_CAPS.dashboardForm,
};

/** The routes whose largest legitimate body exceeds their audience's default, or that have their own advice. */
const ROUTE_CAPS: ReadonlyArray<{ methods: readonly string[]; path: RegExp; cap: BodyCap }> = [
  { methods: ["POST"], path: /^\/batches\/?$/, cap: BODY_CAPS.batch },
  { methods: ["POST"], path: /^\/mcp\/?$/, cap: BODY_CAPS.mcp },
  { methods: ["POST"], path: /^\/admin\/captures\/?$/, cap: BODY_CAPS.capture },
  { methods: ["POST", "PATCH"], path: /^\/admin\/provider-accounts(\/[^/]+)?\/?$/, cap: BODY_CAPS.providerSession },
  { methods: ["POST"], path: /^\/dashboard\/playground\/?$/, cap: BODY_CAPS.playgroundForm },
];

function bodyCapOf(method: string, path: string, audience: BodyAudience): BodyCap {
  const route = ROUTE_CAPS.find((entry) => entry.methods.includes(method.toUpperCase()) && entry.path.test(path));
  return route?.cap ?? AUDIENCE_DEFAULTS[audience];
}

function sizeInWords(bytes: number): string {
  const mib = 1024 * KIB;
  return bytes % mib === 0 ? `${bytes / mib} MiB` : `${Math.floor(bytes / KIB)} KiB`;
}

export function payloadTooLargeDetail(cap: BodyCap): string {
  return `Request body too large: at most ${sizeInWords(cap.maxBytes)} (${cap.maxBytes} bytes) here. ${cap.advice}`;
}

/**
 * Refuses (413) a body over the request's cap before anything parses it. A body sent without `Content-Length` is read
 * here up to the cap and no further, and kept for the parser. Call it once the caller is authenticated.
 */
export async function enforceBodyCap(c: Context, audience: BodyAudience): Promise<void> {
  const cap = bodyCapOf(c.req.method, c.req.path, audience);
  const limit = bodyLimit({
    maxSize: cap.maxBytes,
    onError: () => {
      throw new PayloadTooLargeError(payloadTooLargeDetail(cap));
    },
  });
  // Used as a check rather than as a step of the chain: the caller continues with its own `next`.
  await limit(c, async () => {});
}
