/**
 * Copilot replica (copilot.md): the chat page (`/`, `/chats/<id>`), `POST /c/api/user/sessions/temporary` and
 * `POST /c/api/start`, as a Hono app the replica server mounts under `/copilot`. The chat itself is a WebSocket served
 * by socket.ts on the same server. Paths below the mount are the real site's paths, so a scraper only swaps the origin.
 *
 * `POST /c/api/start` plays the fault variants that belong to it (faults.ts): 401 (invalid session), 429, a start with
 * `isBlocked: true`, or one with `remainingTurns: 0`. A start that plays a fault counts as an exchange (it ends the
 * turn); a normal start does not (the `send` frame of the turn is the exchange).
 */
import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { FaultController } from "../control";
import type { ReplicaEnv } from "../shared/replica-env";
import { COPILOT_PROVIDER_ID, takeFaultAt } from "./faults";
import { isCopilotLayout, LAYOUT_CONFIGS, renderCopilotPage } from "./page";
import { renderChangedPage } from "../shared/changed-page";
import { genericVariationTag } from "../shared/page-variation";
import type { Context } from "hono";
import type { VariationDraw } from "../shared/variation";
import { COPILOT_VARIATION_PROFILE, drawCopilotVariation, PAGE_LOAD_COOKIE, rememberWire } from "./variation";

/** A conversation or user id in the style of the real ones (opaque, URL-safe). */
function opaqueId(): string {
  return randomBytes(15).toString("base64url");
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** The body of a successful start (copilot.md §3; values illustrative). */
export function startResponse(overrides: { isBlocked?: boolean; remainingTurns?: number } = {}): Record<string, unknown> {
  return {
    currentConversationId: opaqueId(),
    userId: opaqueId(),
    isNewUser: true,
    isBlocked: overrides.isBlocked ?? false,
    remainingTurns: overrides.remainingTurns ?? 30,
    features: [],
  };
}

/** The app's root path (the mount point, "/" on the real origin), for cookies the chat socket below it must see. */
function appRoot(c: Context<ReplicaEnv>): string {
  return new URL(c.req.url).pathname.replace(/chats\/[^/]*\/?$/, "");
}

export function createCopilotApp(controller: FaultController): Hono<ReplicaEnv> {
  const app = new Hono<ReplicaEnv>();

  /**
   * The chat page of the current layout; on a fuzzed page load (control.ts `drawVariation`) with Copilot's own
   * variation and the generic tag, and a cookie naming the page load so its chat socket plays the page's wire variant.
   */
  const page = (c: Context<ReplicaEnv>, draw: VariationDraw | null): string => {
    const stored = controller.layoutOf(COPILOT_PROVIDER_ID);
    const layout = isCopilotLayout(stored) ? stored : "default";
    if (draw === null) {
      // a page load without fuzzing: its socket must not play an earlier fuzzed page's wire variant
      if (getCookie(c, PAGE_LOAD_COOKIE) !== undefined) deleteCookie(c, PAGE_LOAD_COOKIE, { path: appRoot(c) });
      return renderCopilotPage(layout);
    }
    const drawn = drawCopilotVariation(draw, LAYOUT_CONFIGS[layout].consentBanner);
    const key = `${draw.seed}:${draw.pageLoad}`;
    rememberWire(key, drawn.wire);
    setCookie(c, PAGE_LOAD_COOKIE, key, { path: appRoot(c), httpOnly: true, sameSite: "Lax" });
    return renderCopilotPage(layout, { copilot: drawn.page, genericTag: genericVariationTag(draw, COPILOT_VARIATION_PROFILE) });
  };

  app.get("/", (c) => {
    // "/copilot" and "/copilot/" both land here; the page must live at ".../" so that its relative API URLs resolve
    // below the mount point, as "/" does on the real origin.
    const url = new URL(c.req.url);
    if (!url.pathname.endsWith("/")) return c.redirect(`${url.pathname}/${url.search}`, 302);
    controller.recordPageLoad(COPILOT_PROVIDER_ID);
    const draw = controller.drawVariation(COPILOT_PROVIDER_ID);
    if (controller.takeChangedPage(COPILOT_PROVIDER_ID)) return c.html(renderChangedPage("Copilot"));
    setCookie(c, "__Host-copilot-anon", opaqueId(), { path: "/", secure: true, httpOnly: true, sameSite: "Lax" });
    c.header("cache-control", "no-store");
    return c.html(page(c, draw));
  });

  app.get("/chats/:conversationId", (c) => {
    controller.recordPageLoad(COPILOT_PROVIDER_ID);
    const draw = controller.drawVariation(COPILOT_PROVIDER_ID);
    c.header("cache-control", "no-store");
    return c.html(page(c, draw));
  });

  // Test instrumentation, not the site: a fuzzed page reports its mode menu's state when it sends (copilot-variation.js);
  // the scraper never sees this, a test asserts through it that the mode was chosen on the page.
  const pageStates: unknown[] = [];
  app.post("/__replica/page-state", async (c) => {
    pageStates.push(await c.req.json().catch(() => null));
    if (pageStates.length > 64) pageStates.shift();
    return c.body(null, 204);
  });
  app.get("/__replica/page-state", (c) => c.json({ states: pageStates }));

  app.post("/c/api/user/sessions/temporary", (c) => c.json({ sessionKey: randomBytes(24).toString("base64url") }));

  app.post("/c/api/start", async (c) => {
    const raw = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      controller.recordRejected(COPILOT_PROVIDER_ID);
      return c.json({ message: "The request body must be a JSON object." }, 400);
    }
    const plan = takeFaultAt(controller, "start");
    if (plan.taken === null) return c.json(startResponse());
    controller.recordExchange(COPILOT_PROVIDER_ID, {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      headers: headersOf(c.req.raw),
      body,
      receivedAt: new Date().toISOString(),
    });
    switch (plan.taken.variant) {
      case "start-unauthorized":
        return c.json({ message: "Invalid session." }, 401);
      case "start-too-many-requests":
        c.header("retry-after", "60");
        return c.json({ message: "Too many requests." }, 429);
      case "start-blocked":
        return c.json(startResponse({ isBlocked: true }));
      case "start-no-turns-left":
        return c.json(startResponse({ remainingTurns: 0 }));
      default:
        return c.json(startResponse());
    }
  });

  return app;
}
