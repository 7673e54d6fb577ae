/**
 * Drives gemini.google.com like a person: open `/app?hl=<lang>`, type the prompt into the Quill composer, send, and
 * capture the StreamGenerate exchange (XMLHttpRequest or fetch). Once a complete answer arrived, waits for the page to
 * render its citations (they can come seconds after the text settles), opens the sources panel when the chips have no
 * cards yet, and snapshots the DOM the parser reads citations and the mode label from. Everything after that is the
 * pure parser's job.
 */
import type { Page } from "@cloudflare/puppeteer";
import { timeStep } from "../../browser/step-timings";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { type CaptureSession, startCapture } from "../shared/capture/capture";
import type { CapturedExchange } from "../shared/capture/types";
import { createNavigator, type Navigator, type PageElement } from "../shared/navigation/engine";
import type { GeminiPageSnapshot } from "./citations";
import { verifyStreamRequest } from "./request";
import { GEMINI_BLOCKS, GEMINI_CONDITIONS, GEMINI_DOM, GEMINI_PAGE, STREAM_GENERATE_URL, STREAM_RULE } from "./selectors";
import { readGeminiWire } from "./wire";

const COMPOSER_TIMEOUT_MS = 20_000;
const COMPOSER_POLL_MS = 1_000;
const SEND_BUTTON_TIMEOUT_MS = 3_000;
/** How long a click on Send may take to start the request before Enter in the composer is tried. */
const ENTER_FALLBACK_AFTER_MS = 4_000;
const REQUEST_START_TIMEOUT_MS = 15_000;
const SETTLE_TIMEOUT_MS = 10_000;
/** Citations may render a few seconds after the text settled (gemini.md §2). */
const CITATION_GRACE_MS = 5_000;
/** The newest response counts as settled once it went this long without a node added or removed. */
const CHIPS_QUIET_MS = 50;
/** How often the page looks again once quiet but without citations yet (they may render seconds later). */
const CHIPS_RECHECK_MS = 20;
const CHIPS_SETTLE_TIMEOUT_MS = 5_000;
const CARDS_TIMEOUT_MS = 5_000;
const CHIP_CARD_TIMEOUT_MS = 2_000;
/** Opening chips one by one stops after this many distinct sources or this much time. */
const MAX_CHIPS_TO_OPEN = 60;
const CHIPS_BUDGET_MS = 20_000;

