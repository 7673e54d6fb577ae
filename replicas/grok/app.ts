/**
 * Grok replica (grok.md): the home page and `POST /rest/app-chat/conversations/new`, as a Hono app the replica server
 * mounts under `/grok`. Paths below the mount are the real site's paths, so a scraper only swaps the origin.
 *
 * Exchanges and faults (control.ts): every POST to the endpoint counts as one exchange and is recorded. The checks run
 * in this order, the first that applies answers:
 *   1. no `x-statsig-id` header      → 403 anti-bot JSON (like the real site; the page's script always sends one)
 *   2. login-wall cookie of the page → 401 (the page that showed the wall cannot chat; consumes no fault)
 *   3. invalid body                  → 400 JSON (no `message`, blank `message`, unknown `modeId`; consumes no fault)
 *   4. the fault at the head of the queue, if any, is consumed and played; otherwise the scenario is streamed.
 * `login_wall` is consumed by the page load when it is at the head of the queue: that page shows the Sign in / Sign up
 * buttons and modal and sets a cookie that makes its POSTs answer 401, until a later page load without the fault clears
 * it. A POST that finds `login_wall` at the head (no page load in between) consumes it and answers 401 too.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { FaultController, FaultName } from "../control";
import { pacedBody, sleep, splitIntoChunks, untilAborted } from "../shared/paced-body";
import { destroyConnection, type ReplicaEnv } from "../shared/replica-env";
import { isGrokLayout, renderGrokHomePage } from "./page";
import { GROK_MODE_IDS, pickGrokScenario, type GrokModeId } from "./scenarios";
import { renderGrokBody, type GrokStreamFault } from "./stream";
import { renderChangedPage } from "../shared/changed-page";
import { genericVariationTag } from "../shared/page-variation";
import { drawGrokVariation, GROK_VARIATION_PROFILE, NO_WIRE_VARIATION, type GrokWireVariation } from "./variation";

export const GROK_PROVIDER_ID = "grok";
/** The streaming endpoint, relative to the site root (the replica's mount point). */
export const GROK_CONVERSATION_PATH = "/rest/app-chat/conversations/new";
const LOGIN_WALL_COOKIE = "replica_grok_login_wall";
/** Names the fuzzed page load a request comes from, so its answer plays that page's wire variant (variation.ts). */
const PAGE_LOAD_COOKIE = "replica_grok_page_load";
/** Wire variants of the last fuzzed page loads, by page-load number (bounded: old pages stop mattering). */
const MAX_REMEMBERED_PAGES = 64;

/** Faults answered with an HTTP error instead of a stream; bodies use the real site's `{"error":{code,message}}` shape. */
export const GROK_ERROR_FAULTS = {
  challenge: { status: 403, body: { error: { code: 7, message: "Request rejected by anti-bot rules." } } },
  login_wall: { status: 401, body: { error: { code: 16, message: "Unauthenticated: please sign in to continue." } } },
  rate_limited: {
    status: 429,
    body: { error: { code: 8, message: "Too many requests. You have reached the usage limit for this mode; try again later." } },
  },
  http_error: { status: 500, body: { error: { code: 13, message: "Internal server error." } } },
} as const;
type GrokErrorFault = keyof typeof GROK_ERROR_FAULTS;
function isErrorFault(fault: FaultName | null): fault is GrokErrorFault {
  return fault !== null && Object.hasOwn(GROK_ERROR_FAULTS, fault);
}

/** The request fields the replica uses; the rest of the real body is accepted and ignored. */
export interface GrokConversationRequest {
  message: string;
  modeId: GrokModeId;
}

