/**
 * Google AI Mode replica (google_ai_mode.md): the `/search?udm=50` shell and `GET /async/folwr`, as a Hono app the
 * replica server mounts under `/google_ai_mode`. Paths below the mount are the real site's paths.
 *
 * Page loads (`GET /search`, counted in `page_loads`) take `challenge` and `login_wall` from the head of the fault
 * queue: `challenge` redirects to `/sorry/index?continue=…` (429, the unusual-traffic page with `#captcha-form`),
 * `login_wall` serves the shell with a sign-in prompt and no session tokens (the page then never calls folwr). In the
 * `consent` layout a visitor without the `SOCS` cookie first gets the "Before you continue to Google" dialog, whose
 * "Accept all" (`#L2AGLb`) posts to `/consent/save`, which sets the cookie and redirects back.
 *
 * An exchange is one `GET /async/folwr`. The replica refuses (400, Google's error page, counted in `rejected`, no fault
 * consumed) a URL without a live single-use `_xsrf` token issued by a page load, without `q`, or without `udm=50`.
 * Otherwise it takes the fault at the head of the queue and answers:
 *   challenge → 429 unusual-traffic page · login_wall → 401 · rate_limited → 429 · http_error → 500 (Google error page)
 *   malformed_stream → 200, a fragment cut inside the answer, then a normal end · disconnect → 200, the same prefix, then
 *   the connection is destroyed · empty_answer → 200, the chrome (disclaimer, feedback) without any answer
 *   hang → nothing at all until the client gives up · slow → the normal answer with slow pacing
 * and otherwise the scenario's fragment (text/html, chunked in 2–5 pieces, `chunk_ms` apart).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { FaultController, FaultName } from "../control";
import { pacedBody, sleep, untilAborted } from "../shared/paced-body";
import { destroyConnection, type ReplicaEnv } from "../shared/replica-env";
import { genericVariationTag } from "../shared/page-variation";
import { type FragmentFault, panelEntriesHtml, renderFolwrBody, splitIntoPieces } from "./fragment";
import { aiModeLayout } from "./layouts";
import { renderAiHome, renderClassicResults, renderGoogleError, renderSearchShell, renderSorryPage, type ShellTokens } from "./pages";
import { pickAiModeScenario } from "./scenarios";
import { AI_MODE_VARIATION_PROFILE, type AiModeVariant, drawAiModeVariant } from "./variation";

export const AI_MODE_PROVIDER_ID = "google_ai_mode";
/** The answer endpoint, relative to the site root (the replica's mount point). */
export const FOLWR_PATH = "/async/folwr";
/**
 * Where a fuzzed page whose sources list loads on opening (variation.ts `on_click`) gets the entries: one of Google's
 * `/async/*` endpoints (sheet §3 lists several besides folwr). Not an answer exchange: not recorded, no fault taken.
 */
export const PANEL_PATH = "/async/folsrc";
const CONSENT_COOKIE = "SOCS";
/** Issued folwr tokens kept for validation (oldest dropped first). */
const MAX_LIVE_TOKENS = 2_000;

/** Faults answered with an HTTP error page instead of a fragment. */
export const AI_MODE_ERROR_FAULTS = {
  challenge: { status: 429, message: "" },
  login_wall: { status: 401, message: "Sign in to continue using AI Mode." },
  rate_limited: { status: 429, message: "We're sorry, but you have sent too many requests to us recently. Please try again later." },
  http_error: { status: 500, message: "There was an error. Please try again later." },
} as const;
type ErrorFault = keyof typeof AI_MODE_ERROR_FAULTS;

function isErrorFault(fault: FaultName | null): fault is ErrorFault {
  return fault !== null && Object.hasOwn(AI_MODE_ERROR_FAULTS, fault);
}

const FRAGMENT_FAULTS: readonly FaultName[] = ["malformed_stream", "disconnect", "empty_answer"];
function isFragmentFault(fault: FaultName | null): fault is FragmentFault {
  return fault !== null && FRAGMENT_FAULTS.includes(fault);
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

function randomToken(bytes: number): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  return Buffer.from(raw).toString("base64url");
}

