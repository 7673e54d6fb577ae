/**
 * ChatGPT replica (chatgpt.md): the home page, the sentinel stubs, the conduit `prepare` call and the conversation
 * endpoint under both `/backend-api/` (logged in) and `/backend-anon/` (logged out), as the real paths below the mount.
 *
 * Exchanges and faults (control.ts): every POST to a conversation endpoint counts as one exchange and is recorded.
 * The checks run in this order, the first that applies answers:
 *   1. no `openai-sentinel-chat-requirements-token` header → 403 "Unusual activity…" JSON (the page always sends one)
 *   2. the login-wall cookie of the page                   → 401 (the page that showed the modal cannot chat)
 *   3. an invalid body                                     → 422 with a FastAPI-style `detail` list
 *   4. the fault at the head of the queue, if any, is consumed and played; otherwise the scenario is streamed.
 * Refusals 1–3 consume no fault. `login_wall` and `challenge` are consumed by the page load when at the head of the
 * queue: the page then shows the "Log in or sign up" modal instead of answering (and sets a cookie that makes its POSTs
 * answer 401) — in the `signed-in` layout, whose session has expired, it redirects to auth.openai.com instead — or is
 * Cloudflare's "Just a moment..." interstitial (403). A POST that finds either at the head consumes it and answers
 * 401 / the 403 interstitial.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { FaultController, FaultName } from "../control";
import { pacedBody, sleep, splitIntoChunks, untilAborted } from "../shared/paced-body";
import { destroyConnection, type ReplicaEnv } from "../shared/replica-env";
import { CHATGPT_LAYOUTS, isChatgptLayout, renderChallengePage, renderChatgptHomePage } from "./page";
import { pickChatgptScenario } from "./scenarios";
import { type ChatgptRequestEcho, type ChatgptStreamFault, renderChatgptBody, stableUuid } from "./stream";
import { renderChangedPage } from "../shared/changed-page";
import { genericVariationTag } from "../shared/page-variation";
import {
  CHATGPT_VARIATION_PROFILE,
  type ChatgptWireVariant,
  ChatgptWireVariants,
  drawChatgptVariation,
  withWireVariant,
} from "./variation";

export const CHATGPT_PROVIDER_ID = "chatgpt";
/** Conversation endpoints relative to the site root: current and older builds, logged in and out. */
export const CHATGPT_CONVERSATION_PATHS = [
  "/backend-anon/f/conversation",
  "/backend-api/f/conversation",
  "/backend-anon/conversation",
  "/backend-api/conversation",
] as const;
const API_ROOTS = ["/backend-anon", "/backend-api"] as const;
const LOGIN_WALL_COOKIE = "replica_chatgpt_login_wall";
/** Where the real site sends a session that must log in (chatgpt.md §2). */
export const LOGIN_PAGE = "https://auth.openai.com/log-in";
const REQUIREMENTS_TOKEN_HEADER = "openai-sentinel-chat-requirements-token";

/** Faults answered with an HTTP error instead of a stream (chatgpt.md §5). */
export const CHATGPT_ERROR_FAULTS = {
  login_wall: { status: 401, body: { detail: "Unauthorized" } },
  rate_limited: { status: 429, body: { detail: "Too many requests in 1 hour. Try again later." } },
  http_error: {
    status: 500,
    body: {
      detail: "An error occurred. Either the engine you requested does not exist or there was another issue processing your request.",
    },
  },
} as const;
type ChatgptErrorFault = keyof typeof CHATGPT_ERROR_FAULTS;
function isErrorFault(fault: FaultName | null): fault is ChatgptErrorFault {
  return fault !== null && Object.hasOwn(CHATGPT_ERROR_FAULTS, fault);
}

export const UNUSUAL_ACTIVITY = { detail: "Unusual activity has been detected from your device. Try again later." };

const STREAM_FAULTS: readonly FaultName[] = ["malformed_stream", "disconnect", "empty_answer"];
function isStreamFault(fault: FaultName | null): fault is ChatgptStreamFault {
  return fault !== null && STREAM_FAULTS.includes(fault);
}