/** Validates the body the page sent; returns an error message naming the field when it is unusable. */
export function parseGrokRequest(body: unknown): GrokConversationRequest | { error: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { error: "body: must be a JSON object" };
  const message: unknown = Reflect.get(body, "message");
  if (typeof message !== "string" || message.trim() === "") return { error: "message: must be a non-blank string" };
  // grok.md §1: the current `modeId`, or the older `modelMode:"MODEL_MODE_*"` (a fuzzed page may send either)
  const modelMode: unknown = Reflect.get(body, "modelMode");
  const legacy = typeof modelMode === "string" ? modelMode.replace(/^MODEL_MODE_/, "").toLowerCase() : undefined;
  const modeId: unknown = Reflect.get(body, "modeId") ?? legacy ?? "auto";
  const known = GROK_MODE_IDS.find((id) => id === modeId);
  if (known === undefined) return { error: `modeId: must be one of ${GROK_MODE_IDS.join(", ")}` };
  return { message, modeId: known };
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

const STREAM_FAULTS: readonly FaultName[] = ["malformed_stream", "disconnect", "empty_answer"];
function isStreamFault(fault: FaultName | null): fault is GrokStreamFault {
  return fault !== null && STREAM_FAULTS.includes(fault);
}

export function createGrokApp(controller: FaultController): Hono<ReplicaEnv> {
  const app = new Hono<ReplicaEnv>();
  const wireVariations = new Map<string, GrokWireVariation>();
  /** What fuzzed pages reported of their mode picker when they sent (tests read the page's own control state). */
  const pageStates: unknown[] = [];

  // Test instrumentation, not the site: a fuzzed page reports its picker's state when it sends (grok-variation.js);
  // the scraper never sees this, a test asserts through it that the mode was chosen on the page.
  app.post("/__replica/page-state", async (c) => {
    pageStates.push(await c.req.json().catch(() => null));
    if (pageStates.length > MAX_REMEMBERED_PAGES) pageStates.shift();
    return c.body(null, 204);
  });
  app.get("/__replica/page-state", (c) => c.json({ states: pageStates }));

  app.get("/", (c) => {
    // The server routes "/grok" and "/grok/" here alike; the page must live at ".../" so that its relative API URL
    // resolves below the mount point, as "/" does on the real origin.
    const url = new URL(c.req.url);
    if (!url.pathname.endsWith("/")) return c.redirect(`${url.pathname}/${url.search}`, 302);

    controller.recordPageLoad(GROK_PROVIDER_ID);
    const draw = controller.drawVariation(GROK_PROVIDER_ID);
    if (controller.takeChangedPage(GROK_PROVIDER_ID)) return c.html(renderChangedPage("Grok"));
    const walled = controller.takeFault(GROK_PROVIDER_ID, (fault) => fault === "login_wall").fault === "login_wall";
    if (walled) setCookie(c, LOGIN_WALL_COOKIE, "1", { path: url.pathname, httpOnly: true, sameSite: "Lax" });
    else if (getCookie(c, LOGIN_WALL_COOKIE) !== undefined) deleteCookie(c, LOGIN_WALL_COOKIE, { path: url.pathname });
    c.header("cache-control", "no-store");
    const layout = controller.layoutOf(GROK_PROVIDER_ID);
    const options = { loginWall: walled, layout: isGrokLayout(layout) ? layout : "classic" } as const;
    if (draw === null) {
      if (getCookie(c, PAGE_LOAD_COOKIE) !== undefined) deleteCookie(c, PAGE_LOAD_COOKIE, { path: url.pathname });
      return c.html(renderGrokHomePage(options));
    }
    const grok = drawGrokVariation(draw);
    const key = `${draw.seed}:${draw.pageLoad}`;
    wireVariations.set(key, grok.wire);
    for (const old of wireVariations.keys()) if (wireVariations.size > MAX_REMEMBERED_PAGES) wireVariations.delete(old);
    setCookie(c, PAGE_LOAD_COOKIE, key, { path: url.pathname, httpOnly: true, sameSite: "Lax" });
    return c.html(
      renderGrokHomePage({ ...options, variation: { grok: grok.page, genericTag: genericVariationTag(draw, GROK_VARIATION_PROFILE) } }),
    );
  });

  app.post(GROK_CONVERSATION_PATH, async (c) => {
    const raw = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    controller.recordExchange(GROK_PROVIDER_ID, {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      headers: headersOf(c.req.raw),
      body,
      receivedAt: new Date().toISOString(),
    });

    if ((c.req.header("x-statsig-id") ?? "") === "") {
      controller.recordRejected(GROK_PROVIDER_ID);
      return c.json(GROK_ERROR_FAULTS.challenge.body, 403);
    }
    if (getCookie(c, LOGIN_WALL_COOKIE) === "1") {
      controller.recordRejected(GROK_PROVIDER_ID);
      return c.json(GROK_ERROR_FAULTS.login_wall.body, 401);
    }
    const request = parseGrokRequest(body);
    if ("error" in request) {
      controller.recordRejected(GROK_PROVIDER_ID);
      return c.json({ error: { code: 3, message: request.error } }, 400);
    }

    const plan = controller.takeFault(GROK_PROVIDER_ID);
    const signal = c.req.raw.signal;
    if (plan.fault === "hang") {
      // Never answer: no status line, no bytes, until the client gives up or the server shuts down.
      await untilAborted(signal);
      return c.body(null, 504);
    }
    await sleep(plan.pacing.delayMs, signal);
    if (isErrorFault(plan.fault)) {
      const { status, body: errorBody } = GROK_ERROR_FAULTS[plan.fault];
      return c.json(errorBody, status);
    }
    // `slow` is a normal answer with the slow pacing already in `plan.pacing`.
    const wire = wireVariations.get(getCookie(c, PAGE_LOAD_COOKIE) ?? "") ?? NO_WIRE_VARIATION;
    return streamAnswer(c, request, isStreamFault(plan.fault) ? plan.fault : null, plan.pacing.chunkMs, wire);
  });

  return app;
}

function streamAnswer(
  c: Context<ReplicaEnv>,
  request: GrokConversationRequest,
  fault: GrokStreamFault | null,
  chunkMs: number,
  wire: GrokWireVariation,
): Response {
  const body = renderGrokBody(pickGrokScenario(request.message), request, fault, wire);
  const stream = pacedBody(splitIntoChunks(body.bytes), {
    chunkMs,
    ending: body.ending === "eof" ? { kind: "close" } : { kind: "destroy", destroy: () => destroyConnection(c) },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "application/json",
      // Declared up front so the Node adapter streams at once instead of probing the body for a length.
      "transfer-encoding": "chunked",
      "cache-control": "no-store",
    },
  });
}
