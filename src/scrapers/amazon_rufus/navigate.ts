/**
 * Drives an Amazon store page like a shopper: open the marketplace home, open the Rufus panel from the nav button,
 * type the query into `#rufus-text-area`, send with Enter (the round send button as fallback), and capture the
 * `/rufus/cl/streaming` exchange the page makes. The prompt is always verified in the request the page sent.
 * Everything after the capture is the pure parser's job.
 */
import type { Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { type CaptureSession, startCapture } from "../shared/capture/capture";
import type { CapturedExchange } from "../shared/capture/types";
import {
  type BlockSignatures,
  createNavigator,
  type Navigator,
  type PageElement,
  requireJsonRequestBody,
} from "../shared/navigation/engine";
import { getAtPointer } from "../shared/decode/json-patch";
import {
  RUFUS_ANCHORS,
  RUFUS_BLOCK_SIGNATURES,
  RUFUS_BUTTON_NAME,
  RUFUS_DOGS_PAGE,
  RUFUS_QUERY_POINTER,
  RUFUS_STREAMING_URL,
} from "./selectors";

const PROVIDER = "amazon_rufus";
const STREAMING_RULE = "streaming";
/** The nav bar is server-rendered on store pages: its button is there soon after the document, or not at all. */
const NAV_BUTTON_TIMEOUT_MS = 10_000;
const PANEL_OPEN_TIMEOUT_MS = 3_000;
const PANEL_OPEN_ATTEMPTS = 3;
/** After Enter: how long before trying the send button instead. */
const ENTER_SEND_TIMEOUT_MS = 4_000;
const REQUEST_START_TIMEOUT_MS = 15_000;

const DETAIL = {
  challenge: "Amazon answered with a robot check (CAPTCHA) instead of the store page. Safe to retry.",
  login: "Amazon asked the browser session to sign in: Rufus answers only signed-in sessions.",
  rateLimit: "Amazon is rate limiting the browser session (503). Retry shortly.",
  noRufus: "Rufus is not available on this Amazon marketplace (the store page has no Rufus button). Try another country.",
} as const;

export interface RufusNavigation {
  page: Page;
  origin: string;
  prompt: string;
  signal: AbortSignal;
  deadline: number;
}

/** Runs the page to the end of Rufus's answer stream and returns that exchange (status, chunks, request body). */
export async function captureRufusExchange({ page, origin, prompt, signal, deadline }: RufusNavigation): Promise<CapturedExchange> {
  const capture = await startCapture(page, [{ name: STREAMING_RULE, url: RUFUS_STREAMING_URL, transports: ["fetch", "xhr"] }], PROVIDER);
  const nav = createNavigator({ page, signal, deadline, provider: PROVIDER });

  await nav.goto(`${origin}/`, { landing: true });
  // A store page already showing Rufus's box or button is no robot check or 503 page: reading the whole page's text
  // (a layout of the full store page, the costliest check) is only for a page without them. URLs and forms still count.
  const rufusShown =
    (await nav.waitForAnchor(RUFUS_ANCHORS.input, { what: "rufus_input", timeoutMs: 0, optional: true })) ??
    (await nav.waitForAnchor(RUFUS_ANCHORS.navButton, { what: "rufus_button", timeoutMs: 0, optional: true }));
  await throwIfBlocked(nav, page, null, { readText: rufusShown === null });
  const input = await openPanel(nav, page);
  await throwIfBlocked(nav, page, input);

  const query = prompt.trim();
  await nav.typeInto(input, query);
  // The box may drop or alter characters (a maxlength, an input handler): then the exact query is patched into the
  // request, which is verified below like any other.
  const typedWhole = await nav.waitForCondition(
    `((box) => (box === null ? "" : String(box.value ?? box.textContent ?? "")))(document.querySelector(${JSON.stringify(RUFUS_ANCHORS.input[0])})).trim() === ${JSON.stringify(query)}`,
    { timeoutMs: 1_000 },
  );
  if (!typedWhole) await capture.setPatch(STREAMING_RULE, { set: [[RUFUS_QUERY_POINTER, query]] });

  await send(nav, capture, signal);
  const exchange = await capture.waitForExchange(STREAMING_RULE, { signal, startTimeoutMs: REQUEST_START_TIMEOUT_MS });
  verifyQuerySent(exchange, query);
  return exchange;
}

/** The store page is a robot check, a sign-in page or the 503 dogs page: each by positive evidence only. */
async function throwIfBlocked(
  nav: Navigator,
  page: Page,
  composer: PageElement | null,
  options: { readText: boolean } = { readText: true },
): Promise<void> {
  const signatures = options.readText ? RUFUS_BLOCK_SIGNATURES : withoutPageText(RUFUS_BLOCK_SIGNATURES);
  const block = await nav.detectBlock(signatures, composer);
  if (block === "challenge")
    throw new UpstreamError(DETAIL.challenge, { retryable: true, cause: new Error(`${PROVIDER}: robot check at ${page.url()}`) });
  if (block === "login_wall")
    throw new UpstreamError(DETAIL.login, { retryable: false, cause: new Error(`${PROVIDER}: sign-in at ${page.url()}`) });
  if (composer !== null || !options.readText) return;
  const title: unknown = await page.evaluate("document.title").catch(() => "");
  const text: unknown = await page.evaluate("document.body ? document.body.innerText.slice(0, 2000) : ''").catch(() => "");
  if ((typeof text === "string" && RUFUS_DOGS_PAGE.text.test(text)) || (typeof title === "string" && RUFUS_DOGS_PAGE.title.test(title))) {
    throw new UpstreamError(DETAIL.rateLimit, { retryable: true, cause: new Error(`${PROVIDER}: 503 page`) });
  }
}

/** The signatures without the challenge's page-text patterns (URLs, forms and sign-in modals only). */
function withoutPageText(signatures: BlockSignatures): BlockSignatures {
  const { text: _text, ...challenge } = signatures.challenge ?? {};
  return { ...signatures, challenge };
}

/**
 * Opens the panel from the nav button (the sheet's anchors, else the button named "Rufus") and returns the question
 * box. The button may not react before the page has hydrated it: the click is repeated while the panel stays shut.
 * A panel that is open already is used as it is (another click would close it).
 */
async function openPanel(nav: Navigator, page: Page): Promise<PageElement> {
  const open = await nav.waitForAnchor(RUFUS_ANCHORS.input, { what: "rufus_input", timeoutMs: 0, optional: true });
  if (open !== null) return open;
  const button =
    (await nav.waitForAnchor(RUFUS_ANCHORS.navButton, { what: "rufus_button", timeoutMs: NAV_BUTTON_TIMEOUT_MS, optional: true })) ??
    (await nav.findByRole(
      { roles: ["button", "link"], name: RUFUS_BUTTON_NAME },
      { what: "rufus_button", timeoutMs: 1_000, optional: true },
    ));
  if (button === null) {
    await throwIfBlocked(nav, page, null);
    throw new UpstreamError(DETAIL.noRufus, { retryable: false, cause: new Error(`${PROVIDER}.rufus_button_missing at ${page.url()}`) });
  }
  for (let attempt = 1; attempt <= PANEL_OPEN_ATTEMPTS; attempt += 1) {
    await nav.click(button);
    const input = await nav.waitForAnchor(RUFUS_ANCHORS.input, { what: "rufus_input", timeoutMs: PANEL_OPEN_TIMEOUT_MS, optional: true });
    if (input !== null) return input;
    // the panel may ask to sign in instead of showing the question box
    await throwIfBlocked(nav, page, null);
    // an open panel that is still loading needs time, not another click (which would close it)
    const panel = await nav.waitForAnchor(RUFUS_ANCHORS.panel, { what: "rufus_panel", timeoutMs: 0, optional: true });
    if (panel !== null) {
      const late = await nav.waitForAnchor(RUFUS_ANCHORS.input, { what: "rufus_input", timeoutMs: NAV_BUTTON_TIMEOUT_MS, optional: true });
      if (late !== null) return late;
      await throwIfBlocked(nav, page, null);
      throw nav.drift("rufus_input_missing", "the Rufus panel opened without #rufus-text-area");
    }
  }
  throw nav.drift("rufus_panel_missing", `the Rufus panel did not open after ${PANEL_OPEN_ATTEMPTS} clicks on the nav button`);
}

/** Enter sends on every known build; the round send button (its selector is unverified, so by role and name) is the fallback. */
async function send(nav: Navigator, capture: CaptureSession, signal: AbortSignal): Promise<void> {
  await nav.pressKey("Enter");
  try {
    // resolves as soon as the request has started
    await capture.waitForExchange(STREAMING_RULE, { signal, startTimeoutMs: ENTER_SEND_TIMEOUT_MS, until: () => true });
    return;
  } catch (error) {
    if (!(error instanceof ScraperDriftError)) throw error;
  }
  const container = await nav.waitForAnchor(RUFUS_ANCHORS.panel, { what: "rufus_panel", timeoutMs: 0, optional: true });
  const sendButton = await nav.findByRole(
    { roles: ["button"], name: ["Submit", "Send", "Send message", "Ask Rufus"], ...(container === null ? {} : { within: container }) },
    { what: "rufus_send_button", timeoutMs: 1_000 },
  );
  await nav.click(sendButton);
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