/** The `_xsrf:<token>` part of `async=_fmt:adl,_xsrf:<token>`. */
export function xsrfTokenOf(asyncParam: string | null): string | null {
  for (const part of (asyncParam ?? "").split(",")) {
    if (part.startsWith("_xsrf:")) return part.slice("_xsrf:".length);
  }
  return null;
}

/** The mount's base path ("/google_ai_mode/") from a request path ending in `suffix`. */
function basePath(pathname: string, suffix: string): string {
  return pathname.endsWith(suffix) ? pathname.slice(0, pathname.length - suffix.length) : "/";
}

export function createAiModeApp(controller: FaultController): Hono<ReplicaEnv> {
  const app = new Hono<ReplicaEnv>();
  // Single-use tokens of the shells served, as the real folwr URL is bound to its page load.
  // The token maps to the page's fuzzed variant (null when fuzzing is off), which its fragment follows.
  const liveTokens = new Map<string, AiModeVariant | null>();
  // ei of a served fragment → the sources list its page loads on opening (on_click delivery only)
  const panels = new Map<string, string[]>();

  app.get("/search", (c) => {
    const url = new URL(c.req.url);
    const base = basePath(url.pathname, "search");
    const q = url.searchParams.get("q") ?? "";
    const hl = url.searchParams.get("hl") ?? "en";
    const gl = url.searchParams.get("gl") ?? "";
    const layout = aiModeLayout(controller.layoutOf(AI_MODE_PROVIDER_ID));
    controller.recordPageLoad(AI_MODE_PROVIDER_ID);
    const draw = controller.drawVariation(AI_MODE_PROVIDER_ID);
    const variant = draw === null ? null : drawAiModeVariant(draw);
    const fuzz = draw === null || variant === null ? null : { variant, generic: genericVariationTag(draw, AI_MODE_VARIATION_PROFILE) };
    c.header("cache-control", "no-store");
    if (q.trim() === "") return c.redirect(`${base}ai?hl=${encodeURIComponent(hl)}&gl=${encodeURIComponent(gl)}`, 302);

    const continueUrl = `${url.pathname}${url.search}`;
    if (layout.consent && getCookie(c, CONSENT_COOKIE) === undefined) {
      const consent = { action: `${base}consent/save`, continueUrl };
      return c.html(renderSearchShell({ layout, q, hl, gl, tokens: null, consent, signIn: null, fuzz }));
    }
    const plan = controller.takeFault(AI_MODE_PROVIDER_ID, (fault) => fault === "challenge" || fault === "login_wall");
    if (plan.fault === "challenge") {
      return c.redirect(`${base}sorry/index?continue=${encodeURIComponent(url.href)}&q=${randomToken(24)}`, 302);
    }
    if (plan.fault === "login_wall") {
      return c.html(renderSearchShell({ layout, q, hl, gl, tokens: null, consent: null, signIn: { continueUrl: url.href }, fuzz }));
    }
    if (url.searchParams.get("udm") !== "50") return c.html(renderClassicResults(q, hl, gl));

    const tokens: ShellTokens = {
      xsrfFolwr: randomToken(24),
      garc: randomToken(12),
      stkp: randomToken(16),
      lroToken: randomToken(18),
      lroSignature: randomToken(32),
      ei: randomToken(16),
    };
    liveTokens.set(tokens.xsrfFolwr, variant);
    if (liveTokens.size > MAX_LIVE_TOKENS) {
      const oldest = liveTokens.keys().next();
      if (oldest.done !== true) liveTokens.delete(oldest.value);
    }
    // layout drift: the shell of a redesigned page that no longer starts the answer request
    const changed = controller.takeChangedPage(AI_MODE_PROVIDER_ID);
    return c.html(renderSearchShell({ layout, q, hl, gl, tokens, consent: null, signIn: null, changed, fuzz }));
  });

  app.get("/ai", (c) => {
    const url = new URL(c.req.url);
    return c.html(renderAiHome(url.searchParams.get("hl") ?? "en", url.searchParams.get("gl") ?? ""));
  });

  app.post("/consent/save", async (c) => {
    const url = new URL(c.req.url);
    const base = basePath(url.pathname, "consent/save");
    const form = await c.req.parseBody();
    const requested = typeof form.continue === "string" ? form.continue : "";
    // Only a path on this site: the consent page never redirects elsewhere.
    const target = requested.startsWith(base) ? requested : `${base}search`;
    setCookie(c, CONSENT_COOKIE, `CAISHAgBEhJnd3NfMjAyNjExMjItMF9SQzEaAmVuIAEaBgiA${randomToken(6)}`, {
      path: base,
      sameSite: "Lax",
      maxAge: 60 * 60 * 24 * 390,
    });
    return c.redirect(target, 303);
  });

  app.get("/sorry/index", (c) => {
    const url = new URL(c.req.url);
    c.header("cache-control", "no-store");
    return c.html(renderSorryPage(url.searchParams.get("continue") ?? "", url.searchParams.get("q") ?? ""), 429);
  });

  app.get(FOLWR_PATH, async (c) => {
    const url = new URL(c.req.url);
    controller.recordExchange(AI_MODE_PROVIDER_ID, {
      method: c.req.method,
      path: `${url.pathname}${url.search}`,
      headers: headersOf(c.req.raw),
      body: Object.fromEntries(url.searchParams),
      receivedAt: new Date().toISOString(),
    });

    const token = xsrfTokenOf(url.searchParams.get("async"));
    const q = url.searchParams.get("q") ?? "";
    if (token === null || !liveTokens.has(token) || q.trim() === "" || url.searchParams.get("udm") !== "50") {
      controller.recordRejected(AI_MODE_PROVIDER_ID);
      return c.html(renderGoogleError(400, "Your client has issued a malformed or illegal request."), 400);
    }
    const variant = liveTokens.get(token) ?? null;
    liveTokens.delete(token);

    const plan = controller.takeFault(AI_MODE_PROVIDER_ID);
    const signal = c.req.raw.signal;
    if (plan.fault === "hang") {
      // Never answer: no status line, no bytes, until the client gives up or the server shuts down.
      await untilAborted(signal);
      return c.body(null, 504);
    }
    await sleep(plan.pacing.delayMs, signal);
    if (isErrorFault(plan.fault)) return errorPage(c, plan.fault, url);
    const hl = url.searchParams.get("hl") ?? "en";
    const fault = isFragmentFault(plan.fault) ? plan.fault : null;
    if (variant?.panel.delivery === "on_click") {
      const ei = url.searchParams.get("ei") ?? "";
      panels.set(ei, panelEntriesHtml(pickAiModeScenario(q), aiModeLayout(controller.layoutOf(AI_MODE_PROVIDER_ID))));
      if (panels.size > MAX_LIVE_TOKENS) {
        const oldest = panels.keys().next();
        if (oldest.done !== true) panels.delete(oldest.value);
      }
    }
    return streamFragment(c, q, fault, plan.pacing.chunkMs, controller, { hl, variant: variant ?? undefined });
  });

  app.get(PANEL_PATH, (c) => {
    const entries = panels.get(c.req.query("ei") ?? "");
    c.header("cache-control", "no-store");
    if (entries === undefined) return c.html(renderGoogleError(404, "The requested URL was not found on this server."), 404);
    return c.json({ entries });
  });

  return app;
}

function errorPage(c: Context<ReplicaEnv>, fault: ErrorFault, url: URL): Response {
  const { status, message } = AI_MODE_ERROR_FAULTS[fault];
  const html = fault === "challenge" ? renderSorryPage(url.href, randomToken(24)) : renderGoogleError(status, message);
  return c.html(html, status);
}

function streamFragment(
  c: Context<ReplicaEnv>,
  q: string,
  fault: FragmentFault | null,
  chunkMs: number,
  controller: FaultController,
  options: { hl: string; variant: AiModeVariant | undefined },
): Response {
  const layout = aiModeLayout(controller.layoutOf(AI_MODE_PROVIDER_ID));
  const body = renderFolwrBody(pickAiModeScenario(q), layout, fault, options);
  const stream = pacedBody(splitIntoPieces(body.bytes), {
    chunkMs,
    ending: body.ending === "eof" ? { kind: "close" } : { kind: "destroy", destroy: () => destroyConnection(c) },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/html; charset=UTF-8",
      // Declared up front so the Node adapter streams at once instead of probing the body for a length.
      "transfer-encoding": "chunked",
      "cache-control": "no-store",
    },
  });
}
