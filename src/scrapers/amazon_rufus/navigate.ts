/**
 * Drives an Amazon store page like a shopper: open the marketplace home, wait (bounded) for the Rufus nav button the
 * store's script inserts, open the panel (clicking again while the button is not hydrated), wait for Rufus's own
 * question box (`#rufus-text-area`, else the textbox named by the sheet's placeholder inside the panel; never "the
 * first textarea"), type the query with checked input, send with Enter (the round send button as fallback), and
 * capture the `/rufus/cl/streaming` exchange the page makes. The prompt is always verified in the request the page sent.
 * Everything after the capture is the pure parser's job.
 */
import type { Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { type CaptureSession, startCapture } from "../../browser/page/capture/capture";
import type { PageSession } from "../../browser/page/page-session";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { createNavigator, type Navigator, type PageElement, requireJsonRequestBody } from "../../browser/page/navigation/engine";
import type { BlockKind, BlockSignatures } from "../../browser/page/navigation/walls";
import { getAtPointer } from "../shared/decode/json-patch";
import {
  RUFUS_ANCHORS,
  RUFUS_BLOCK_SIGNATURES,
  RUFUS_BUTTON_NAME,
  RUFUS_DOGS_PAGE,
  RUFUS_INPUT_NAME,
  RUFUS_SEND_NAMES,
  RUFUS_QUERY_POINTER,
  RUFUS_STREAMING_URL,
} from "./selectors";

const PROVIDER = "amazon_rufus";
const STREAMING_RULE = "streaming";
/**
 * The nav button and the question box are mounted by the store's script, seconds after DOMContentLoaded on a slow
 * page (and a newer build may insert them later still): their absence is concluded only after this bounded wait.
 */
const ENTRY_TIMEOUT_MS = 20_000;
/** Clicks on a nav button that is not hydrated yet do nothing: it is clicked again until the panel shows, this long. */
const PANEL_OPEN_TIMEOUT_MS = 15_000;
/** After Enter: how long before trying the send button instead. */
const ENTER_SEND_TIMEOUT_MS = 4_000;
/** The round send button (selector unverified, found by role and name) may hydrate after the box. */
const SEND_BUTTON_TIMEOUT_MS = 5_000;
const REQUEST_START_TIMEOUT_MS = 15_000;
/** How long the question box may take to show what was typed (the engine has checked it already; this is the exact-text check). */
const TYPED_CHECK_MS = 1_000;

const DETAIL = {
  challenge: "Amazon answered with a robot check (CAPTCHA) instead of the store page. Safe to retry.",
  login: "Amazon asked the browser session to sign in: Rufus answers only signed-in sessions.",
  rateLimit: "Amazon is rate limiting the browser session (503). Retry shortly.",
  noRufus: "Rufus is not available on this Amazon marketplace (the store page has no Rufus button). Try another country.",
} as const;

/** In-page: whether the Rufus panel is shown (any of the sheet's panel anchors rendered and visible). */
const PANEL_SHOWN = `[...document.querySelectorAll(${JSON.stringify(RUFUS_ANCHORS.panel.join(", "))})].some((panel) => panel.getClientRects().length > 0 && getComputedStyle(panel).visibility !== "hidden")`;

export interface RufusNavigation {
  /** The scrape's page session (src/browser/page/page-session.ts): its page, step log and hot-page state. */
  pageSession: PageSession;
  origin: string;
  prompt: string;
  signal: AbortSignal;
  deadline: number;
}

/** Runs the page to the end of Rufus's answer stream and returns that exchange (status, chunks, request body). */
export async function captureRufusExchange({ pageSession, origin, prompt, signal, deadline }: RufusNavigation): Promise<CapturedExchange> {
  const { page } = pageSession;
  const capture = await startCapture(
    pageSession,
    [{ name: STREAMING_RULE, url: RUFUS_STREAMING_URL, transports: ["fetch", "xhr"] }],
    PROVIDER,
  );
  const nav = createNavigator({ session: pageSession, signal, deadline, provider: PROVIDER });

  await nav.goto(`${origin}/`, { landing: true });
  await throwIfRateLimited(nav, page);
  const input = await openPanel(nav, page);
  await throwIfBlocked(nav, page, input);

  const query = prompt.trim();
  // the engine waits while the box is read-only, types (real keys when the insertion is ignored) and checks that the
  // box holds the prompt
  await nav.typeInto(input, query);
  // The box may still drop or alter characters (a maxlength, an input handler): then the exact query is patched into
  // the request, which is verified below like any other.
  const typedWhole = await nav.waitForCondition(
    `((box) => (box === null ? "" : String(box.value ?? box.textContent ?? "")))(${QUESTION_BOX}).trim() === ${JSON.stringify(query)}`,
    { timeoutMs: TYPED_CHECK_MS },
  );
  if (!typedWhole) {
    nav.logEvent("choice", { what: "query", via: "patch" });
    await capture.setPatch(STREAMING_RULE, { set: [[RUFUS_QUERY_POINTER, query]] });
  }

  await send(nav, capture, signal);
  const exchange = await capture.waitForExchange(STREAMING_RULE, { signal, startTimeoutMs: REQUEST_START_TIMEOUT_MS });
  verifyQuerySent(exchange, query);
  return exchange;
}

/** In-page: the question box (the sheet's id, else the focused field the engine typed into). */
const QUESTION_BOX = `(document.querySelector(${JSON.stringify(RUFUS_ANCHORS.input.join(", "))}) ?? document.activeElement)`;

/**
 * The 503 "dogs" page (sheet §5) is positive evidence, read at once: its title names 503/Robot or its body says
 * "Sorry! Something went wrong!". A store page still hydrating shows neither.
 */
async function throwIfRateLimited(nav: Navigator, page: Page): Promise<void> {
  const shown = await nav.waitForAnchor([...RUFUS_ANCHORS.navButton, ...RUFUS_ANCHORS.input], {
    what: "rufus_button",
    timeoutMs: 0,
    optional: true,
  });
  if (shown !== null) return;
  const title: unknown = await page.evaluate("document.title").catch(() => "");
  const text: unknown = await page.evaluate("document.body ? document.body.innerText.slice(0, 2000) : ''").catch(() => "");
  if ((typeof text === "string" && RUFUS_DOGS_PAGE.text.test(text)) || (typeof title === "string" && RUFUS_DOGS_PAGE.title.test(title))) {
    throw new UpstreamError(DETAIL.rateLimit, { reason: "rate_limited", retryable: true, cause: new Error(`${PROVIDER}: 503 page`) });
  }
}

/** A wall the engine confirmed, as the API's error. */
function wallError(block: BlockKind, page: Page): UpstreamError {
  if (block === "challenge") {
    return new UpstreamError(DETAIL.challenge, {
      reason: "challenge",
      retryable: true,
      cause: new Error(`${PROVIDER}: robot check at ${page.url()}`),
    });
  }
  return new UpstreamError(DETAIL.login, {
    reason: "login_wall",
    retryable: false,
    cause: new Error(`${PROVIDER}: sign-in at ${page.url()}`),
  });
}

/** The page is a robot check or a sign-in page, or the panel asks to sign in: each by positive evidence only. */
async function throwIfBlocked(nav: Navigator, page: Page, composer: PageElement | null): Promise<void> {
  // a page that shows Rufus's box is no robot-check page: its text is not read (URLs, forms and sign-in links still count)
  const block = await nav.detectBlock(composer === null ? RUFUS_BLOCK_SIGNATURES : withoutPageText(RUFUS_BLOCK_SIGNATURES), composer);
  if (block !== null) throw wallError(block, page);
}

/** The signatures without the challenge's page-text patterns (URLs, forms and sign-in modals only). */
function withoutPageText(signatures: BlockSignatures): BlockSignatures {
  const { text: _text, ...challenge } = signatures.challenge ?? {};
  return { ...signatures, challenge };
}

/**
 * Opens the panel from the nav button (the sheet's anchors, else the button named "Rufus") and returns the question
 * box. Both are awaited (bounded): the store's script inserts them, and the button may ignore clicks until it is
 * hydrated, so it is clicked again until the panel shows. A panel that is open already is used as it is (another
 * click would close it).
 */
async function openPanel(nav: Navigator, page: Page): Promise<PageElement> {
  const open = await nav.waitForAnchor(RUFUS_ANCHORS.input, { what: "rufus_input", timeoutMs: 0, optional: true });
  if (open !== null) return open;
  let entry: PageElement | BlockKind;
  try {
    entry = await nav.awaitEntry({
      what: "rufus_button",
      anchors: RUFUS_ANCHORS.navButton,
      role: { roles: ["button", "link"], name: RUFUS_BUTTON_NAME },
      timeoutMs: ENTRY_TIMEOUT_MS,
      blocks: RUFUS_BLOCK_SIGNATURES,
    });
  } catch (error) {
    // no Rufus button after the whole wait, and no wall: this marketplace has no Rufus (sheet §5, permanent)
    if (error instanceof ScraperDriftError && error.driftCode === `${PROVIDER}.rufus_button_missing`) {
      throw new UpstreamError(DETAIL.noRufus, { retryable: false, cause: new Error(`${PROVIDER}.rufus_button_missing at ${page.url()}`) });
    }
    throw error;
  }
  if (entry === "challenge" || entry === "login_wall") throw wallError(entry, page);
  const shown = await nav.clickUntil(entry, () => nav.waitForCondition(PANEL_SHOWN, { timeoutMs: 0 }), {
    what: "rufus_button",
    timeoutMs: PANEL_OPEN_TIMEOUT_MS,
  });
  if (!shown) {
    await throwIfBlocked(nav, page, null);
    throw nav.drift("rufus_panel_missing", "the Rufus panel did not open from the nav button");
  }
  // the panel may mount its question box later, or ask to sign in instead (sheet §2 "the panel asks to sign in")
  const panel = await nav.waitForAnchor(RUFUS_ANCHORS.panel, { what: "rufus_panel", timeoutMs: 0, optional: true });
  const input = await nav.awaitEntry({
    what: "rufus_input",
    anchors: RUFUS_ANCHORS.input,
    // the sheet's placeholder names the box; scoped to the panel, so a newer assistant's box elsewhere never matches
    role: { roles: ["textbox"], name: RUFUS_INPUT_NAME, ...(panel === null ? {} : { within: panel }) },
    timeoutMs: ENTRY_TIMEOUT_MS,
    blocks: RUFUS_BLOCK_SIGNATURES,
  });
  if (input === "challenge" || input === "login_wall") throw wallError(input, page);
  return input;
}

/**
 * Enter sends (sheet §2, on every known build); the round send button (its selector is unverified, so by role and
 * name, inside the panel) is the fallback, and Enter once more when that button cannot be told apart.
 */
async function send(nav: Navigator, capture: CaptureSession, signal: AbortSignal): Promise<void> {
  await nav.pressKey("Enter");
  if (await requestStarted(capture, signal)) return;
  const container = await nav.waitForAnchor(RUFUS_ANCHORS.panel, { what: "rufus_panel", timeoutMs: 0, optional: true });
  const sendButton = await nav.findByRole(
    { roles: ["button"], name: RUFUS_SEND_NAMES, ...(container === null ? {} : { within: container }) },
    { what: "rufus_send_button", timeoutMs: SEND_BUTTON_TIMEOUT_MS, optional: true },
  );
  if (sendButton !== null) await nav.click(sendButton);
  else await nav.pressKey("Enter");
}

/** Whether the streaming request has started within ENTER_SEND_TIMEOUT_MS. */
async function requestStarted(capture: CaptureSession, signal: AbortSignal): Promise<boolean> {
  try {
    // resolves as soon as the request has started
    await capture.waitForExchange(STREAMING_RULE, { signal, startTimeoutMs: ENTER_SEND_TIMEOUT_MS, until: () => true });
    return true;
  } catch (error) {
    if (!(error instanceof ScraperDriftError)) throw error;
    return false;
  }
}

/** The request the page sent is the ground truth: it must carry the query exactly. */
function verifyQuerySent(exchange: CapturedExchange, query: string): void {
  const body = requireJsonRequestBody(exchange, PROVIDER);
  const sent = getAtPointer(body, RUFUS_QUERY_POINTER);
  if (typeof sent !== "string" || sent.replace(/\r\n?/g, "\n").trim() !== query.replace(/\r\n?/g, "\n")) {
    throw new ScraperDriftError(
      PROVIDER,
      "query_not_sent",
      `the streaming request did not carry the query (${typeof sent}, ${String(sent).length} chars)`,
    );
  }
}
