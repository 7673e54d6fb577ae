/**
 * Amazon Rufus replica (amazon_rufus.md): every marketplace under its own path segment, `/amazon_rufus/<domain>/…`,
 * so that the scraper's origin template `http://host:port/amazon_rufus/{domain}` stands in for `https://www.<domain>`.
 * Paths below the segment are the real site's: `/` (home), `/dp/<ASIN>` (product page), `POST /rufus/cl/streaming`,
 * `/errors/validateCaptcha`, `/ap/signin`.
 *
 * Exchanges and faults (control.ts):
 * - A page load (home or product page) takes the page-level faults when they are at the head of the queue:
 *   `challenge` → the robot check page in place (200), `login_wall` → 302 to `/ap/signin`, `rate_limited` → the 503
 *   dogs page. Other faults stay queued for the streaming request.
 * - Every POST to `/rufus/cl/streaming` is one exchange and is recorded. Checks, first that applies answers:
 *   1. no `programId` query parameter             → 400
 *   2. no or unknown `anti-csrftoken-a2z` header   → 403 (a stale token; the page's script always sends its own)
 *   3. body without a non-blank `queryContext.query` → 400
 *   4. when sign-in is required, no valid session cookie → 302 to /ap/signin (sign-in.ts)
 *   5. the fault at the head of the queue: `hang` (no answer), `challenge` (503 robot check), `rate_limited` (503 dogs
 *      page), `login_wall` (302 to /ap/signin), `http_error` (401), `malformed_stream` / `disconnect` /
 *      `empty_answer` (a 200 stream, see stream.ts), `slow` (the normal stream, slowly); otherwise the scenario.
 *
 * Signed-in sessions (sign-in.ts): `POST /ap/signin` with an email and a password signs in and sets the session
 * cookies. With sign-in required, a store page without a valid session redirects to the sign-in page (an expired one
 * also has its cookies cleared). Control, below the mount path: `GET|POST /__control/sign-in`
 * `{"required"?: bool, "session_seconds"?: n, "reset"?: true}`, `POST /__control/sessions/expire` (ends every session).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { Context } from "hono";
import type { FaultController, FaultName } from "../control";
import { pacedBody, sleep, splitIntoChunks, untilAborted } from "../shared/paced-body";
import { destroyConnection, type ReplicaEnv } from "../shared/replica-env";
import { renderCaptchaPage, renderDogsPage, renderNotFoundPage, renderSignInPage } from "./error-pages";
import { RufusSessions } from "./sign-in";
import { type Marketplace, marketplaceOf } from "./marketplaces";
import { isRufusLayout, type RufusPageOptions, renderRufusPage } from "./page";
import { allCards, pickRufusScenario, RUFUS_SCENARIOS } from "./scenarios";
import { buildRufusBlocks, blocksToText, type RufusStreamFault, renderRufusBody } from "./stream";
import { genericVariationTag } from "../shared/page-variation";
import { blockId, drawRufusVariation, RUFUS_VARIATION_PROFILE, type RufusWireVariation, varyScenario } from "./variation";

export const RUFUS_PROVIDER_ID = "amazon_rufus";
export const RUFUS_STREAMING_PATH = "/rufus/cl/streaming";
/** The header the streaming endpoint requires; its value is embedded in every store page. */
export const CSRF_HEADER = "anti-csrftoken-a2z";
export const RUFUS_STREAM_CONTENT_TYPE = "text/event-stream;charset=UTF-8";

/** Faults a page load consumes (they are page-level signatures on the real site). */
const PAGE_FAULTS: readonly FaultName[] = ["challenge", "login_wall", "rate_limited"];
const STREAM_FAULTS: readonly FaultName[] = ["malformed_stream", "disconnect", "empty_answer"];
function isStreamFault(fault: FaultName | null): fault is RufusStreamFault {
  return fault !== null && STREAM_FAULTS.includes(fault);
}

/** The request fields the replica uses; the rest of the real body is accepted and ignored. */
export interface RufusStreamingRequest {
  query: string;
}

export function parseRufusRequest(body: unknown): RufusStreamingRequest | { error: string } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { error: "body: must be a JSON object" };
  const queryContext: unknown = Reflect.get(body, "queryContext");
  const query: unknown = typeof queryContext === "object" && queryContext !== null ? Reflect.get(queryContext, "query") : undefined;
  if (typeof query !== "string" || query.trim() === "") return { error: "queryContext.query: must be a non-blank string" };
  return { query };
}

/** Tokens the pages handed out; a token the replica never issued is stale. Bounded so a long run does not grow. */
class CsrfTokens {
  private readonly issued = new Set<string>();

