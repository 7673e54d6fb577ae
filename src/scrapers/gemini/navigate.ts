/**
 * Drives gemini.google.com like a person: open `/app?hl=<lang>`, type the prompt into the Quill composer, send, and
 * capture the StreamGenerate exchange (XMLHttpRequest or fetch). Once a complete answer arrived, waits for the page to
 * render its citations (they can come seconds after the text settles, and in batches), opens the sources (the Sources
 * button's side panel, else each chip's dialog) when the chips have no cards yet, reads the cards once they stop
 * arriving, and snapshots the DOM the parser reads citations and the mode label from. Everything after that is the pure
 * parser's job.
 *
 * Patience rules (issue 29): the composer may hydrate seconds after DOMContentLoaded while a signed-out page's header
 * already shows "Sign in" (logged-out use is possible, gemini.md §1): sign-in controls count as a login wall only when
 * the composer is still missing after the whole bounded wait; redirects to the sign-in or /sorry/ page count at once.
 * Gemini has no request choice to make (no mode parameter), so nothing is patched into the request.
 */
import type { Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { type CaptureSession, startCapture } from "../../browser/page/capture/capture";
import type { PageSession } from "../../browser/page/page-session";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { createNavigator, type Navigator, type PageElement } from "../../browser/page/navigation/engine";
import type { GeminiPageSnapshot } from "./citations";
import { verifyStreamRequest } from "./request";
import { GEMINI_BLOCKS, GEMINI_CONDITIONS, GEMINI_DOM, GEMINI_PAGE, STREAM_GENERATE_URL, STREAM_RULE } from "./selectors";
import { readGeminiWire } from "./wire";

const COMPOSER_TIMEOUT_MS = 20_000;
const SEND_BUTTON_TIMEOUT_MS = 3_000;
/** How long clicks on Send may take to start the request before Enter in the composer is tried. */
const ENTER_FALLBACK_AFTER_MS = 5_000;
const REQUEST_START_TIMEOUT_MS = 15_000;
const SETTLE_TIMEOUT_MS = 10_000;
/** Citations may render a few seconds after the text settled (gemini.md §2). */
const CITATION_GRACE_MS = 6_000;
/** A list counts as complete once its count stayed the same this long (chips and cards may arrive in batches). */
const LIST_QUIET_MS = 1_200;
const LIST_TIMEOUT_MS = 10_000;
/** The cards of one chip's dialog: shown within this, complete once unchanged for the short quiet window. */
const CHIP_CARD_TIMEOUT_MS = 2_500;
const CHIP_CARDS_QUIET_MS = 250;
/** How long clicks on the Sources button may take to show its cards. */
const CARDS_TIMEOUT_MS = 6_000;
/** Opening chips one by one stops after this many distinct sources or this much time. */
const MAX_CHIPS_TO_OPEN = 60;
const CHIPS_BUDGET_MS = 20_000;

export interface GeminiNavigation {
  /** The scrape's page session (src/browser/page/page-session.ts): its page, step log and hot-page state. */
  pageSession: PageSession;
  origin: string;
  prompt: string;
  /** `hl` code (see language.ts). */
  language: string;
  signal: AbortSignal;
  deadline: number;
}

export interface GeminiCapture {
  exchange: CapturedExchange;
  snapshot: GeminiPageSnapshot;
}

export async function captureGeminiAnswer({
  pageSession,
  origin,
  prompt,
  language,
  signal,
  deadline,
}: GeminiNavigation): Promise<GeminiCapture> {
  const { page } = pageSession;
  const capture = await startCapture(
    pageSession,
    [{ name: STREAM_RULE, url: STREAM_GENERATE_URL, transports: ["xhr", "fetch"] }],
    "gemini",
  );
  const nav = createNavigator({ session: pageSession, signal, deadline, provider: "gemini" });
  await openApp(nav, page, `${origin}/app?hl=${encodeURIComponent(language)}`, signal);
  const composer = await openComposer(nav);
  await nav.typeInto(composer, prompt);
  await submit(nav, capture, composer, signal);

  // Done when the body ends, or once the end trailer followed a complete candidate (a connection left open after it).
  const exchange = await capture.waitForExchange(STREAM_RULE, {
    signal,
    startTimeoutMs: REQUEST_START_TIMEOUT_MS,
    until: endedAfterAnswer,
  });
  verifyStreamRequest(exchange, prompt, language);
  // Only a complete answer needs its citations; failures are decided from the exchange alone.
  const dialogCards = exchange.status === 200 && readGeminiWire(exchange.chunks).completed ? await waitForCitations(nav, page) : [];
  const snapshot = await pageSession.steps.time("snapshot", () => snapshotPage(page));
  return { exchange, snapshot: { ...snapshot, sourceCardsHtml: [...snapshot.sourceCardsHtml, ...dialogCards] } };
}

/**
 * Opens the app. A redirect to a host the browser cannot reach (Google's /sorry/ page, the sign-in page) fails the
 * navigation itself; its target still says which block it was.
 */
async function openApp(nav: Navigator, page: Page, url: string, signal: AbortSignal): Promise<void> {
  try {
    await nav.goto(url, { landing: true });
  } catch (error) {
    if (signal.aborted) throw error;
    const evidence = `${page.url()} ${error instanceof Error ? error.message : ""}`;
    if ((GEMINI_BLOCKS.challenge?.urls ?? []).some((pattern) => pattern.test(evidence))) throw challenge();
    if ((GEMINI_BLOCKS.loginWall?.urls ?? []).some((pattern) => pattern.test(evidence))) throw loginWall();
    throw new UpstreamError("The Gemini page could not be loaded. Safe to retry.", { cause: error });
  }
}

const END_TRAILER = '[["e",';

/** Whether the end trailer arrived after a complete candidate; decodes the body only when a chunk may carry the trailer. */
function endedAfterAnswer(exchange: CapturedExchange): boolean {
  const tail = exchange.chunks.slice(-2);
  const text = tail.map((chunk) => String.fromCharCode(...chunk.subarray(Math.max(0, chunk.length - 4096)))).join("");
  if (!text.includes(END_TRAILER)) return false;
  const wire = readGeminiWire(exchange.chunks);
  return wire.completed && wire.endTrailer;
}

/**
 * The composer, once visible (bounded wait). A redirect to Google's /sorry/ or sign-in page fails at once; the
 * signed-out landing page's sign-in controls (gemini.md §2: "`button[aria-label="Sign in"]` / `a[href*="ServiceLogin"]`
 * and no composer") only when the composer is still missing once the whole wait has passed. Drift
 * `composer_missing` when nothing came.
 */
async function openComposer(nav: Navigator): Promise<PageElement> {
  const entry = await nav.awaitEntry({
    what: "composer",
    anchors: GEMINI_PAGE.composer,
    timeoutMs: COMPOSER_TIMEOUT_MS,
    blocks: GEMINI_BLOCKS,
    signedOutEvidence: GEMINI_PAGE.signIn,
  });
  if (entry === "challenge") throw challenge();
  if (entry === "login_wall") throw loginWall();
  return entry;
}

function challenge(): UpstreamError {
  return new UpstreamError("Google answered with an anti-bot challenge (unusual traffic). Safe to retry.", { reason: "challenge" });
}

function loginWall(): UpstreamError {
  return new UpstreamError("Gemini requires a signed-in Google session: the browser session is signed out or expired.", {
    retryable: false,
    reason: "login_wall",
  });
}

/** Clicks Send (or presses Enter when there is none); if the request does not start, presses Enter in the composer. */
async function submit(nav: Navigator, capture: CaptureSession, composer: PageElement, signal: AbortSignal): Promise<void> {
  const send =
    (await nav.waitForAnchor(GEMINI_PAGE.send, { what: "send_button", optional: true, timeoutMs: SEND_BUTTON_TIMEOUT_MS })) ??
    (await findSendByName(nav));
  if (send === null) {
    await nav.pressKey("Enter");
    return;
  }
  // a send control that ignores clicks (still hydrating, disabled while the editor catches up) is clicked again
  const started = await nav.clickUntil(send, () => requestStarted(capture, signal, 100), {
    what: "send_button",
    timeoutMs: ENTER_FALLBACK_AFTER_MS,
  });
  if (started) return;
  await nav.click(composer);
  await nav.pressKey("Enter");
}

async function findSendByName(nav: Navigator): Promise<PageElement | null> {
  try {
    return await nav.findByRole(
      { roles: ["button"], name: GEMINI_PAGE.sendLabels },
      { what: "send_button", optional: true, timeoutMs: 500 },
    );
  } catch (error) {
    // several controls of that name: leave it to Enter
    if (error instanceof ScraperDriftError) return null;
    throw error;
  }
}

async function requestStarted(capture: CaptureSession, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
  try {
    await capture.waitForExchange(STREAM_RULE, { signal, startTimeoutMs: timeoutMs, until: () => true });
    return true;
  } catch (error) {
    if (error instanceof ScraperDriftError) return false;
    throw error;
  }
}

/** In-page counts of the lists the citations come from. */
const COUNT = {
  /** Citation chips (and footnotes) in the newest response. */
  chips: `(() => { const r = Array.from(document.querySelectorAll(${JSON.stringify(GEMINI_DOM.response)})).pop(); return r ? r.querySelectorAll(${JSON.stringify(
    GEMINI_DOM.citationMarkup,
  )}).length : 0; })()`,
  /** Source cards anywhere on the page (the response's sources-list, the side panel, a dialog), or plain list links. */
  cards: `(document.querySelectorAll(${JSON.stringify(GEMINI_DOM.sourceCard)}).length || document.querySelectorAll(${JSON.stringify(
    `${GEMINI_DOM.sourcesList} a[href]`,
  )}).length)`,
} as const;

/**
 * Waits until the answer settled and its citations rendered (bounded), reads the chips once they stop arriving, and
 * opens the sources when no card is on the page: the Sources button (side panel, or a list shown on demand), else each
 * chip in turn (a chip opens the side panel or a dialog with its cards). Returns the cards seen in chip dialogs, which
 * close again.
 */
async function waitForCitations(nav: Navigator, page: Page): Promise<string[]> {
  await nav.waitForCondition(GEMINI_CONDITIONS.responseSettled, { timeoutMs: SETTLE_TIMEOUT_MS, what: "response_settled" });
  if (
    !(await nav.waitForCondition(GEMINI_CONDITIONS.citationsShown, { timeoutMs: CITATION_GRACE_MS, pollMs: 200, what: "citations_shown" }))
  )
    return [];
  // chips may arrive in batches after the text settled: read them once their count stopped changing
  await nav.waitForStableCount(COUNT.chips, { quietMs: LIST_QUIET_MS, timeoutMs: LIST_TIMEOUT_MS, what: "chips_settle" });
  // a dialog shown meanwhile (consent, survey) would take the clicks below
  await nav.dismissInterruptions();
  if (await nav.waitForCondition(GEMINI_CONDITIONS.cardsShown, { timeoutMs: 0 })) {
    await nav.waitForStableCount(COUNT.cards, { quietMs: LIST_QUIET_MS, timeoutMs: LIST_TIMEOUT_MS, what: "cards_settle" });
    return [];
  }
  if (!(await nav.waitForCondition(GEMINI_CONDITIONS.cardsMissing, { timeoutMs: 0 }))) return [];

  const button =
    (await nav.waitForAnchor(GEMINI_PAGE.sourcesButton, { what: "sources_button", optional: true, timeoutMs: 1_000 })) ??
    (await findOptionalByName(nav, GEMINI_PAGE.sourcesLabels, "sources_button"));
  if (button !== null) {
    const shown = await nav.clickUntil(button, () => nav.waitForCondition(GEMINI_CONDITIONS.cardsShown, { timeoutMs: 0 }), {
      what: "sources_button",
      timeoutMs: CARDS_TIMEOUT_MS,
    });
    if (shown) {
      // a side panel may load its entries in batches
      await nav.waitForStableCount(COUNT.cards, { quietMs: LIST_QUIET_MS, timeoutMs: LIST_TIMEOUT_MS, what: "cards_settle" });
      return [];
    }
  }
  const cards = await openChipsOneByOne(nav, page);
  // The answer is still worth returning; citations without a card (no URL) are left out by the parser.
  if (cards.length === 0) {
    nav.logEvent("source_cards_missing", { detail: "citation chips rendered but no source card could be opened" }, "warn");
  }
  return cards;
}

/** Clicks each chip of a distinct source (bounded) and collects the cards its panel or dialog shows. */
async function openChipsOneByOne(nav: Navigator, page: Page): Promise<string[]> {
  const collected = new Set<string>();
  const seenLabels = new Set<string>();
  const until = Date.now() + CHIPS_BUDGET_MS;
  const chips = await page.$$(GEMINI_PAGE.chipButtons).catch(() => []);
  const labels: unknown = await page
    .evaluate(
      `Array.from(document.querySelectorAll(${JSON.stringify(GEMINI_PAGE.chipButtons)}), (chip) => chip.getAttribute("aria-label") || chip.textContent || "")`,
    )
    .catch(() => []);
  for (const [index, chip] of chips.entries()) {
    if (seenLabels.size >= MAX_CHIPS_TO_OPEN || Date.now() > until || nav.remainingMs() < CHIP_CARD_TIMEOUT_MS) break;
    const label: unknown = Array.isArray(labels) ? labels[index] : undefined;
    if (typeof label !== "string" || seenLabels.has(label)) continue;
    seenLabels.add(label);
    nav.throwIfAborted();
    const clicked = await chip.click().then(
      () => true,
      () => false,
    );
    if (!clicked || !(await nav.waitForCondition(GEMINI_CONDITIONS.cardsShown, { timeoutMs: CHIP_CARD_TIMEOUT_MS }))) continue;
    // the dialog's cards may still be arriving
    await nav.waitForStableCount(COUNT.cards, { quietMs: CHIP_CARDS_QUIET_MS, timeoutMs: CHIP_CARD_TIMEOUT_MS });
    const html: unknown = await page.evaluate(GEMINI_CONDITIONS.cardsHtml).catch(() => []);
    if (Array.isArray(html)) for (const card of html) if (typeof card === "string") collected.add(card);
    await nav.pressKey("Escape");
  }
  return [...collected];
}

async function findOptionalByName(nav: Navigator, names: readonly string[], what: string): Promise<PageElement | null> {
  try {
    return await nav.findByRole({ roles: ["button"], name: names }, { what, optional: true, timeoutMs: 500 });
  } catch (error) {
    if (error instanceof ScraperDriftError) return null;
    throw error;
  }
}

const SNAPSHOT = `(() => {
  const responses = Array.from(document.querySelectorAll(${JSON.stringify(GEMINI_DOM.response)}));
  const panel = Array.from(document.querySelectorAll(".markdown.markdown-main-panel")).pop();
  const last = responses.pop() || (panel && panel.closest("message-content") ? panel.closest("message-content").parentElement : null);
  const cards = Array.from(document.querySelectorAll(${JSON.stringify(GEMINI_DOM.sourceCard)}))
    .filter((card) => !last || !last.contains(card))
    .map((card) => card.outerHTML);
  const picker = document.querySelector(${JSON.stringify(GEMINI_DOM.modePicker)});
  return { responseHtml: last ? last.outerHTML : null, sourceCardsHtml: cards, modePickerHtml: picker ? picker.outerHTML : null };
})()`;

async function snapshotPage(page: Page): Promise<GeminiPageSnapshot> {
  const raw: unknown = await page.evaluate(SNAPSHOT).catch(() => null);
  if (typeof raw !== "object" || raw === null) return { responseHtml: null, sourceCardsHtml: [], modePickerHtml: null };
  const responseHtml: unknown = Reflect.get(raw, "responseHtml");
  const cards: unknown = Reflect.get(raw, "sourceCardsHtml");
  const modePickerHtml: unknown = Reflect.get(raw, "modePickerHtml");
  return {
    responseHtml: typeof responseHtml === "string" ? responseHtml : null,
    sourceCardsHtml: Array.isArray(cards) ? cards.filter((card): card is string => typeof card === "string") : [],
    modePickerHtml: typeof modePickerHtml === "string" ? modePickerHtml : null,
  };
}
