/**
 * Gemini replica (gemini.md): `/app`, the sign-in and `/sorry/index` pages and `POST …/StreamGenerate`, as a Hono app
 * the replica server mounts under `/gemini`. Paths below the mount are the real site's paths, so a scraper only swaps
 * the origin.
 *
 * Page loads take `challenge` and `login_wall` when one is at the head of the fault queue: `challenge` redirects to the
 * `/sorry/index` page (429, "unusual traffic"), `login_wall` serves the signed-out page without a composer and sets a
 * cookie that makes that page's StreamGenerate calls answer 401 until a later page load clears it.
 *
 * Every POST to StreamGenerate counts as one exchange and is recorded (the body decoded: prompt, language, query). The
 * checks run in this order, the first that applies answers:
 *   1. login-wall cookie                                   → 401 (consumes no fault)
 *   2. bad query / missing X-Same-Domain / bad `at` / f.req → 400 Google error page (consumes no fault)
 *   3. the fault at the head of the queue, if any, is consumed and played; otherwise the scenario is streamed.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { FaultController, FaultName } from "../control";
import { pacedBody, sleep, splitIntoChunks, untilAborted } from "../shared/paced-body";
import { destroyConnection, type ReplicaEnv } from "../shared/replica-env";
import { isGeminiLayout } from "./layouts";
import { renderGeminiAppPage, renderGoogleErrorPage, renderSignInPage, renderSorryPage } from "./page";
import { type GeminiRequest, readGeminiRequest } from "./request";
import { pickGeminiScenario } from "./scenarios";
import { type GeminiStreamFault, midNumberCuts, renderGeminiBody, splitChunksAt } from "./stream";
import { renderChangedPage } from "../shared/changed-page";
import { genericVariationTag } from "../shared/page-variation";
import { drawGeminiVariation, GEMINI_VARIATION_PROFILE, type GeminiWireVariation } from "./variation";

export const GEMINI_PROVIDER_ID = "gemini";
export const GEMINI_MOUNT_PATH = "/gemini";
/** The streaming endpoint, relative to the site root. */
export const STREAM_GENERATE_PATH = "/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate";
const LOGIN_WALL_COOKIE = "replica_gemini_signed_out";
/** How many issued `at` tokens the replica remembers. */
const MAX_TOKENS = 500;
/** Wire variants of the last fuzzed page loads, by the page's `f.sid` (bounded: old pages stop mattering). */
const MAX_REMEMBERED_PAGES = 64;