  issue(): string {
    const bytes = crypto.getRandomValues(new Uint8Array(36));
    const token = Buffer.from(bytes).toString("base64");
    this.issued.add(token);
    if (this.issued.size > 10_000) {
      const oldest = this.issued.values().next().value;
      if (oldest !== undefined) this.issued.delete(oldest);
    }
    return token;
  }

  isValid(token: string | undefined): boolean {
    return token !== undefined && this.issued.has(token);
  }
}

/**
 * The wire variation of each fuzzed page, by the anti-csrftoken-a2z the page embeds: the page's answer request carries
 * it, so the stream follows the draw of the page that asked. Bounded like the tokens.
 */
class WireVariations {
  private readonly byToken = new Map<string, RufusWireVariation>();

  set(token: string, wire: RufusWireVariation): void {
    this.byToken.set(token, wire);
    if (this.byToken.size > 1_000) {
      const oldest = this.byToken.keys().next().value;
      if (oldest !== undefined) this.byToken.delete(oldest);
    }
  }

  get(token: string | undefined): RufusWireVariation | null {
    return token === undefined ? null : (this.byToken.get(token) ?? null);
  }
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** The marketplace's path prefix on this server (".../amazon_rufus/amazon.de/"), which stands in for the site's "/". */
function rootOf(url: URL, domain: string): string {
  const marker = `/${domain}`;
  const at = url.pathname.indexOf(marker);
  return `${url.pathname.slice(0, at + marker.length)}/`;
}

/** Titles of the scenario products, so a card's link opens a product page named like the card. */
const PRODUCT_TITLES = new Map<string, string>(
  RUFUS_SCENARIOS.flatMap((scenario) => allCards(scenario)).map((card) => [card.asin, card.title ?? card.altText]),
);

/** The sign-in page's address for a request to `path` (below the marketplace root) of `domain`. */
function signInLocation(root: string, domain: string, path: string): string {
  const returnTo = encodeURIComponent(`https://www.${domain}${path}`);
  return `${root}ap/signin?openid.return_to=${returnTo}&openid.mode=checkid_setup`;
}

/** Where the sign-in form sends the shopper back: the `openid.return_to` page of this marketplace, else its home. */
function returnPath(root: string, domain: string, returnTo: string | undefined): string {
  const prefix = `https://www.${domain}/`;
  return returnTo?.startsWith(prefix) === true ? `${root}${returnTo.slice(prefix.length)}` : root;
}

const SignInControlSchema = z.strictObject({
  required: z.boolean().optional(),
  session_seconds: z.number().int().min(1).optional(),
  reset: z.literal(true).optional(),
});

export function createRufusApp(controller: FaultController): Hono<ReplicaEnv> {
  const app = new Hono<ReplicaEnv>();
  const tokens = new CsrfTokens();
  const wires = new WireVariations();
  const sessions = new RufusSessions();

  // Sign-in control (before the marketplace routes, which would take "__control" for a domain).
  app.get("/__control/sign-in", (c) => c.json(sessions.state()));
  app.post("/__control/sign-in", async (c) => {
    const parsed = SignInControlSchema.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) return c.json({ detail: `invalid body: ${parsed.error.issues[0]?.message ?? "expected a JSON object"}` }, 400);
    if (parsed.data.reset === true) sessions.reset();
    if (parsed.data.required !== undefined) sessions.required = parsed.data.required;
    if (parsed.data.session_seconds !== undefined) sessions.sessionSeconds = parsed.data.session_seconds;
    return c.json(sessions.state());
  });
  app.post("/__control/sessions/expire", (c) => c.json({ expired: sessions.expireAll(), ...sessions.state() }));

  /**
   * With sign-in required, the answer to a request without a valid session: the sign-in redirect, clearing the
   * cookies of an expired session. Null when the request may go on.
   */
  const signInWall = (c: Context<ReplicaEnv>, root: string, domain: string, path: string): Response | null => {
    if (!sessions.required) return null;
    const check = sessions.check(c.req.header("cookie"), domain);
    if (check === "valid") return null;
    if (check === "expired") for (const cookie of RufusSessions.clearingCookies(root)) c.header("Set-Cookie", cookie, { append: true });
    return c.redirect(signInLocation(root, domain, path), 302);
  };

  const html = (c: Context<ReplicaEnv>, body: string, status: 200 | 404 | 503 = 200): Response => {
    c.header("cache-control", "no-store");
    return c.html(body, status);
  };

