/**
 * Drives Google AI Mode like a visitor: open `/search?udm=50&q=…&hl=…&gl=…`, accept the EU consent interstitial when
 * it shows, and capture the `/async/folwr` fragment the page itself requests (fetch or XHR); then open the "N sites"
 * panel and read its entries once they stop arriving (panel.ts), for a page that builds the list only on opening.
 * Everything after is the pure parser's job. The prompt and AI Mode (`udm=50`) are verified in the request the page
 * sent. Absence is never concluded early: a block needs positive evidence that persists while the page still has not
 * asked for the answer (a redirect to a challenge or sign-in URL is evidence at once).
 */
import type { Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, ServiceError, UpstreamError } from "../../errors";
import { type CaptureSession, startCapture } from "../../browser/page/capture/capture";
import type { PageSession } from "../../browser/page/page-session";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { createNavigator, type Navigator } from "../../browser/page/navigation/engine";
import { BLOCK_CONFIRM_MS, type BlockKind, blockFromUrl } from "../../browser/page/navigation/walls";
import { GOOGLE_AI_MODE_ID } from "./declaration";
import { readSourcesPanel } from "./panel";
import { type AiModeCapture, fragmentHasSitesButton } from "./parse";
import {
  BLOCK_SIGNATURES,
  CONSENT_ACCEPT,
  CONSENT_URL,
  DOM_COMPLETED,
  FOLWR_RULE,
  FOLWR_URL,
  SESSION_TOKEN,
  UNAVAILABLE_TEXT,
} from "./selectors";

/** How long the shell may take to start the folwr request once it has loaded. */
const FOLWR_START_TIMEOUT_MS = 20_000;
const BLOCK_POLL_MS = 400;
/** The consent page's accept button may hydrate after the page loads. */
const CONSENT_BUTTON_TIMEOUT_MS = 10_000;
/** How long the page may take to show a finished response once the fragment has arrived. */
const DOM_COMPLETION_TIMEOUT_MS = 5_000;
const CONSENT_TIMEOUT_MS = 20_000;
/** A consent page that comes back after accepting is drift, not a loop. */
const MAX_CONSENT_ROUNDS = 2;

const DETAIL = {
  challenge: "Google answered with its unusual-traffic check (CAPTCHA). Safe to retry, ideally later or from another session.",
  login: "Google asked the browser session to sign in before answering in AI Mode.",
  unavailable: "Google AI Mode is not available for the requested country or language.",
  noSession: "Google served a page without an AI Mode session (no answer tokens). Safe to retry.",
  unreachable: "Google could not be reached. Safe to retry.",
} as const;

export interface AiModeNavigation {
  /** The scrape's page session (src/browser/page/page-session.ts): its page, step log and hot-page state. */
  pageSession: PageSession;
  origin: string;
  prompt: string;
  hl: string;
  gl: string;
  signal: AbortSignal;
  deadline: number;
}

/** The AI Mode results page for a prompt (google_ai_mode.md §1). */
export function searchUrl(origin: string, prompt: string, hl: string, gl: string): string {
  const query = new URLSearchParams({ udm: "50", q: prompt, hl, gl });
  return `${origin}/search?${query.toString()}`;
}

