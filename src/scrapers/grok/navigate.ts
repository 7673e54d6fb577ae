/**
 * Drives grok.com like a person: open the home page, pick the mode, type the prompt into the composer, send, and
 * capture the NDJSON stream the page receives. Everything after the capture is the pure parser's job.
 */
import type { Page } from "@cloudflare/puppeteer";
import { UpstreamError } from "../../errors";
import { installFetchCapture, waitForCapturedStream } from "../shared/fetch-capture";
import type { StreamCapture } from "../types";
import type { GrokMode } from "../../schemas/responses";
import { GROK_MODE_IDS, GROK_SELECTORS, GROK_STREAM_URL } from "./selectors";

const PAGE_READY_TIMEOUT_MS = 20_000;
const REQUEST_START_TIMEOUT_MS = 20_000;

export interface GrokNavigation {
  page: Page;
  origin: string;
  prompt: string;
  mode: GrokMode;
  signal: AbortSignal;
}

export async function captureGrokExchange({ page, origin, prompt, mode, signal }: GrokNavigation): Promise<StreamCapture> {
  await installFetchCapture(page, GROK_STREAM_URL);
  await page.goto(`${origin}/`, { waitUntil: "domcontentloaded", timeout: PAGE_READY_TIMEOUT_MS });
  await waitForComposer(page);
  // A login wall can cover a visible composer (sign-in modal over the page).
  if ((await page.$(GROK_SELECTORS.loginWall)) !== null) {
    throw new UpstreamError("Grok asked the browser session to sign in (login wall).", { retryable: false });
  }
  signal.throwIfAborted();

  await selectMode(page, mode);
  await page.click(GROK_SELECTORS.composer);
  // One insertText call instead of a key event per character: fast for 4,000-character prompts, and ProseMirror
  // handles it like a paste.
  await page.keyboard.sendCharacter(prompt);
  await page.click(GROK_SELECTORS.send);

  const capture = await waitForCapturedStream(page, { signal, requestStartTimeoutMs: REQUEST_START_TIMEOUT_MS });
  assertModeSent(capture, mode);
  return capture;
}

async function waitForComposer(page: Page): Promise<void> {
  try {
    await page.waitForSelector(GROK_SELECTORS.composer, { visible: true, timeout: PAGE_READY_TIMEOUT_MS });
  } catch (cause) {
    throw await describeBlockedPage(page, cause);
  }
}

/** Names why the composer never appeared: an anti-bot page, a login wall, a region block, or something else. */
async function describeBlockedPage(page: Page, cause: unknown): Promise<UpstreamError> {
  const text = String(await page.evaluate("document.title + '\\n' + (document.body ? document.body.innerText : '')").catch(() => ""));
  if (/just a moment|verify you are human|anti-bot/i.test(text)) {
    return new UpstreamError("Grok answered with an anti-bot challenge. Safe to retry.", { cause });
  }
  if (/not available in your region/i.test(text)) {
    return new UpstreamError("Grok is not available in the requested country.", { retryable: false, cause });
  }
  const loginWall = await page.$(GROK_SELECTORS.loginWall).catch(() => null);
  if (loginWall !== null || /sign in|sign up|log in/i.test(text)) {
    return new UpstreamError("Grok asked the browser session to sign in (login wall).", { retryable: false, cause });
  }
  return new UpstreamError("The Grok page did not load its composer. Safe to retry.", { cause });
}

async function selectMode(page: Page, mode: GrokMode): Promise<void> {
  const { modeId, label } = GROK_MODE_IDS[mode];
  const picker = await page.$(GROK_SELECTORS.modePicker);
  if (picker === null) {
    // The site defaults to Auto; any other mode needs the picker.
    if (mode === "MODEL_MODE_AUTO") return;
    throw new UpstreamError(`Could not find Grok's mode picker to select ${label}.`, { retryable: false });
  }
  await picker.click();
  await page.waitForSelector(GROK_SELECTORS.modeMenuItem, { visible: true, timeout: 5_000 });
  const chosen = await page.evaluate(
    `(() => {
      const items = [...document.querySelectorAll(${JSON.stringify(GROK_SELECTORS.modeMenuItem)})];
      const item = items.find((el) => el.getAttribute("data-mode-id") === ${JSON.stringify(modeId)})
        || items.find((el) => el.textContent.trim().split("\\n")[0].trim().toLowerCase() === ${JSON.stringify(label.toLowerCase())});
      if (!item) return false;
      item.click();
      return true;
    })()`,
  );
  if (chosen !== true) {
    throw new UpstreamError(`Grok's mode menu has no ${label} entry.`, { retryable: false });
  }
}

/** The request body is the ground truth of which mode the site used (grok.md §1). */
function assertModeSent(capture: StreamCapture, mode: GrokMode): void {
  if (capture.requestBody === null) return;
  let sentModeId: unknown;
  try {
    const body: unknown = JSON.parse(capture.requestBody);
    sentModeId = typeof body === "object" && body !== null && "modeId" in body ? body.modeId : undefined;
  } catch {
    return;
  }
  const expected = GROK_MODE_IDS[mode].modeId;
  if (typeof sentModeId === "string" && sentModeId !== expected) {
    throw new UpstreamError(`Grok ran in mode "${sentModeId}" instead of "${expected}".`, { retryable: true });
  }
}