const STREAM_FAULTS: readonly FaultName[] = ["malformed_stream", "disconnect", "empty_answer", "rate_limited"];
function isStreamFault(fault: FaultName | null): fault is GeminiStreamFault {
  return fault !== null && STREAM_FAULTS.includes(fault);
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** What the replica records of a StreamGenerate request: the decoded fields when readable, else the raw body. */
function recordedBody(reading: ReturnType<typeof readGeminiRequest>, raw: string): unknown {
  if (!reading.ok) return raw;
  const { prompt, language, bodyLanguage, query, modelHeader, at } = reading.request;
  return { prompt, language, bodyLanguage, hl: query.hl, bl: query.bl, fSid: query.fSid, reqid: query.reqid, modelHeader, at };
}

/** Issued `at` tokens, oldest first (a page's token is valid for its StreamGenerate calls). */
class TokenRegistry {
  private readonly tokens = new Set<string>();

  issue(): string {
    const random = crypto.getRandomValues(new Uint8Array(18));
    const token = `AJvLN6${Buffer.from(random).toString("base64url")}:${Date.now()}`;
    this.tokens.add(token);
    if (this.tokens.size > MAX_TOKENS) {
      const oldest = this.tokens.values().next().value;
      if (oldest !== undefined) this.tokens.delete(oldest);
    }
    return token;
  }

  knows(token: string): boolean {
    return this.tokens.has(token);
  }
}

export function createGeminiApp(controller: FaultController): Hono<ReplicaEnv> {
  const app = new Hono<ReplicaEnv>();
  const tokens = new TokenRegistry();
  /** What the StreamGenerate answers of a fuzzed page play, by the `f.sid` the page was served with. */
  const wireVariations = new Map<string, GeminiWireVariation>();

  app.get("/", (c) => {
    const url = new URL(c.req.url);
    return c.redirect(`${GEMINI_MOUNT_PATH}/app${url.search}`, 302);
  });

  const appPage = (c: Context<ReplicaEnv>): Response => {
    const url = new URL(c.req.url);
    const language = url.searchParams.get("hl") ?? "en";
    controller.recordPageLoad(GEMINI_PROVIDER_ID);
    // page fuzzing (variation.ts): one draw per page load, null when off
    const draw = controller.drawVariation(GEMINI_PROVIDER_ID);
    if (controller.takeChangedPage(GEMINI_PROVIDER_ID)) return c.html(renderChangedPage("Gemini"));
    const plan = controller.takeFault(GEMINI_PROVIDER_ID, (fault) => fault === "login_wall" || fault === "challenge");
    c.header("cache-control", "no-cache, no-store, max-age=0, must-revalidate");
    if (plan.fault === "challenge") {
      const sorry = `${GEMINI_MOUNT_PATH}/sorry/index?continue=${encodeURIComponent(url.href)}&q=EgRZ0gGkGPjYrskGIjB1bnVzdWFs`;
      return c.redirect(sorry, 302);
    }
    if (plan.fault === "login_wall") {
      setCookie(c, LOGIN_WALL_COOKIE, "1", { path: GEMINI_MOUNT_PATH, httpOnly: true, sameSite: "Lax" });
      return c.html(renderSignInPage(language, genericVariationTag(draw, GEMINI_VARIATION_PROFILE)));
    }
    if (getCookie(c, LOGIN_WALL_COOKIE) !== undefined) deleteCookie(c, LOGIN_WALL_COOKIE, { path: GEMINI_MOUNT_PATH });
    const configured = controller.layoutOf(GEMINI_PROVIDER_ID);
    const layout = isGeminiLayout(configured) ? configured : "side-panel";
    const sessionId = String(-Math.floor(1e18 * Math.random()));
    if (draw === null) {
      return c.html(renderGeminiAppPage({ layout, language, token: tokens.issue(), sessionId, basePath: GEMINI_MOUNT_PATH }));
    }
    const drawn = drawGeminiVariation(draw, layout);
    wireVariations.set(sessionId, drawn.wire);
    if (wireVariations.size > MAX_REMEMBERED_PAGES) {
      const oldest = wireVariations.keys().next().value;
      if (oldest !== undefined) wireVariations.delete(oldest);
    }
    return c.html(
      renderGeminiAppPage({
        layout: drawn.layout,
        language,
        token: tokens.issue(),
        sessionId,
        basePath: GEMINI_MOUNT_PATH,
        variation: { gemini: drawn.page, genericTag: genericVariationTag(draw, GEMINI_VARIATION_PROFILE) },
      }),
    );
  };
  app.get("/app", appPage);
  app.get("/app/:conversation", appPage);

  app.get("/sorry/index", (c) => {
    const continueUrl = c.req.query("continue") ?? "https://gemini.google.com/app";
    return c.html(renderSorryPage(continueUrl), 429);
  });

  app.post(STREAM_GENERATE_PATH, async (c) => {
    const raw = await c.req.text();
    const url = new URL(c.req.url);
    const reading = readGeminiRequest(url, c.req.raw.headers, raw, (token) => tokens.knows(token));
    controller.recordExchange(GEMINI_PROVIDER_ID, {
      method: c.req.method,
      path: `${url.pathname}${url.search}`,
      headers: headersOf(c.req.raw),
      body: recordedBody(reading, raw),
      receivedAt: new Date().toISOString(),
    });

    if (getCookie(c, LOGIN_WALL_COOKIE) === "1") {
      controller.recordRejected(GEMINI_PROVIDER_ID);
      return c.html(renderGoogleErrorPage(401, "Unauthorized"), 401);
    }
    if (!reading.ok) {
      controller.recordRejected(GEMINI_PROVIDER_ID);
      c.header("x-replica-reason", reading.reason);
      return c.html(renderGoogleErrorPage(400, "Bad Request"), 400);
    }

    const plan = controller.takeFault(GEMINI_PROVIDER_ID);
    const signal = c.req.raw.signal;
    if (plan.fault === "hang") {
      // Never answer: no status line, no bytes, until the client gives up or the server shuts down.
      await untilAborted(signal);
      return c.body(null, 504);
    }
    await sleep(plan.pacing.delayMs, signal);
    if (plan.fault === "challenge") {
      const sorry = `${GEMINI_MOUNT_PATH}/sorry/index?continue=${encodeURIComponent(`${url.origin}${GEMINI_MOUNT_PATH}/app`)}`;
      return c.redirect(sorry, 302);
    }
    if (plan.fault === "login_wall") return c.html(renderGoogleErrorPage(401, "Unauthorized"), 401);
    if (plan.fault === "http_error") return c.html(renderGoogleErrorPage(500, "Server Error"), 500);
    // `slow` is a normal answer with the slow pacing already in `plan.pacing`.
    const wire = wireVariations.get(reading.request.query.fSid);
    return streamAnswer(c, reading.request, isStreamFault(plan.fault) ? plan.fault : null, plan.pacing.chunkMs, wire);
  });

  return app;
}

function streamAnswer(
  c: Context<ReplicaEnv>,
  request: GeminiRequest,
  fault: GeminiStreamFault | null,
  chunkMs: number,
  wire: GeminiWireVariation | undefined,
): Response {
  const body = renderGeminiBody(pickGeminiScenario(request.prompt), { language: request.language }, fault, wire);
  const chunks = splitChunksAt(splitIntoChunks(body.bytes), midNumberCuts(body.bytes));
  const stream = pacedBody(chunks, {
    chunkMs,
    ending: body.ending === "eof" ? { kind: "close" } : { kind: "destroy", destroy: () => destroyConnection(c) },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-content-type-options": "nosniff",
      // Declared up front so the Node adapter streams at once instead of probing the body for a length.
      "transfer-encoding": "chunked",
      "cache-control": "no-cache, no-store, max-age=0, must-revalidate",
    },
  });
}