  /** A store page, unless the fault at the head of the queue replaces it (robot check, sign-in redirect, dogs). */
  const storePage = (c: Context<ReplicaEnv>, marketplace: Marketplace, product: { asin: string; title: string } | null): Response => {
    const url = new URL(c.req.url);
    const root = rootOf(url, marketplace.domain);
    controller.recordPageLoad(RUFUS_PROVIDER_ID);
    const { fault } = controller.takeFault(RUFUS_PROVIDER_ID, (candidate) => PAGE_FAULTS.includes(candidate));
    if (fault === "challenge") return html(c, renderCaptchaPage(root, marketplace.domain, url.pathname.slice(root.length - 1)));
    if (fault === "rate_limited") return html(c, renderDogsPage(root, marketplace.domain), 503);
    if (fault === "login_wall") return c.redirect(signInLocation(root, marketplace.domain, url.pathname.slice(root.length - 1)), 302);
    const walled = signInWall(c, root, marketplace.domain, url.pathname.slice(root.length - 1));
    if (walled !== null) return walled;
    const layout = controller.layoutOf(RUFUS_PROVIDER_ID);
    const csrfToken = tokens.issue();
    // page fuzzing: one draw per store page served (null when fuzzing is off)
    const draw = controller.drawVariation(RUFUS_PROVIDER_ID);
    let variation: RufusPageOptions["variation"];
    if (draw !== null) {
      const rufus = drawRufusVariation(draw);
      wires.set(csrfToken, rufus.wire);
      variation = { page: rufus.page, genericTag: genericVariationTag(draw, RUFUS_VARIATION_PROFILE) };
    }
    return html(
      c,
      renderRufusPage({
        marketplace,
        layout: isRufusLayout(layout) ? layout : "classic",
        root,
        csrfToken,
        product,
        // layout drift: a sheet-legal store page whose Rufus panel has lost its question box
        changed: controller.takeChangedPage(RUFUS_PROVIDER_ID),
        ...(variation === undefined ? {} : { variation }),
      }),
    );
  };

  const withMarketplace = (c: Context<ReplicaEnv>, then: (marketplace: Marketplace) => Response | Promise<Response>) => {
    const marketplace = marketplaceOf(c.req.param("domain") ?? "");
    if (marketplace === undefined) return html(c, renderNotFoundPage(), 404);
    return then(marketplace);
  };

  app.get("/:domain", (c) =>
    withMarketplace(c, (marketplace) => {
      // "/amazon_rufus/amazon.de" and ".../amazon.de/" both arrive here; the page must live at ".../" so its relative
      // links resolve below the marketplace segment, as "/" does on the real origin.
      const url = new URL(c.req.url);
      if (!url.pathname.endsWith("/")) return c.redirect(`${url.pathname}/${url.search}`, 302);
      return storePage(c, marketplace, null);
    }),
  );

  const productPage = (c: Context<ReplicaEnv>) =>
    withMarketplace(c, (marketplace) => {
      const asin = c.req.param("asin") ?? "";
      if (!/^[A-Z0-9]{10}$/.test(asin)) return html(c, renderNotFoundPage(), 404);
      return storePage(c, marketplace, { asin, title: PRODUCT_TITLES.get(asin) ?? `Product ${asin}` });
    });
  app.get("/:domain/dp/:asin", productPage);
  app.get("/:domain/dp/:asin/*", productPage);
  app.get("/:domain/:slug/dp/:asin", productPage);
  app.get("/:domain/:slug/dp/:asin/*", productPage);

  app.get("/:domain/errors/validateCaptcha", (c) =>
    withMarketplace(c, (marketplace) => {
      const root = rootOf(new URL(c.req.url), marketplace.domain);
      return html(c, renderCaptchaPage(root, marketplace.domain, c.req.query("amzn-r") ?? "/"));
    }),
  );
  const signInPage = (c: Context<ReplicaEnv>) =>
    withMarketplace(c, (marketplace) =>
      html(c, renderSignInPage(rootOf(new URL(c.req.url), marketplace.domain), c.req.query("openid.return_to") ?? "")),
    );
  app.get("/:domain/ap/signin", signInPage);
  // The form: an email and a password sign in (any non-blank pair: the replica has no user database) and go back.
  app.post("/:domain/ap/signin", (c) =>
    withMarketplace(c, async (marketplace) => {
      const root = rootOf(new URL(c.req.url), marketplace.domain);
      const form = await c.req.parseBody();
      const field = (name: string): string => {
        const value = form[name];
        return typeof value === "string" ? value.trim() : "";
      };
      if (field("email") === "" || field("password") === "") return html(c, renderSignInPage(root, field("openid.return_to")));
      for (const cookie of sessions.signIn(marketplace.domain, root)) c.header("Set-Cookie", cookie, { append: true });
      return c.redirect(returnPath(root, marketplace.domain, field("openid.return_to")), 302);
    }),
  );

