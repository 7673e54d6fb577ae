/**
 * Perplexity replica (perplexity.md): the page and `POST /rest/sse/perplexity_ask` as a Hono app the replica server
 * mounts under `/perplexity`. Paths below the mount are the real site's, so a scraper only swaps the origin.
 *
 * Routes: `GET /` (home), `GET /search/<slug>` (thread page), `GET /search?q=` (deep link: starts the search on load),
 * `GET /api/auth/session` (`{}`: anonymous), `POST /rest/sse/perplexity_ask` (the answer stream),
 * `POST /rest/sse/perplexity_ask/reconnect/<backend_uuid>` (the terminal snapshot of a run this server started, else
 * 403 `{}`), `POST /rest/sse/perplexity_terminate` (the stop button).
 *
 * Exchanges and faults (control.ts): every POST to perplexity_ask is one exchange and is recorded. In order:
 *   1. login-wall cookie of the page → 401 (that page cannot ask; consumes no fault)
 *   2. invalid body → 400 `{"detail":…}` (not JSON, no non-blank `query_str`, `params` not an object; consumes no fault)
 *   3. the fault at the head of the queue, if any, is consumed and played; otherwise the scenario is streamed.
 * Page loads consume `challenge` (403 "Just a moment..." with `cf-mitigated: challenge`) and `login_wall` (the page
 * renders the sign-in modal over the composer and sets a cookie that makes its POSTs answer 401) when at the head.
 * The Web source is on unless `params.sources` is a list without "web" (the page then also sends
 * `skip_search_enabled:true`); diff mode is on when `params.supported_block_use_cases` lists "diff_blocks".
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { FaultController, FaultName } from "../control";
import { pacedBody, sleep, splitIntoChunks, untilAborted } from "../shared/paced-body";
import { destroyConnection, type ReplicaEnv } from "../shared/replica-env";
import { genericVariationTag } from "../shared/page-variation";
import { isPerplexityLayout, PERPLEXITY_VARIATION_PROFILE, renderChallengePage, renderPerplexityPage } from "./page";
import { drawPerplexityVariation, type StreamAlternatives } from "./variation";
import { type PerplexityRun, resolvePerplexityRun } from "./scenarios";
import { type PerplexityRequestEcho, type PerplexityStreamFault, renderPerplexityBody, renderTerminalEvent } from "./stream";
import { renderChangedPage } from "../shared/changed-page";

export const PERPLEXITY_PROVIDER_ID = "perplexity";
export const PERPLEXITY_ASK_PATH = "/rest/sse/perplexity_ask";
const LOGIN_WALL_COOKIE = "replica_pplx_login_wall";
const MAX_REMEMBERED_RUNS = 50;
const MAX_REMEMBERED_PAGES = 50;

/** Faults answered with an HTTP error instead of a stream (perplexity.md §5). */
export const PERPLEXITY_ERROR_FAULTS = {
  login_wall: { status: 401, body: { detail: "Not authenticated" } },
  rate_limited: { status: 429, body: { detail: "Too many requests. You have reached the limit of searches for now." } },
  http_error: { status: 500, body: { error_code: "INTERNAL_SERVER_ERROR", error_message: "An internal error occurred." } },
} as const;
type PerplexityErrorFault = keyof typeof PERPLEXITY_ERROR_FAULTS;

function isErrorFault(fault: FaultName | null): fault is PerplexityErrorFault {
  return fault !== null && Object.hasOwn(PERPLEXITY_ERROR_FAULTS, fault);
}

const STREAM_FAULTS: readonly FaultName[] = ["malformed_stream", "disconnect", "empty_answer"];
function isStreamFault(fault: FaultName | null): fault is PerplexityStreamFault {
  return fault !== null && STREAM_FAULTS.includes(fault);
}

/** The request fields the replica uses; the rest of the real body is accepted and ignored. */
export interface PerplexityAskRequest {
  queryStr: string;
  searchEnabled: boolean;
  echo: PerplexityRequestEcho;
}

