/**
 * Drives chatgpt.com (providers/chatgpt.md §1–§2). On a hot page (src/browser/hot-page.ts: the session's next page,
 * already on the site's home page and hydrated while the previous scrape waited for its answer) the prompt is typed
 * into the composer and sent, as a user would. Otherwise, and whenever the hot page does not send, the scrape opens the
 * deep link `/?q=<prompt>&hints=search`, which fills and submits the prompt with web search forced; when the deep
 * link does not send either (a build that ignores it), the prompt is typed into that page's composer. Web search is
 * asked for in the request itself when the page did not (the typed paths), and the prompt and the search hint are
 * verified in the request the page sent. Everything after the capture is the pure parser's job.
 */
import type { HTTPRequest, Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { startCapture, type CaptureSession } from "../../browser/page/capture/capture";
import type { PageSession } from "../../browser/page/page-session";
import type { CapturedExchange, CaptureRule, OutgoingPatch } from "../../browser/page/capture/types";
import { attributeOf, parseHtml, queryOne } from "../shared/decode/html";
import { decodeUtf8Chunks } from "../shared/decode/lines";
import { createNavigator, type Navigator, type PageElement } from "../../browser/page/navigation/engine";
import { type BlockKind, WallEvidence } from "../../browser/page/navigation/walls";
import { CHATGPT_DETAIL, challengeFailure, loginWallFailure, rateLimitFailure } from "./failures";
import { normaliseText, verifyChatgptRequest } from "./request-check";
import {
  CHATGPT_ASSISTANT_MESSAGE,
  CHATGPT_BLOCKS,
  CHATGPT_COMPOSER,
  CHATGPT_CONVERSATION_URL,
  CHATGPT_DIALOGS,
  CHATGPT_LOGIN_HOSTS,
  CHATGPT_LOGIN_LABELS,
  CHATGPT_REQUIREMENTS_URL,
  CHATGPT_SEND,
  chatgptDeepLink,
  chatgptHome,
  SEARCH_HINT,
} from "./selectors";

const PROVIDER = "chatgpt";
const CONVERSATION = "conversation";
const REQUIREMENTS = "requirements";
/** How long the deep link may take to send (hydration, sentinel, proof of work) before the composer is used. */
const DEEP_LINK_SEND_TIMEOUT_MS = 15_000;
/** How long the page may take to send after the prompt was submitted through the composer. */
const COMPOSER_SEND_TIMEOUT_MS = 20_000;
/** How long the composer may take to appear once the deep link did not send (it may hydrate seconds after load). */
const COMPOSER_ENTRY_TIMEOUT_MS = 20_000;
/** How long the send button may take to take a click (it may be deaf until the app hydrates). */
const SEND_CLICK_TIMEOUT_MS = 10_000;
const CHECK_INTERVAL_MS = 250;
/**
 * How long evidence of a wall (a login modal, challenge markup or text) must stay on the page, with no request sent,
 * before it is believed: a dialog that comes and goes, or text seen while the page hydrates, is not a wall.
 */
const BLOCK_CONFIRM_MS = 3_000;
/** A hot page was hydrated while idle: its composer is there at once, or the page is not what it was prepared as. */
const HOT_COMPOSER_TIMEOUT_MS = 1_000;
/** How long the answer's `data-message-model-slug` may take to render when the stream named no model. */
const MODEL_SLUG_TIMEOUT_MS = 5_000;

/**
 * Web search when the page asked for none (a typed prompt, or a build that ignores `hints=search`): the request then
 * carries `system_hints: []` or no hints at all, and the patch adds `"search"`, keeping any other hint the page asked
 * for. A request that already asks for search leaves the page untouched.
 */
const SEARCH_PATCH: OutgoingPatch = { include: [["/system_hints", SEARCH_HINT]] };

/** What the scrape records: the conversation stream (patched to ask for web search) and the sentinel calls. */
export const CHATGPT_CAPTURE_RULES: readonly CaptureRule[] = [
  { name: CONVERSATION, url: CHATGPT_CONVERSATION_URL, transports: ["fetch", "xhr"], patch: SEARCH_PATCH },
  { name: REQUIREMENTS, url: CHATGPT_REQUIREMENTS_URL, transports: ["fetch", "xhr"] },
];

export interface ChatgptNavigation {
  /** The scrape's page session (src/browser/page/page-session.ts): its page, step log and hot-page state. */
  pageSession: PageSession;
  origin: string;
  prompt: string;
  signal: AbortSignal;
  deadline: number;
}

export interface ChatgptCapture {
  exchange: CapturedExchange;
  /** The answering message's `data-message-model-slug`, read from the page on demand (the stream usually names it). */
  readModelSlugFromPage: () => Promise<string | null>;
}

export async function captureChatgptExchange({
  pageSession,
  origin,
  prompt,
  signal,
  deadline,
}: ChatgptNavigation): Promise<ChatgptCapture> {
  const { page } = pageSession;
  const capture = await startCapture(pageSession, CHATGPT_CAPTURE_RULES, PROVIDER);
  const nav = createNavigator({ session: pageSession, signal, deadline, provider: PROVIDER });
  const hot = nav.onHotLanding(chatgptHome(origin));
  let outcome = hot ? await sendOnHotPage(nav, capture, page, prompt, signal) : "idle";
  // web search: the deep link asks for it on the page (`hints=search`, the page then sends it); a prompt typed on the
  // hot page, whose URL carries no hint, gets it by the capture patch
  const searchVia: "page" | "patch" = outcome === "sent" ? "patch" : "page";
  // a sentinel call the site refused (Turnstile required, 403, 429) is the answer: a deep link would be refused too
  let refused = outcome === "idle" ? requirementsRefusal(capture) : null;
  if (outcome !== "sent" && refused === null) {
    // no hot page, or one that did not send (a modal it grew while idle, a composer it lost): start as a fresh page does
    await openDeepLink(nav, page, chatgptDeepLink(origin, prompt));
    outcome = await waitForSendOrBlock(nav, page, capture, DEEP_LINK_SEND_TIMEOUT_MS, signal);
    if (outcome === "idle") {
      // the deep link filled the composer without sending (or has not hydrated yet): the composer may still be coming,
      // and only evidence that persists while it stays missing is a wall (awaitEntry)
      const entry = await nav.awaitEntry({
        what: "composer",
        anchors: CHATGPT_COMPOSER,
        blocks: CHATGPT_BLOCKS,
        timeoutMs: COMPOSER_ENTRY_TIMEOUT_MS,
      });
      if (entry === "challenge" || entry === "login_wall") outcome = entry;
      else {
        await typeAndSend(nav, page, capture, entry, prompt);
        outcome = await waitForSendOrBlock(nav, page, capture, COMPOSER_SEND_TIMEOUT_MS, signal);
      }
    }
    // the page never sent: a sentinel call the site refused says why
    refused = outcome === "idle" ? requirementsRefusal(capture) : null;
  }
  if (refused === "rate_limited") throw rateLimitFailure();
  if (outcome === "challenge" || refused === "challenge") throw challengeFailure();
  if (outcome === "login_wall") throw loginWallFailure();
  if (outcome === "idle") throw nav.drift("request_not_sent", "neither the deep link nor the composer started a conversation request");

  const exchange = await capture.waitForExchange(CONVERSATION, { signal, startTimeoutMs: 1_000, until: endedWithDone });
  verifyChatgptRequest(exchange, prompt);
  nav.logEvent("choice", { what: "web_search", via: searchVia });
  return { exchange, readModelSlugFromPage: () => readModelSlug(nav) };
}

/**
 * Opens the deep link. A main-frame redirect to the login host is a login wall even when that host cannot be loaded;
 * any other navigation failure means the site could not be reached.
 */
async function openDeepLink(nav: Navigator, page: Page, url: string): Promise<void> {
  // every hop of the main frame's navigation, redirects included (a failed load names only the first URL)
  const hops: string[] = [];
  const onRequest = (request: HTTPRequest): void => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) hops.push(request.url());
  };
  page.on("request", onRequest);
  try {
    await nav.goto(url);
  } catch (error) {
    nav.throwIfAborted();
    // the page's URL and every hop the main frame requested (each redirect is a request of its own), never the error's text
    if ([page.url(), ...hops].some((visited) => CHATGPT_LOGIN_HOSTS.test(visited))) throw loginWallFailure(error);
    throw new UpstreamError(CHATGPT_DETAIL.unreachable, { retryable: true, cause: error });
  } finally {
    page.off("request", onRequest);
  }
}