  app.post(`/:domain${RUFUS_STREAMING_PATH}`, (c) =>
    withMarketplace(c, async (marketplace) => {
      const url = new URL(c.req.url);
      const raw = await c.req.text();
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      controller.recordExchange(RUFUS_PROVIDER_ID, {
        method: c.req.method,
        path: `${url.pathname}${url.search}`,
        headers: headersOf(c.req.raw),
        body,
        receivedAt: new Date().toISOString(),
      });

      if ((url.searchParams.get("programId") ?? "") === "") {
        controller.recordRejected(RUFUS_PROVIDER_ID);
        return c.json({ message: "programId: required" }, 400);
      }
      if (!tokens.isValid(c.req.header(CSRF_HEADER))) {
        controller.recordRejected(RUFUS_PROVIDER_ID);
        return c.body(null, 403);
      }
      const request = parseRufusRequest(body);
      if ("error" in request) {
        controller.recordRejected(RUFUS_PROVIDER_ID);
        return c.json({ message: request.error }, 400);
      }
      const walled = signInWall(c, rootOf(url, marketplace.domain), marketplace.domain, "/");
      if (walled !== null) {
        controller.recordRejected(RUFUS_PROVIDER_ID);
        return walled;
      }

      const plan = controller.takeFault(RUFUS_PROVIDER_ID);
      const signal = c.req.raw.signal;
      if (plan.fault === "hang") {
        // Never answer: no status line, no bytes, until the client gives up or the server shuts down.
        await untilAborted(signal);
        return c.body(null, 504);
      }
      await sleep(plan.pacing.delayMs, signal);
      const root = rootOf(url, marketplace.domain);
      switch (plan.fault) {
        case "challenge":
          return html(c, renderCaptchaPage(root, marketplace.domain, "/"), 503);
        case "rate_limited":
          return html(c, renderDogsPage(root, marketplace.domain), 503);
        case "login_wall":
          return c.redirect(`${root}ap/signin?openid.mode=checkid_setup`, 302);
        case "http_error":
          return c.body(null, 401);
        default:
          // `slow` is a normal answer with the slow pacing already in `plan.pacing`.
          return streamAnswer(c, request.query, isStreamFault(plan.fault) ? plan.fault : null, plan.pacing.chunkMs, {
            wire: wires.get(c.req.header(CSRF_HEADER)),
            domain: marketplace.domain,
            signal,
          });
      }
    }),
  );

  app.all("/:domain/*", (c) => html(c, renderNotFoundPage(), 404));
  return app;
}

function streamAnswer(
  c: Context<ReplicaEnv>,
  query: string,
  fault: RufusStreamFault | null,
  chunkMs: number,
  fuzz: { wire: RufusWireVariation | null; domain: string; signal: AbortSignal },
): Response {
  const { wire } = fuzz;
  const stream =
    wire !== null && fault === null
      ? fuzzedStream(varyScenario(pickRufusScenario(query), wire, fuzz.domain), query, wire, chunkMs, fuzz.signal)
      : (() => {
          const body = renderRufusBody(pickRufusScenario(query), query, fault);
          return pacedBody(splitIntoChunks(body.bytes), {
            chunkMs,
            ending: body.ending === "eof" ? { kind: "close" } : { kind: "destroy", destroy: () => destroyConnection(c) },
          });
        })();
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": RUFUS_STREAM_CONTENT_TYPE,
      // Declared up front so the Node adapter streams at once instead of probing the body for a length.
      "transfer-encoding": "chunked",
      "cache-control": "no-store",
    },
  });
}

/**
 * The answer of a fuzzed page: the varied scenario's blocks with the drawn id format, and (late_lists) a pause before
 * the first pills block, so the follow-up questions arrive seconds after the prose and cards.
 */
function fuzzedStream(
  scenario: ReturnType<typeof varyScenario>,
  query: string,
  wire: RufusWireVariation,
  chunkMs: number,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const blocks = buildRufusBlocks(scenario, query, (n) => blockId(wire.idStyle, n));
  const pillsAt = wire.pillsPauseMs > 0 ? blocks.findIndex((block) => block.kind === "pills") : -1;
  const encoder = new TextEncoder();
  const parts = pillsAt > 0 ? [blocks.slice(0, pillsAt), blocks.slice(pillsAt)] : [blocks];
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        for (const [index, part] of parts.entries()) {
          if (index > 0) await sleep(wire.pillsPauseMs, signal);
          const reader = pacedBody(splitIntoChunks(encoder.encode(blocksToText(part))), { chunkMs, ending: { kind: "close" } }).getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            controller.enqueue(value);
          }
        }
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
  });
}