/** Validates the body the page sent; returns an error message naming the field when it is unusable. */
export function parsePerplexityAskRequest(body: unknown): PerplexityAskRequest | { error: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { error: "body: must be a JSON object" };
  const queryStr: unknown = Reflect.get(body, "query_str");
  if (typeof queryStr !== "string" || queryStr.trim() === "") return { error: "query_str: must be a non-blank string" };
  const params: unknown = Reflect.get(body, "params") ?? {};
  if (typeof params !== "object" || params === null || Array.isArray(params)) return { error: "params: must be an object" };
  const field = (name: string): unknown => Reflect.get(params, name);
  const sources = field("sources");
  const useCases = field("supported_block_use_cases");
  const text = (value: unknown, fallback: string): string => (typeof value === "string" && value !== "" ? value : fallback);
  const frontendContextUuid = field("frontend_context_uuid");
  return {
    queryStr,
    searchEnabled: !Array.isArray(sources) || sources.includes("web"),
    echo: {
      frontendContextUuid: typeof frontendContextUuid === "string" ? frontendContextUuid : null,
      modelPreference: text(field("model_preference"), "turbo"),
      mode: text(field("mode"), "copilot"),
      searchFocus: text(field("search_focus"), "internet"),
      diffMode: Array.isArray(useCases) && useCases.includes("diff_blocks"),
    },
  };
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

function challengeResponse(c: Context<ReplicaEnv>): Response {
  c.header("cf-mitigated", "challenge");
  c.header("cache-control", "private, max-age=0, no-store, no-cache, must-revalidate");
  return c.html(renderChallengePage(), 403);
}

function sseResponse(bytes: Uint8Array, cut: boolean, chunkMs: number, c: Context<ReplicaEnv>): Response {
  const stream = pacedBody(splitIntoChunks(bytes), {
    chunkMs,
    ending: cut ? { kind: "destroy", destroy: () => destroyConnection(c) } : { kind: "close" },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      // declared up front so the Node adapter streams at once instead of probing the body for a length
      "transfer-encoding": "chunked",
    },
  });
}