/** Why the site refused a sentinel exchange, if it did: HTTP 403 or `turnstile.required` (a challenge), or 429. */
function requirementsRefusal(capture: CaptureSession): "challenge" | "rate_limited" | null {
  for (const exchange of capture.exchanges(REQUIREMENTS)) {
    if (exchange.status === 429) return "rate_limited";
    if (exchange.status === 403) return "challenge";
    let body: unknown;
    try {
      body = JSON.parse(decodeUtf8Chunks(exchange.chunks));
    } catch {
      continue;
    }
    const turnstile: unknown = typeof body === "object" && body !== null ? Reflect.get(body, "turnstile") : undefined;
    if (typeof turnstile === "object" && turnstile !== null && Reflect.get(turnstile, "required") === true) return "challenge";
  }
  return null;
}

/**
 * Waits until the page starts the conversation request, or shows why it will not: a challenge or a login wall, by
 * positive evidence only (anonymous pages always show "Log in" buttons; only a modal offering it counts), and only
 * once that evidence has stayed BLOCK_CONFIRM_MS with nothing sent — a page that is still hydrating, or a dialog that
 * comes and goes, is neither. Other dialogs (consent, survey, promo) do not stop the page from sending and are left to
 * the clicks that need them gone.
 */
async function waitForSendOrBlock(
  nav: Navigator,
  page: Page,
  capture: CaptureSession,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<"sent" | "idle" | BlockKind> {
  const until = Date.now() + Math.min(timeoutMs, nav.remainingMs());
  const evidence = new WallEvidence(BLOCK_CONFIRM_MS);
  // A page that sends does so within moments: the DOM is looked at only when nothing was sent by then, and again at
  // every interval, so the checks' round trips never compete with the page's own start.
  let nextCheck = Math.min(until, Date.now() + CHECK_INTERVAL_MS);
  for (;;) {
    nav.throwIfAborted();
    if (capture.exchanges(CONVERSATION).length > 0) return "sent";
    if (Date.now() >= nextCheck) {
      const composer = await nav.waitForAnchor(CHATGPT_COMPOSER, { what: "composer", optional: true, timeoutMs: 0 });
      // with a composer on the page, the challenge-text check is skipped (the prompt in it may contain any words)
      const seen = (await nav.detectBlock(CHATGPT_BLOCKS, composer)) ?? (await loginModal(nav));
      const now = Date.now();
      const confirmed = evidence.observe(seen, now);
      // a main-frame redirect to the login host is the site's own verdict: believed at once
      if (seen === "login_wall" && CHATGPT_LOGIN_HOSTS.test(page.url())) return seen;
      if (confirmed !== null) return confirmed;
      if (now >= until) return evidence.current ?? "idle";
      nextCheck = Math.min(until, now + CHECK_INTERVAL_MS);
    }
    // the page's next capture message (the conversation request starting) wakes the loop at once
    await capture.nextChange(Math.max(0, nextCheck - Date.now()), signal);
  }
}

/** A visible modal dialog that offers to log in or sign up (chatgpt.md §2: a "Log in / Sign up" modal instead of an answer). */
async function loginModal(nav: Navigator): Promise<"login_wall" | null> {
  const dialog = await nav.waitForAnchor(CHATGPT_DIALOGS, { what: "dialog", optional: true, timeoutMs: 0 });
  if (dialog === null) return null;
  for (const label of CHATGPT_LOGIN_LABELS) {
    try {
      const control = await nav.findByRole(
        { roles: ["button", "link"], name: label, within: dialog },
        { what: "login_control", optional: true, timeoutMs: 0 },
      );
      if (control !== null) return "login_wall";
    } catch (error) {
      // several controls named like that inside the dialog: still a login modal
      if (error instanceof ScraperDriftError && error.driftCode.endsWith("_ambiguous")) return "login_wall";
      throw error;
    }
  }
  return null;
}

/**
 * The hot page's composer is waiting: type the prompt and send it. "idle" when there is no composer or nothing was
 * sent, so that the scrape starts over from the deep link.
 */
async function sendOnHotPage(
  nav: Navigator,
  capture: CaptureSession,
  page: Page,
  prompt: string,
  signal: AbortSignal,
): Promise<"sent" | "idle" | BlockKind> {
  const composer = await nav.waitForAnchor(CHATGPT_COMPOSER, { what: "composer", optional: true, timeoutMs: HOT_COMPOSER_TIMEOUT_MS });
  if (composer === null) return "idle";
  // a hot page is only a shortcut: one that grew a sign-in modal while idle is not typed on; a fresh page decides
  if ((await nav.detectBlock(CHATGPT_BLOCKS, composer)) !== null || (await loginModal(nav)) !== null) return "idle";
  await typeAndSend(nav, page, capture, composer, prompt);
  return waitForSendOrBlock(nav, page, capture, COMPOSER_SEND_TIMEOUT_MS, signal);
}

/**
 * Puts the prompt in the composer (unless it holds it already, as after a deep link that filled it without sending)
 * and sends it: the send button, clicked again while the page ignores it (a button that is not hydrated yet takes no
 * click), or Enter when the page shows no send button or never takes the click.
 */
async function typeAndSend(nav: Navigator, page: Page, capture: CaptureSession, composer: PageElement, prompt: string): Promise<void> {
  const current = await composerText(page);
  if (normaliseText(current ?? "") !== normaliseText(prompt)) {
    if ((current ?? "").trim() !== "") await clearComposer(nav, page, composer);
    await nav.typeInto(composer, prompt);
  }
  // the page took the prompt once it started the request or emptied the composer (it clears it when it sends)
  const taken = async (): Promise<boolean> =>
    capture.exchanges(CONVERSATION).length > 0 || normaliseText((await composerText(page)) ?? "") !== normaliseText(prompt);
  const send = await nav.waitForAnchor(CHATGPT_SEND, { what: "send_button", timeoutMs: 3_000, optional: true });
  if (send !== null && (await nav.clickUntil(send, taken, { what: "send_button", timeoutMs: SEND_CLICK_TIMEOUT_MS }))) return;
  if (!(await taken())) await nav.pressKey("Enter");
}

/** The composer's text: a textarea's value, or the editor's text (null when there is no composer). */
async function composerText(page: Page): Promise<string | null> {
  const text: unknown = await page
    .evaluate(
      `(() => {
        for (const selector of ${JSON.stringify(CHATGPT_COMPOSER)}) {
          const element = document.querySelector(selector);
          if (element === null) continue;
          return "value" in element && typeof element.value === "string" && element.value !== "" ? element.value : element.innerText;
        }
        return null;
      })()`,
    )
    .catch(() => null);
  return typeof text === "string" ? text : null;
}

async function clearComposer(nav: Navigator, page: Page, composer: PageElement): Promise<void> {
  await nav.click(composer);
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.press("Backspace");
}

/** The stream is over once `data: [DONE]` arrived, even if the connection stays open. */
function endedWithDone(exchange: CapturedExchange): boolean {
  const tail: Uint8Array[] = [];
  let length = 0;
  for (let index = exchange.chunks.length - 1; index >= 0 && length < 64; index -= 1) {
    const chunk = exchange.chunks[index];
    if (chunk === undefined) break;
    tail.unshift(chunk);
    length += chunk.length;
  }
  return /(?:^|\n)data: ?\[DONE\]\s*$/.test(decodeUtf8Chunks(tail));
}

/** The answer's model slug from the page (chatgpt.md §4: DOM `data-message-model-slug`); it may render after the text. */
async function readModelSlug(nav: Navigator): Promise<string | null> {
  const message = await nav
    .waitForAnchor(CHATGPT_ASSISTANT_MESSAGE, { what: "model_slug", optional: true, timeoutMs: MODEL_SLUG_TIMEOUT_MS })
    .catch(() => null);
  if (message === null) return null;
  const html = await nav.snapshotHtml(CHATGPT_ASSISTANT_MESSAGE).catch(() => null);
  if (html === null) return null;
  const element = queryOne(parseHtml(html), "[data-message-model-slug]");
  const slug = element === null ? null : attributeOf(element, "data-message-model-slug");
  return slug !== null && slug.trim() !== "" ? slug.trim() : null;
}
