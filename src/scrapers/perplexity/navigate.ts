/**
 * Drives perplexity.ai like a person (providers/perplexity.md §2): open the home page, switch the Web source off when
 * `web_search=false` (the site's default is on: then nothing is touched), type the prompt into the composer, send, and
 * capture the `perplexity_ask` SSE stream the page receives. The request the page sent is then checked for the prompt
 * and the web-search choice ("verify on the wire"). Everything after the capture is the pure parser's job.
 */
import type { Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { startCapture, type CaptureSession } from "../shared/capture/capture";
import type { CapturedExchange } from "../shared/capture/types";
import { SseDecoder } from "../shared/decode/sse";
import { createNavigator, type Navigator, type PageElement, requireJsonRequestBody } from "../shared/navigation/engine";
import { isRecord } from "./json";
import {
  ASK_RULE,
  PAGE_SETTLED,
  PERPLEXITY_ANCHORS,
  PERPLEXITY_BLOCKS,
  PERPLEXITY_CAPTURE_RULES,
  PERPLEXITY_NAMES,
  SIGN_IN_DIALOG_VISIBLE,
  WEB_SEARCH_OFF_PATCH,
} from "./selectors";

const PROVIDER = "perplexity";
const PAGE_READY_TIMEOUT_MS = 20_000;
const CONTROL_TIMEOUT_MS = 3_000;
const REQUEST_START_TIMEOUT_MS = 20_000;
/** After a click on Submit, how long the page may take to start the request before Enter is tried instead. */
const CLICK_GRACE_MS = 1_500;
const ANSWER_RENDER_TIMEOUT_MS = 5_000;

const DETAIL = {
  challenge: "Perplexity answered with an anti-bot challenge. Safe to retry.",
  login: "Perplexity requires a login: the browser session is not signed in or its anonymous quota is used up.",
} as const;

export interface PerplexityNavigation {
  page: Page;
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
  const { page, origin, prompt, webSearch, signal, deadline } = options;
  const nav = createNavigator({ page, signal, deadline, provider: PROVIDER });
  const capture = await startCapture(page, PERPLEXITY_CAPTURE_RULES, PROVIDER);

  await nav.goto(`${origin}/`, { landing: true });
  const composer = await openComposer(nav);
  if (!webSearch) await switchWebSourceOff(nav, capture);
  await nav.typeInto(composer, prompt);
  await send(nav, capture, composer);

  const exchange = await waitForAnswer(nav, capture, signal);
  verifyRequest(exchange, prompt, webSearch);
  return { exchange, readAnswerHtml: () => readAnswerHtml(nav, page) };
}

/** The composer, once the page shows it and nothing blocks it (challenge, sign-in modal). */
async function openComposer(nav: Navigator): Promise<PageElement> {
  await nav.waitForCondition(PAGE_SETTLED, { timeoutMs: PAGE_READY_TIMEOUT_MS });
  const composer = await nav.waitForAnchor(PERPLEXITY_ANCHORS.composer, {
    what: "composer",
    optional: true,
    timeoutMs: CONTROL_TIMEOUT_MS,
  });
  await throwIfBlocked(nav, composer);
  if (composer === null) throw nav.drift("composer_missing", `none of ${JSON.stringify(PERPLEXITY_ANCHORS.composer)} became visible`);
  return composer;
}

async function throwIfBlocked(nav: Navigator, composer: PageElement | null): Promise<void> {
  const block = await nav.detectBlock(PERPLEXITY_BLOCKS, composer);
  if (block === "challenge") throw new UpstreamError(DETAIL.challenge, { retryable: true, cause: new Error("perplexity challenge page") });
  if (block === "login_wall" || (await nav.waitForCondition(SIGN_IN_DIALOG_VISIBLE, { timeoutMs: 0 }))) {
    throw new UpstreamError(DETAIL.login, { retryable: false, cause: new Error("perplexity sign-in modal") });
  }
}

/**
 * `web_search=false`: the sources menu's "Web" item off. When the menu or the item cannot be found, the choice is
 * patched into the request instead (`params.sources:[]`, `skip_search_enabled:true`); either way it is verified on the
 * wire afterwards.
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
      switched = await nav.chooseMenuItem(trigger, PERPLEXITY_NAMES.webSource, { what: "web_source" });
    }
  } catch (error) {
    // an ambiguous control is not worth failing for: the patch below does the same, and the wire decides
    if (!(error instanceof ScraperDriftError)) throw error;
  }
  // the menu (or whatever popover the trigger opened) must not stay over the composer
  if (opened) await nav.pressKey("Escape");
  if (!switched) await capture.setPatch(ASK_RULE, WEB_SEARCH_OFF_PATCH);
}

/** Submit by its button (the sheet's anchor, else by role and name); Enter in the composer when no button or nothing happened. */
async function send(nav: Navigator, capture: CaptureSession, composer: PageElement): Promise<void> {
  const button =
    (await nav.waitForAnchor(PERPLEXITY_ANCHORS.send, { what: "submit", optional: true, timeoutMs: CONTROL_TIMEOUT_MS })) ??
    (await nav
      .findByRole({ roles: ["button"], name: PERPLEXITY_NAMES.submit }, { what: "submit", optional: true, timeoutMs: 0 })
      .catch((error: unknown) => {
        if (error instanceof ScraperDriftError) return null;
        throw error;
      }));
  if (button !== null) {
    await nav.click(button);
    if (await waitForRequestStart(nav, capture, CLICK_GRACE_MS)) return;
    // the click moved the focus to the button; Enter belongs in the composer
    await nav.click(composer);
  }
  await nav.pressKey("Enter");
}

async function waitForRequestStart(nav: Navigator, capture: CaptureSession, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + Math.min(timeoutMs, nav.remainingMs());
  while (capture.exchanges(ASK_RULE).length === 0) {
    if (Date.now() >= until) return false;
    nav.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
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
    if (error instanceof ScraperDriftError) await throwIfBlocked(nav, null);
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

/** The request must carry the prompt and the web-search choice (§1: `query_str`, `params.sources`, `skip_search_enabled`). */
function verifyRequest(exchange: CapturedExchange, prompt: string, webSearch: boolean): void {
  const body = requireJsonRequestBody(exchange, PROVIDER);
  if (typeof body.query_str !== "string" || normaliseWhitespace(body.query_str) !== normaliseWhitespace(prompt)) {
    throw new ScraperDriftError(PROVIDER, "prompt_not_sent", "query_str of the request is not the prompt that was typed");
  }
  const params = body.params;
  if (!isRecord(params)) throw new ScraperDriftError(PROVIDER, "request_params_missing", "the request has no params object");
  const sources = params.sources;
  const webOn = Array.isArray(sources) && sources.includes("web");
  const skipSearch = params.skip_search_enabled === true;
  const applied = webSearch ? webOn && !skipSearch : Array.isArray(sources) && !webOn && skipSearch;
  if (!applied) {
    throw new ScraperDriftError(
      PROVIDER,
      "web_search_not_applied",
      `web_search=${webSearch} but the request sent sources=${JSON.stringify(sources)} skip_search_enabled=${JSON.stringify(params.skip_search_enabled)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// DOM (fallback only)

/** Every answer block's HTML once the stop button is gone (the page finished rendering), or null. */
async function readAnswerHtml(nav: Navigator, page: Page): Promise<string | null> {
  const stop = JSON.stringify(PERPLEXITY_ANCHORS.stop.join(", "));
  await nav.waitForCondition(`document.querySelector(${stop}) === null`, {
    timeoutMs: Math.min(ANSWER_RENDER_TIMEOUT_MS, nav.remainingMs()),
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