/** A fuzzed page's `frontend_context_uuid`: fixed by the seed and page load, so a seed replays the same page. */
function pageUuid(seed: number, pageLoad: number): string {
  let hash = 0x811c9dc5;
  const hex: string[] = [];
  for (let part = 0; part < 4; part += 1) {
    for (const char of `${seed}:${pageLoad}:${part}`) {
      hash ^= char.charCodeAt(0);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    hex.push(hash.toString(16).padStart(8, "0"));
  }
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The run as a fuzzed page's stream plays it (sheet_alternatives of variation.ts); content unchanged. */
function withStreamAlternatives(run: PerplexityRun, alternatives: StreamAlternatives): PerplexityRun {
  return {
    ...run,
    shape: {
      ...run.shape,
      ...(alternatives.endOfStream === null ? {} : { endOfStream: alternatives.endOfStream }),
      ...(alternatives.relatedItems === null ? {} : { relatedItems: alternatives.relatedItems }),
    },
  };
}

export function createPerplexityApp(controller: FaultController): Hono<ReplicaEnv> {
  const app = new Hono<ReplicaEnv>();
  /** Terminal snapshots of the runs this server started, for the reconnect endpoint. */
  const terminalEvents = new Map<string, string>();
  /** Fuzzed pages by their `frontend_context_uuid`: the stream of a page's requests follows that page's draw. */
  const fuzzedPages = new Map<string, StreamAlternatives>();
  /** What fuzzed and plain pages reported of their controls when they sent (tests read the page's own state). */
  const pageStates: unknown[] = [];

  const page = (c: Context<ReplicaEnv>): Response => {
    controller.recordPageLoad(PERPLEXITY_PROVIDER_ID);
    const draw = controller.drawVariation(PERPLEXITY_PROVIDER_ID);
    if (controller.takeChangedPage(PERPLEXITY_PROVIDER_ID)) return c.html(renderChangedPage("Perplexity"));
    const plan = controller.takeFault(PERPLEXITY_PROVIDER_ID, (fault) => fault === "challenge" || fault === "login_wall");
    if (plan.fault === "challenge") return challengeResponse(c);
    const walled = plan.fault === "login_wall";
    const cookiePath = new URL(c.req.url).pathname.replace(/search(\/.*)?$/, "");
    if (walled) setCookie(c, LOGIN_WALL_COOKIE, "1", { path: cookiePath, httpOnly: true, sameSite: "Lax" });
    else if (getCookie(c, LOGIN_WALL_COOKIE) !== undefined) deleteCookie(c, LOGIN_WALL_COOKIE, { path: cookiePath });
    const layout = controller.layoutOf(PERPLEXITY_PROVIDER_ID);
    c.header("cache-control", "no-store");
    const drawn = draw === null ? null : drawPerplexityVariation(draw, pageUuid(draw.seed, draw.pageLoad));
    if (drawn !== null) {
      fuzzedPages.set(drawn.page.frontendContextUuid, drawn.stream);
      if (fuzzedPages.size > MAX_REMEMBERED_PAGES) fuzzedPages.delete(fuzzedPages.keys().next().value ?? "");
    }
    const variationTag = genericVariationTag(draw, PERPLEXITY_VARIATION_PROFILE);
    return c.html(
      renderPerplexityPage({
        layout: isPerplexityLayout(layout) ? layout : "lexical-prose",
        signInWall: walled,
        variation: drawn?.page ?? null,
        variationTag,
      }),
    );
  };

  app.get("/", (c) => {
    // "/perplexity" and "/perplexity/" both land here; the page must live at ".../" so relative URLs resolve below it
    const url = new URL(c.req.url);
    if (!url.pathname.endsWith("/")) return c.redirect(`${url.pathname}/${url.search}`, 302);
    return page(c);
  });
  app.get("/search", page);
  app.get("/search/:slug", page);

  app.get("/api/auth/session", (c) => c.json({}));

  // Test instrumentation, not the site: the page reports its controls' state when it sends (the scraper never sees
  // this; a test asserts through it that a choice was made on the page and not by patching the request).
  app.post("/__replica/page-state", async (c) => {
    pageStates.push(await c.req.json().catch(() => null));
    if (pageStates.length > MAX_REMEMBERED_PAGES) pageStates.shift();
    return c.body(null, 204);
  });
  app.get("/__replica/page-state", (c) => c.json({ states: pageStates }));

  app.post("/rest/sse/perplexity_terminate", (c) => c.json({ status: "success" }));

  app.post(`${PERPLEXITY_ASK_PATH}/reconnect/:backendUuid`, (c) => {
    const event = terminalEvents.get(c.req.param("backendUuid"));
    if (event === undefined) return c.json({}, 403);
    return sseResponse(new TextEncoder().encode(event), false, 0, c);
  });

  app.post(PERPLEXITY_ASK_PATH, async (c) => {
    const raw = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    controller.recordExchange(PERPLEXITY_PROVIDER_ID, {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      headers: headersOf(c.req.raw),
      body,
      receivedAt: new Date().toISOString(),
    });
    if (getCookie(c, LOGIN_WALL_COOKIE) === "1") {
      controller.recordRejected(PERPLEXITY_PROVIDER_ID);
      return c.json(PERPLEXITY_ERROR_FAULTS.login_wall.body, 401);
    }
    const request = parsePerplexityAskRequest(body);
    if ("error" in request) {
      controller.recordRejected(PERPLEXITY_PROVIDER_ID);
      return c.json({ detail: request.error }, 400);
    }

    const plan = controller.takeFault(PERPLEXITY_PROVIDER_ID);
    const signal = c.req.raw.signal;
    if (plan.fault === "hang") {
      // never answer: no status line, no bytes, until the client gives up or the server shuts down
      await untilAborted(signal);
      return c.body(null, 504);
    }
    await sleep(plan.pacing.delayMs, signal);
    if (plan.fault === "challenge") return challengeResponse(c);
    if (isErrorFault(plan.fault)) {
      const { status, body: errorBody } = PERPLEXITY_ERROR_FAULTS[plan.fault];
      return c.json(errorBody, status);
    }

    const resolved = resolvePerplexityRun(request.queryStr, { searchEnabled: request.searchEnabled });
    const alternatives = request.echo.frontendContextUuid === null ? undefined : fuzzedPages.get(request.echo.frontendContextUuid);
    const run = alternatives === undefined ? resolved : withStreamAlternatives(resolved, alternatives);
    terminalEvents.set(run.ids.backendUuid, renderTerminalEvent(run, request.echo));
    if (terminalEvents.size > MAX_REMEMBERED_RUNS) {
      const oldest = terminalEvents.keys().next();
      if (oldest.done !== true) terminalEvents.delete(oldest.value);
    }
    // `slow` is a normal answer with the slow pacing already in `plan.pacing`
    const rendered = renderPerplexityBody(run, request.echo, isStreamFault(plan.fault) ? plan.fault : null);
    return sseResponse(rendered.bytes, rendered.ending === "cut", plan.pacing.chunkMs, c);
  });

  return app;
}
