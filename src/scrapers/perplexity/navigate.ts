/**
 * Drives perplexity.ai like a person (providers/perplexity.md §2): open the home page, switch the Web source off when
 * `web_search=false` (the site's default is on: then nothing is touched), type the prompt into the composer, send, and
 * capture the `perplexity_ask` SSE stream the page receives. The request the page sent is then checked for the prompt
 * and the web-search choice ("verify on the wire"). Everything after the capture is the pure parser's job.
 */
import type { Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { startCapture, type CaptureSession } from "../../browser/page/capture/capture";
import type { PageSession } from "../../browser/page/page-session";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { SseDecoder } from "../shared/decode/sse";
import { createNavigator, type Navigator, type PageElement, requireJsonRequestBody } from "../../browser/page/navigation/engine";
import { isRecord } from "../../util/json-record";
import {
  ASK_RULE,
  PERPLEXITY_ANCHORS,
  PERPLEXITY_BLOCKS,
  PERPLEXITY_CAPTURE_RULES,
  PERPLEXITY_NAMES,
  SIGN_IN_DIALOG_VISIBLE,
  WEB_SEARCH_OFF_PATCH,
} from "./selectors";

const PROVIDER = "perplexity";
/** How long the composer may take to mount and hydrate (longer than any hydration delay of a slow device). */
const ENTRY_TIMEOUT_MS = 20_000;
/** Controls beside the composer hydrate with it: once it is there, they are there within a few seconds. */
const CONTROL_TIMEOUT_MS = 6_000;
/** The sources menu, opened again while its trigger ignores clicks (not hydrated yet). */
const MENU_RETRY_MS = 6_000;
const MENU_OPEN_TIMEOUT_MS = 1_000;
/** Submit clicked again while the request has not started, before Enter is tried instead. */
const SUBMIT_RETRY_MS = 6_000;
const REQUEST_START_TIMEOUT_MS = 20_000;
const ANSWER_RENDER_TIMEOUT_MS = 5_000;
/** Citation pills may render after the text settles (late lists): read once their count stops changing. */
const PILLS_QUIET_MS = 1_000;
const PILLS_TIMEOUT_MS = 6_000;

const DETAIL = {
  challenge: "Perplexity answered with an anti-bot challenge. Safe to retry.",
  login: "Perplexity requires a login: the browser session is not signed in or its anonymous quota is used up.",
} as const;

export interface PerplexityNavigation {
  /** The scrape's page session (src/browser/page/page-session.ts): its page, step log and hot-page state. */
  pageSession: PageSession;
  origin: string;
  prompt: string;
  webSearch: boolean;
  signal: AbortSignal;
  deadline: number;
}

export interface PerplexityCapture {
  /** The `perplexity_ask` exchange, its request verified. */
  exchange: CapturedExchange;
  /** The rendered answer's HTML (every answer block), for the DOM fallback of sources; null when not found. */
  readAnswerHtml(): Promise<string | null>;
}

export async function capturePerplexityAnswer(options: PerplexityNavigation): Promise<PerplexityCapture> {
  const { pageSession, origin, prompt, webSearch, signal, deadline } = options;
  const { page } = pageSession;
  const nav = createNavigator({ session: pageSession, signal, deadline, provider: PROVIDER });
  const capture = await startCapture(pageSession, PERPLEXITY_CAPTURE_RULES, PROVIDER);

  await nav.goto(`${origin}/`, { landing: true });
  const composer = await openComposer(nav);
  if (!webSearch) await switchWebSourceOff(nav, capture);
  await nav.typeInto(composer, prompt);
  await send(nav, capture, composer);

  const exchange = await waitForAnswer(nav, capture, signal);
  verifyRequest(exchange, prompt, webSearch);
  return { exchange, readAnswerHtml: () => readAnswerHtml(nav, page) };
}

/**
 * The composer, once the page shows it. The page is a client-rendered app: the composer may mount or become usable
 * seconds after DOMContentLoaded, so absence is concluded only when the bounded wait of `awaitEntry` has passed, and a
 * challenge or login wall only on positive evidence that persists while the composer is still missing.
 */
async function openComposer(nav: Navigator): Promise<PageElement> {
  const entry = await nav.awaitEntry({
    what: "composer",
    anchors: PERPLEXITY_ANCHORS.composer,
    timeoutMs: ENTRY_TIMEOUT_MS,
    blocks: PERPLEXITY_BLOCKS,
  });
  if (entry === "challenge")
    throw new UpstreamError(DETAIL.challenge, { retryable: true, cause: new Error("perplexity challenge page"), reason: "challenge" });
  if (entry === "login_wall") throw loginWall("perplexity sign-in wall");
  // §2/§5: the sign-in modal shows over the home page instead of an answer; a consent or promo dialog is no wall
  if (await nav.waitForCondition(SIGN_IN_DIALOG_VISIBLE, { timeoutMs: 0 })) throw loginWall("perplexity sign-in modal");
  return entry;
}

function loginWall(cause: string): UpstreamError {
  return new UpstreamError(DETAIL.login, { retryable: false, cause: new Error(cause), reason: "login_wall" });
}

/** A request choice made on the page or by patching the request: one structured line each, told apart by `via`. */
function logChoice(nav: Navigator, what: string, via: "page" | "patch"): void {
  nav.logEvent("choice", { what, via });
}

/**
 * `web_search=false`: the sources menu's "Web" item off (§1). The trigger's label is not in the sheet (hence the
 * alternatives), and a control that has not hydrated yet ignores clicks: the menu is tried again until it opens or the
 * bounded wait ends. When the menu or the item cannot be used, the choice is patched into the request instead
 * (`params.sources:[]`, `skip_search_enabled:true`); either way it is verified on the wire afterwards.
 */
async function switchWebSourceOff(nav: Navigator, capture: CaptureSession): Promise<void> {
  let opened = false;
  let switched = false;
  try {
    const trigger = await nav.findByRole(
      { roles: ["button"], name: PERPLEXITY_NAMES.sourcesMenu },
      { what: "sources_menu", optional: true, timeoutMs: CONTROL_TIMEOUT_MS },
    );
    if (trigger !== null) {
      opened = true;
      const until = Date.now() + Math.min(MENU_RETRY_MS, nav.remainingMs());
      do {
        switched = await nav.chooseMenuItem(trigger, PERPLEXITY_NAMES.webSource, {
          what: "web_source",
          menuTimeoutMs: MENU_OPEN_TIMEOUT_MS,
        });
      } while (!switched && Date.now() < until);
    }
  } catch (error) {
    // an ambiguous control is not worth failing for: the patch below does the same, and the wire decides
    if (!(error instanceof ScraperDriftError)) throw error;
  }
  // the menu (or whatever popover the trigger opened) must not stay over the composer
  if (opened) await nav.pressKey("Escape");
  if (switched) {
    logChoice(nav, "web_search_off", "page");
    return;
  }
  await capture.setPatch(ASK_RULE, WEB_SEARCH_OFF_PATCH);
  logChoice(nav, "web_search_off", "patch");
}

/**
 * Submit by its button (the sheet's anchor, else by role and name), clicked again while the request has not started
 * (a button that has not hydrated ignores clicks); Enter in the composer when there is no button or nothing happened.
 */
async function send(nav: Navigator, capture: CaptureSession, composer: PageElement): Promise<void> {
  const button =
    (await nav.waitForAnchor(PERPLEXITY_ANCHORS.send, { what: "submit", optional: true, timeoutMs: CONTROL_TIMEOUT_MS })) ??
    (await nav
      .findByRole({ roles: ["button"], name: PERPLEXITY_NAMES.submit }, { what: "submit", optional: true, timeoutMs: 0 })
      .catch((error: unknown) => {
        if (error instanceof ScraperDriftError) return null;
        throw error;
      }));
  const started = async (): Promise<boolean> => capture.exchanges(ASK_RULE).length > 0;
  if (button !== null && (await nav.clickUntil(button, started, { what: "submit", timeoutMs: SUBMIT_RETRY_MS }))) return;
  if (await started()) return;
  // the click moved the focus to the button; Enter belongs in the composer
  await nav.click(composer);
  await nav.pressKey("Enter");
}

/**
 * The first `perplexity_ask` exchange, once its body ended or its terminal frame (`final_sse_message:true`,
 * `status:"COMPLETED"`) arrived. A request that never starts is a login wall when the page shows one.
 */
async function waitForAnswer(nav: Navigator, capture: CaptureSession, signal: AbortSignal): Promise<CapturedExchange> {
  try {
    return await capture.waitForExchange(ASK_RULE, {
      signal,
      startTimeoutMs: Math.min(REQUEST_START_TIMEOUT_MS, Math.max(1, nav.remainingMs())),
      until: terminalFrameSeen(),
    });
  } catch (error) {
    if (error instanceof ScraperDriftError) {
      if (await nav.waitForCondition(SIGN_IN_DIALOG_VISIBLE, { timeoutMs: 0 })) throw loginWall("perplexity sign-in modal after sending");
      const block = await nav.detectBlock(PERPLEXITY_BLOCKS, null);
      if (block === "challenge") throw new UpstreamError(DETAIL.challenge, { retryable: true, cause: error, reason: "challenge" });
      if (block === "login_wall") throw loginWall("perplexity sign-in wall after sending");
    }
    throw error;
  }
}

/** An incremental check for the terminal frame: each chunk is decoded once, however often the capture calls it. */
function terminalFrameSeen(): (exchange: CapturedExchange) => boolean {
  const decoder = new SseDecoder();
  let fed = 0;
  let seen = false;
  return (exchange) => {
    for (; fed < exchange.chunks.length && !seen; fed += 1) {
      const chunk = exchange.chunks[fed];
      if (chunk === undefined) continue;
      seen = decoder.push(chunk).some((event) => {
        if (!event.data.includes('"final_sse_message"')) return false;
        try {
          const envelope: unknown = JSON.parse(event.data);
          // the parser's rule: a frame whose blocks is not a list is malformed, not the end
          const readable = isRecord(envelope) && (envelope.blocks === undefined || Array.isArray(envelope.blocks));
          return readable && envelope.final_sse_message === true && envelope.status === "COMPLETED";
        } catch {
          return false;
        }
      });
    }
    return seen;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Verification on the wire

function normaliseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The request must carry the prompt and the web-search choice, checked only where the sheet is certain (§1, §3):
 * `query_str` is the prompt, and `params.sources` holds "web" (search on) or not (search off). `skip_search_enabled`,
 * `search_focus` and `dsl_query` are not checked: the sheet gives them as what the current UI "also sends" or as older
 * alternatives, never as the choice itself, and pages were seen sending `skip_search_enabled:true` with Web on.
 */
function verifyRequest(exchange: CapturedExchange, prompt: string, webSearch: boolean): void {
  const body = requireJsonRequestBody(exchange, PROVIDER);
  if (typeof body.query_str !== "string" || normaliseWhitespace(body.query_str) !== normaliseWhitespace(prompt)) {
    throw new ScraperDriftError(PROVIDER, "prompt_not_sent", "query_str of the request is not the prompt that was typed");
  }
  const params = body.params;
  if (!isRecord(params)) throw new ScraperDriftError(PROVIDER, "request_params_missing", "the request has no params object");
  const sources = params.sources;
  const applied = Array.isArray(sources) && sources.includes("web") === webSearch;
  if (!applied) {
    throw new ScraperDriftError(
      PROVIDER,
      "web_search_not_applied",
      `web_search=${webSearch} but the request sent sources=${JSON.stringify(sources)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// DOM (fallback only)

/**
 * Every answer block's HTML once the stop button is gone (the page finished rendering) and the citation pills stopped
 * arriving (they may render after the text settles, in batches), or null.
 */
async function readAnswerHtml(nav: Navigator, page: Page): Promise<string | null> {
  const stop = JSON.stringify(PERPLEXITY_ANCHORS.stop.join(", "));
  await nav.waitForCondition(`document.querySelector(${stop}) === null`, {
    timeoutMs: Math.min(ANSWER_RENDER_TIMEOUT_MS, nav.remainingMs()),
  });
  await nav
    .waitForStableCount(`document.querySelectorAll(${JSON.stringify(PERPLEXITY_ANCHORS.citationPill)}).length`, {
      what: "citation_pills",
      quietMs: PILLS_QUIET_MS,
      timeoutMs: Math.min(PILLS_TIMEOUT_MS, nav.remainingMs()),
    })
    // no pill at all is an answer without citations in the DOM: the stream's answer stands as it is
    .catch((error: unknown) => {
      if (!(error instanceof ScraperDriftError)) throw error;
      return 0;
    });
  const anchors = JSON.stringify(PERPLEXITY_ANCHORS.answer);
  // the older wrapper holds the `.prose` blocks; without it, every `.prose` block of the (only) answer counts
  const html: unknown = await page
    .evaluate(
      `(() => {
        for (const anchor of ${anchors}) {
          const found = Array.from(document.querySelectorAll(anchor));
          if (found.length > 0) return found.map((element) => element.outerHTML).join("\\n");
        }
        return null;
      })()`,
    )
    .catch(() => null);
  return typeof html === "string" && html !== "" ? html : null;
}