export interface GeminiNavigation {
  page: Page;
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

export async function captureGeminiAnswer({ page, origin, prompt, language, signal, deadline }: GeminiNavigation): Promise<GeminiCapture> {
  const capture = await startCapture(page, [{ name: STREAM_RULE, url: STREAM_GENERATE_URL, transports: ["xhr", "fetch"] }], "gemini");
  const nav = createNavigator({ page, signal, deadline, provider: "gemini" });
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
  const snapshot = await timeStep(page, "snapshot", () => snapshotPage(page));
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

/** The composer, once visible; a challenge or sign-in page (positive evidence only) fails fast instead. */
async function openComposer(nav: Navigator): Promise<PageElement> {
  const until = Date.now() + Math.min(COMPOSER_TIMEOUT_MS, nav.remainingMs());
  for (;;) {
    const composer = await nav.waitForAnchor(GEMINI_PAGE.composer, { what: "composer", optional: true, timeoutMs: COMPOSER_POLL_MS });
    const block = await nav.detectBlock(GEMINI_BLOCKS, composer);
    if (block === "challenge") throw challenge();
    if (block === "login_wall") throw loginWall();
    if (composer !== null) return composer;
    // the signed-out landing page: sign-in controls and no composer (gemini.md §2)
    if ((await nav.waitForAnchor(GEMINI_PAGE.signIn, { what: "sign_in", optional: true, timeoutMs: 0 })) !== null) throw loginWall();
    if (Date.now() >= until) throw nav.drift("composer_missing", `none of ${JSON.stringify(GEMINI_PAGE.composer)} became visible`);
  }
}

function challenge(): UpstreamError {
  return new UpstreamError("Google answered with an anti-bot challenge (unusual traffic). Safe to retry.");
}

function loginWall(): UpstreamError {
  return new UpstreamError("Gemini requires a signed-in Google session: the browser session is signed out or expired.", {
    retryable: false,
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
  await nav.click(send);
  if (await requestStarted(capture, signal, ENTER_FALLBACK_AFTER_MS)) return;
  // a send control that ignored the click (e.g. still disabled while the editor caught up with the text)
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

/**
 * Waits until the answer settled and its citations rendered (bounded), and opens the sources when cards are missing:
 * the Sources button (side panel), else each chip in turn (a chip opens the side panel or a dialog with its cards).
 * Returns the cards seen in chip dialogs, which close again.
 */
async function waitForCitations(nav: Navigator, page: Page): Promise<string[]> {
  // The chips' quiet window is counted in the page from now, while the answer settles and its citations show, rather
  // than from the moment the citations were seen.
  const chipsSettled = watchChipsSettle(nav, page);
  await nav.waitForCondition(GEMINI_CONDITIONS.responseSettled, { timeoutMs: SETTLE_TIMEOUT_MS, what: "response_settled" });
  if (
    !(await nav.waitForCondition(GEMINI_CONDITIONS.citationsShown, { timeoutMs: CITATION_GRACE_MS, pollMs: 200, what: "citations_shown" }))
  )
    return [];
  await timeStep(page, "chips_settle", () => chipsSettled);
  if (!(await nav.waitForCondition(GEMINI_CONDITIONS.cardsMissing, { timeoutMs: 0 }))) return [];

  const button =
    (await nav.waitForAnchor(GEMINI_PAGE.sourcesButton, { what: "sources_button", optional: true, timeoutMs: 1_000 })) ??
    (await findOptionalByName(nav, GEMINI_PAGE.sourcesLabels, "sources_button"));
  if (button !== null) {
    await nav.click(button);
    if (await nav.waitForCondition(GEMINI_CONDITIONS.cardsShown, { timeoutMs: CARDS_TIMEOUT_MS, what: "source_cards" })) return [];
  }
  const cards = await openChipsOneByOne(nav, page);
  // The answer is still worth returning; citations without a card (no URL) are left out by the parser.
  if (cards.length === 0) console.warn("gemini.source_cards_missing: citation chips rendered but no source card could be opened");
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

/**
 * Chips render in one go on the real site as far as known; wait until the newest response stops changing anyway
 * (bounded). The page itself watches: it resolves once citations show in its newest response and that response went
 * CHIPS_QUIET_MS without a node added or removed, so chips that rendered with the text cost what is left of one quiet
 * window, not a pause after they were seen. Never rejects (a page that closes or navigates ends the wait).
 */
function watchChipsSettle(nav: Navigator, page: Page): Promise<void> {
  // bounded by the caller's deadline; an aborted scrape stops at its next wait, which throws
  const timeoutMs = Math.min(SETTLE_TIMEOUT_MS + CITATION_GRACE_MS + CHIPS_SETTLE_TIMEOUT_MS, nav.remainingMs());
  return page.evaluate(chipsQuiet(CHIPS_QUIET_MS, timeoutMs)).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * In-page: resolves true once the newest response shows citations and went `quietMs` without a childList mutation
 * (counted from when the watch started at the earliest), false after `timeoutMs` or when there is no response.
 */
function chipsQuiet(quietMs: number, timeoutMs: number): string {
  return `new Promise((resolve) => {
  const response = Array.from(document.querySelectorAll(${JSON.stringify(GEMINI_DOM.response)})).pop();
  if (!response) return resolve(false);
  let changedAt = performance.now();
  let next;
  const observer = new MutationObserver(() => { changedAt = performance.now(); });
  const done = (settled) => { observer.disconnect(); clearTimeout(next); clearTimeout(limit); resolve(settled); };
  const check = () => {
    const quietFor = performance.now() - changedAt;
    if (quietFor < ${quietMs}) next = setTimeout(check, Math.ceil(${quietMs} - quietFor));
    else if (${GEMINI_CONDITIONS.citationsShown}) done(true);
    else next = setTimeout(check, ${CHIPS_RECHECK_MS});
  };
  observer.observe(response, { childList: true, subtree: true });
  const limit = setTimeout(() => done(false), ${timeoutMs});
  check();
})`;
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