/** Validates the body the page sent; returns the FastAPI-style error of the first unusable field. */
export function parseChatgptRequest(body: unknown): ChatgptRequestEcho | { error: { loc: string[]; msg: string } } {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return { error: { loc: ["body"], msg: "Input should be an object" } };
  if (Reflect.get(body, "action") !== "next") return { error: { loc: ["body", "action"], msg: "Input should be 'next'" } };
  const messages: unknown = Reflect.get(body, "messages");
  const first: unknown = Array.isArray(messages) ? messages[0] : undefined;
  if (typeof first !== "object" || first === null) return { error: { loc: ["body", "messages"], msg: "Field required" } };
  const content: unknown = Reflect.get(first, "content");
  const parts: unknown = typeof content === "object" && content !== null ? Reflect.get(content, "parts") : undefined;
  const prompt: unknown = Array.isArray(parts) ? parts[0] : undefined;
  if (typeof prompt !== "string" || prompt.trim() === "") {
    return { error: { loc: ["body", "messages", "0", "content", "parts"], msg: "String should have at least 1 character" } };
  }
  if (typeof Reflect.get(body, "parent_message_id") !== "string")
    return { error: { loc: ["body", "parent_message_id"], msg: "Field required" } };
  const id: unknown = Reflect.get(first, "id");
  const encodings: unknown = Reflect.get(body, "supported_encodings");
  return {
    prompt,
    userMessageId: typeof id === "string" ? id : stableUuid(prompt),
    supportsV1: Array.isArray(encodings) && encodings.includes("v1"),
  };
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

function sentinelToken(kind: string): string {
  return `gAAAAAB${btoa(`replica-${kind}-${stableUuid(kind)}`)}`;
}

export function createChatgptApp(controller: FaultController): Hono<ReplicaEnv> {
  const app = new Hono<ReplicaEnv>();
  const wireVariants = new ChatgptWireVariants();

  const homePage = (c: Context<ReplicaEnv>) => {
    const url = new URL(c.req.url);
    controller.recordPageLoad(CHATGPT_PROVIDER_ID);
    // one draw per page load, whatever the page turns out to be (the seed's n-th load is always the same page)
    const draw = controller.drawVariation(CHATGPT_PROVIDER_ID);
    if (controller.takeChangedPage(CHATGPT_PROVIDER_ID)) return c.html(renderChangedPage("ChatGPT"));
    const fault = controller.takeFault(CHATGPT_PROVIDER_ID, (name) => name === "login_wall" || name === "challenge").fault;
    c.header("cache-control", "no-store");
    if (fault === "challenge") {
      c.header("cf-mitigated", "challenge");
      return c.html(renderChallengePage(stableUuid(url.search).slice(0, 16).replaceAll("-", "")), 403);
    }
    const layout = controller.layoutOf(CHATGPT_PROVIDER_ID);
    if (fault === "login_wall" && layout === "signed-in") {
      // an expired session of a logged-in build: the main frame goes to the login page
      return c.redirect(`${LOGIN_PAGE}?${new URLSearchParams({ next: `${url.pathname}${url.search}` })}`, 302);
    }
    const mountRoot = url.pathname.replace(/c\/[^/]*$/, "");
    if (fault === "login_wall") setCookie(c, LOGIN_WALL_COOKIE, "1", { path: mountRoot, httpOnly: true, sameSite: "Lax" });
    else if (getCookie(c, LOGIN_WALL_COOKIE) !== undefined) deleteCookie(c, LOGIN_WALL_COOKIE, { path: mountRoot });
    if (getCookie(c, "oai-did") === undefined) setCookie(c, "oai-did", stableUuid(`device-${Date.now()}`), { path: "/", sameSite: "Lax" });
    const pageOptions = { layout: isChatgptLayout(layout) ? layout : CHATGPT_LAYOUTS[0], loginWall: fault === "login_wall" };
    if (draw === null) return c.html(renderChatgptHomePage(pageOptions));
    const variation = drawChatgptVariation(draw);
    wireVariants.remember(variation.page.build, variation.wire);
    return c.html(
      renderChatgptHomePage({
        ...pageOptions,
        variant: variation.page,
        variationTag: genericVariationTag(draw, CHATGPT_VARIATION_PROFILE),
      }),
    );
  };

  app.get("/", (c) => {
    // The server routes "/chatgpt" and "/chatgpt/" here alike; the page must live at ".../" so that its relative API
    // URLs resolve below the mount point, as "/" does on the real origin.
    const url = new URL(c.req.url);
    if (!url.pathname.endsWith("/")) return c.redirect(`${url.pathname}/${url.search}`, 302);
    return homePage(c);
  });
  // the page moves to /c/<conversation id> once it has one; a reload there serves the same page
  app.get("/c/:conversationId", homePage);

  for (const root of API_ROOTS) {
    app.post(`${root}/sentinel/chat-requirements`, (c) =>
      c.json({
        persona: root === "/backend-anon" ? "chatgpt-noauth" : "chatgpt-paid",
        token: sentinelToken("requirements"),
        expire_after: 540,
        proofofwork: { required: false, seed: "0.8913542857", difficulty: "06a4d0" },
        turnstile: { required: false },
        so: null,
      }),
    );
    app.post(`${root}/sentinel/chat-requirements/prepare`, (c) =>
      c.json({
        persona: "chatgpt-paid",
        prepare_token: sentinelToken("prepare"),
        proofofwork: { required: false, seed: "0.8913542857", difficulty: "06a4d0" },
        turnstile: { required: false },
      }),
    );
    app.post(`${root}/sentinel/chat-requirements/finalize`, (c) =>
      c.json({ persona: "chatgpt-paid", token: sentinelToken("requirements"), expire_after: 540 }),
    );
    app.post(`${root}/f/conversation/prepare`, (c) => c.json({ status: "ok", conduit_token: sentinelToken("conduit") }));
  }

  for (const path of CHATGPT_CONVERSATION_PATHS) app.post(path, (c) => conversation(c, controller, wireVariants));
  return app;
}

async function conversation(c: Context<ReplicaEnv>, controller: FaultController, wireVariants: ChatgptWireVariants): Promise<Response> {
  const raw = await c.req.text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = raw;
  }
  controller.recordExchange(CHATGPT_PROVIDER_ID, {
    method: c.req.method,
    path: new URL(c.req.url).pathname,
    headers: headersOf(c.req.raw),
    body,
    receivedAt: new Date().toISOString(),
  });

  if ((c.req.header(REQUIREMENTS_TOKEN_HEADER) ?? "") === "") {
    controller.recordRejected(CHATGPT_PROVIDER_ID);
    return c.json(UNUSUAL_ACTIVITY, 403);
  }
  if (getCookie(c, LOGIN_WALL_COOKIE) === "1") {
    controller.recordRejected(CHATGPT_PROVIDER_ID);
    return c.json(CHATGPT_ERROR_FAULTS.login_wall.body, 401);
  }
  const request = parseChatgptRequest(body);
  if ("error" in request) {
    controller.recordRejected(CHATGPT_PROVIDER_ID);
    return c.json({ detail: [{ type: "value_error", loc: request.error.loc, msg: request.error.msg }] }, 422);
  }

  const plan = controller.takeFault(CHATGPT_PROVIDER_ID);
  const signal = c.req.raw.signal;
  if (plan.fault === "hang") {
    // Never answer: no status line, no bytes, until the client gives up or the server shuts down.
    await untilAborted(signal);
    return c.body(null, 504);
  }
  await sleep(plan.pacing.delayMs, signal);
  if (plan.fault === "challenge") {
    c.header("cf-mitigated", "challenge");
    return c.html(renderChallengePage(stableUuid(request.prompt).slice(0, 16).replaceAll("-", "")), 403);
  }
  if (isErrorFault(plan.fault)) {
    const { status, body: errorBody } = CHATGPT_ERROR_FAULTS[plan.fault];
    return c.json(errorBody, status);
  }
  // `slow` is a normal answer with the slow pacing already in `plan.pacing`.
  const wire = wireVariants.of(c.req.header("oai-client-build-number"));
  return streamAnswer(c, request, isStreamFault(plan.fault) ? plan.fault : null, plan.pacing.chunkMs, wire);
}

function streamAnswer(
  c: Context<ReplicaEnv>,
  request: ChatgptRequestEcho,
  fault: ChatgptStreamFault | null,
  chunkMs: number,
  wire: ChatgptWireVariant | null,
): Response {
  const scenario = pickChatgptScenario(request.prompt);
  const body =
    wire === null
      ? renderChatgptBody(scenario, request, fault)
      : renderChatgptBody(withWireVariant(scenario, wire), request, fault, { eventLines: wire.eventLines });
  const stream = pacedBody(splitIntoChunks(body.bytes), {
    chunkMs,
    ending: body.ending === "eof" ? { kind: "close" } : { kind: "destroy", destroy: () => destroyConnection(c) },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      // Declared up front so the Node adapter streams at once instead of probing the body for a length.
      "transfer-encoding": "chunked",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}