export async function captureAiModeAnswer(navigation: AiModeNavigation): Promise<AiModeCapture> {
  const { pageSession, signal, deadline } = navigation;
  const { page } = pageSession;
  // before the first navigation: the folwr URL is single-use and bound to the page load, so it is never re-requested
  const capture = await startCapture(pageSession, [{ name: FOLWR_RULE, url: FOLWR_URL, transports: ["fetch", "xhr"] }], GOOGLE_AI_MODE_ID);
  const nav = createNavigator({ session: pageSession, signal, deadline, provider: GOOGLE_AI_MODE_ID });

  await open(nav, signal, searchUrl(navigation.origin, navigation.prompt, navigation.hl, navigation.gl));
  await acceptConsent(nav, page);
  await awaitAnswerRequest(nav, page, signal, capture);

  let exchange: CapturedExchange;
  try {
    exchange = await capture.waitForExchange(FOLWR_RULE, { signal, startTimeoutMs: FOLWR_START_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof ScraperDriftError) throw await explainMissingRequest(nav, page, error);
    throw error;
  }
  verifyRequest(nav, exchange, navigation);
  if (exchange.status !== 200 || !exchange.complete) return { exchange, pageCompleted: false, panel: null };
  // the fragment usually carries its own completion markers; the page's are the fallback signal
  const pageCompleted = await nav.waitForCondition(DOM_COMPLETED, { timeoutMs: DOM_COMPLETION_TIMEOUT_MS });
  const panel = await readSourcesPanel(nav, page, fragmentHasSitesButton(exchange));
  return { exchange, pageCompleted, panel };
}

/**
 * Waits until the page has asked for the answer. A redirect to a challenge or sign-in page ends the wait at once;
 * evidence inside the page (a CAPTCHA form, a sign-in dialog) only once it has lasted the engine's BLOCK_CONFIRM_MS (longer
 * than any hydration delay) while the page still has not asked. When the page never asks, `waitForExchange` reports it and explainMissingRequest says why.
 */
async function awaitAnswerRequest(nav: Navigator, page: Page, signal: AbortSignal, capture: CaptureSession): Promise<void> {
  const until = Date.now() + Math.min(FOLWR_START_TIMEOUT_MS, nav.remainingMs());
  let seenSince: number | null = null;
  while (capture.exchanges(FOLWR_RULE).length === 0 && Date.now() < until) {
    const redirected = blockFromUrl(BLOCK_SIGNATURES, page.url());
    if (redirected !== null) throwBlock(redirected);
    const block = await blockOnPage(nav);
    if (block === null) seenSince = null;
    else {
      seenSince ??= Date.now();
      if (Date.now() - seenSince >= BLOCK_CONFIRM_MS && capture.exchanges(FOLWR_RULE).length === 0) throwBlock(block);
    }
    await capture.nextChange(BLOCK_POLL_MS, signal);
    nav.throwIfAborted();
  }
}

function throwBlock(block: BlockKind): never {
  if (block === "challenge") throw new UpstreamError(DETAIL.challenge, { retryable: true, reason: "challenge" });
  throw new UpstreamError(DETAIL.login, { retryable: false, reason: "login_wall" });
}

/** Opens the page; a network failure is Google being unreachable, not an internal error. */
async function open(nav: Navigator, signal: AbortSignal, url: string): Promise<void> {
  try {
    await nav.goto(url);
  } catch (error) {
    if (signal.aborted || error instanceof ServiceError) throw error;
    throw new UpstreamError(DETAIL.unreachable, { retryable: true, cause: error });
  }
}

/**
 * Accepts the EU consent interstitial ("Before you continue to Google") when it shows; it is not an error. Accepting
 * usually navigates back to the search (a form post and a redirect); the wait is for the accept button to be gone,
 * which also covers a dialog that closes in place.
 */
async function acceptConsent(nav: Navigator, page: Page): Promise<void> {
  for (let round = 0; round < MAX_CONSENT_ROUNDS; round += 1) {
    // on the consent page the button may still be hydrating; elsewhere the in-page dialog is server-rendered
    const onConsentPage = CONSENT_URL.test(page.url());
    const accept = await nav.waitForAnchor(CONSENT_ACCEPT, {
      what: "consent_accept",
      timeoutMs: onConsentPage ? CONSENT_BUTTON_TIMEOUT_MS : 0,
      optional: true,
    });
    if (accept === null) {
      if (CONSENT_URL.test(page.url())) throw nav.drift("consent_accept_missing", "the consent page shows no accept button");
      return;
    }
    await nav.click(accept);
    const gone = await nav.waitForCondition(
      `document.readyState !== "loading" && document.querySelector(${JSON.stringify(CONSENT_ACCEPT.join(", "))}) === null`,
      {
        timeoutMs: CONSENT_TIMEOUT_MS,
      },
    );
    if (!gone) throw nav.drift("consent_not_accepted", "the consent interstitial stayed after its accept button was clicked");
  }
  throw nav.drift("consent_loop", "the consent interstitial came back after accepting it");
}

/**
 * A challenge or sign-in demand on the page, by positive evidence only (a redirect, a CAPTCHA form, a sign-in link in
 * a dialog). No composer is passed: a modal over the search box is a consent, survey or promo dialog as often as a
 * wall, and this page's walls carry their own evidence (sheet §5).
 */
function blockOnPage(nav: Navigator): Promise<BlockKind | null> {
  return nav.detectBlock(BLOCK_SIGNATURES, null);
}

/** Why the page never requested the answer: a block that appeared late, AI Mode unavailable, a shell without tokens. */
async function explainMissingRequest(nav: Navigator, page: Page, drift: ScraperDriftError): Promise<Error> {
  const block = await blockOnPage(nav).catch(() => null);
  if (block === "challenge") return new UpstreamError(DETAIL.challenge, { retryable: true, cause: drift, reason: "challenge" });
  if (block === "login_wall") return new UpstreamError(DETAIL.login, { retryable: false, cause: drift, reason: "login_wall" });
  const text = await page.evaluate("document.body ? document.body.innerText : ''").catch(() => "");
  if (typeof text === "string" && UNAVAILABLE_TEXT.test(text))
    return new UpstreamError(DETAIL.unavailable, { retryable: false, cause: drift });
  const hasSession = await nav.waitForCondition(`document.querySelector(${JSON.stringify(SESSION_TOKEN)}) !== null`, { timeoutMs: 0 });
  if (!hasSession) return new UpstreamError(DETAIL.noSession, { retryable: true, cause: drift });
  return drift;
}

/** Whitespace-insensitive form of a query (the page may collapse runs of spaces). */
function normalisedQuery(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The request the page sent is the ground truth: our prompt, AI Mode, and our language and region when it names them. */
function verifyRequest(nav: Navigator, exchange: CapturedExchange, navigation: AiModeNavigation): void {
  let sent: URLSearchParams;
  try {
    sent = new URL(exchange.url).searchParams;
  } catch {
    throw nav.drift("request_url_unreadable", "the folwr request URL could not be parsed");
  }
  const q = sent.get("q");
  if (q === null) throw nav.drift("prompt_not_sent", "the folwr request has no q parameter");
  if (normalisedQuery(q) !== normalisedQuery(navigation.prompt))
    throw nav.drift("prompt_mismatch", "the folwr request carries another prompt");
  if (sent.get("udm") !== "50") throw nav.drift("ai_mode_not_requested", `the folwr request has udm=${sent.get("udm") ?? "(none)"}`);
  for (const [name, expected] of [
    ["hl", navigation.hl],
    ["gl", navigation.gl],
  ] as const) {
    const value = sent.get(name);
    if (value !== null && value !== "" && value.toLowerCase() !== expected.toLowerCase()) {
      throw nav.drift("locale_mismatch", `the folwr request has ${name}=${value} instead of ${expected}`);
    }
  }
}
