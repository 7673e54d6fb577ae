/**
 * Drives copilot.microsoft.com like a person: open the chat page, dismiss a consent banner, pick the mode in the
 * composer's mode menu (unless it is already selected), type the prompt, send, and capture the chat WebSocket the page
 * opens. The prompt and the mode are verified in the `send` frame the page actually sent; when the menu cannot be used
 * the mode is patched into that frame instead (and still verified). Everything after the capture is the parser's job.
 *
 * The socket stays open after the answer, so the wait ends on the frames themselves (`done`, a failure event), on the
 * socket closing, or on evidence that nothing more will come: `POST /c/api/start` refusing the session, a sign-in
 * wall, a handshake that failed, or an anti-bot challenge nobody answered within its grace period.
 */
import type { Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { type CaptureSession, startCapture } from "../../browser/page/capture/capture";
import type { PageSession } from "../../browser/page/page-session";
import type { StepLog } from "../../browser/page/step-timings";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { createNavigator, matchNames, type Navigator, type PageElement } from "../../browser/page/navigation/engine";
import type { BlockKind } from "../../browser/page/navigation/walls";
import type { CopilotMode } from "./declaration";
import { COPILOT_DETAIL, chatSettled, parseCopilotStart, readChat, type ChatReading } from "./parse";
import {
  COPILOT_BLOCKS,
  COPILOT_CHAT_URL,
  COPILOT_COMPOSER,
  COPILOT_DISMISS,
  COPILOT_MODE_LABELS,
  COPILOT_MODE_TRIGGER,
  COPILOT_SEND,
  COPILOT_SEND_BY_ROLE,
  COPILOT_START_URL,
  modeOptionAnchors,
} from "./selectors";

const PROVIDER = "copilot";
const CHAT_RULE = "chat";
const START_RULE = "start";

/** How long the page may sit idle after the click on send without sending the prompt (no start or handshake pending). */
const REQUEST_START_TIMEOUT_MS = 20_000;
const POLL_MS = 100;
/** DOM checks (challenge container, sign-in dialog) are costlier than reading the capture: not on every poll. */
const BLOCK_CHECK_INTERVAL_MS = 1_000;
/** A Turnstile (`cloudflare`) or Copilot challenge may still be passed by the page: it gets this long. */
const CHALLENGE_GRACE_MS = 5_000;
/** A challenge with no usable method ("Invalid response") is not answerable; a short grace for a follow-up only. */
const UNANSWERABLE_CHALLENGE_GRACE_MS = 1_000;
/** After an unreadable frame, how long a silent socket is given before the exchange counts as broken. */
const MALFORMED_GRACE_MS = 2_000;
/** After a failed handshake or a socket that closed before `send`, how long the page is given to reconnect. */
const RECONNECT_GRACE_MS = 2_000;
/**
 * How long the mode menu gets to take a choice. A menu button that is rendered but not hydrated ignores clicks; each
 * try clicks it again, and the mode is patched into the `send` frame only when the window passed without a choice.
 */
const MODE_PICK_WINDOW_MS = 8_000;
const MODE_MENU_TIMEOUT_MS = 1_500;
/** After the click on send, how long to wait for the page to start sending before pressing Enter instead. */
const SEND_CLICK_GRACE_MS = 2_000;

export interface CopilotNavigation {
  /** The scrape's page session (src/browser/page/page-session.ts): its page, step log and hot-page state. */
  pageSession: PageSession;
  origin: string;
  prompt: string;
  mode: CopilotMode;
  signal: AbortSignal;
  deadline: number;
}

export async function captureCopilotExchange({
  pageSession,
  origin,
  prompt,
  mode,
  signal,
  deadline,
}: CopilotNavigation): Promise<CapturedExchange> {
  const capture = await startCapture(
    pageSession,
    [
      { name: CHAT_RULE, url: COPILOT_CHAT_URL, transports: ["websocket"] },
      { name: START_RULE, url: COPILOT_START_URL, transports: ["fetch", "xhr"] },
    ],
    PROVIDER,
  );
  const nav = createNavigator({ session: pageSession, signal, deadline, provider: PROVIDER });
  await nav.goto(`${origin}/`, { landing: true });

  const composer = await openComposer(nav, capture);
  await chooseMode(pageSession, nav, capture, mode);
  await nav.typeInto(composer, prompt);
  await submit(pageSession.steps, nav, capture, signal);
  return capture.answerWait(() => awaitAnswer(nav, capture, { prompt, mode, composer, signal }));
}

/**
 * The composer, once no consent banner covers it and no wall or challenge is in the way. The composer may mount or
 * hydrate seconds after DOMContentLoaded: the engine waits for it (bounded) and concludes a wall only on evidence that
 * persisted while the composer was still missing.
 */
async function openComposer(nav: Navigator, capture: CaptureSession): Promise<PageElement> {
  const entry = await nav.awaitEntry({ what: "composer", anchors: COPILOT_COMPOSER, blocks: COPILOT_BLOCKS });
  if (entry === "login_wall") throw new UpstreamError(COPILOT_DETAIL.login, { retryable: false, reason: "login_wall" });
  if (entry === "challenge") throw new UpstreamError(COPILOT_DETAIL.challenge, { reason: "challenge" });
  // The banner is part of the page when it is shown: checked once now that the page is there, never waited for
  // (submit checks again before sending, for one injected later).
  await dismissBanner(nav);
  throwIfStartRefused(capture);
  const blocked = await nav.detectBlock(COPILOT_BLOCKS, entry);
  if (blocked === "login_wall") throw new UpstreamError(COPILOT_DETAIL.login, { retryable: false, reason: "login_wall" });
  if (blocked === "challenge") throw new UpstreamError(COPILOT_DETAIL.challenge, { reason: "challenge" });
  return entry;
}

/** Closes a cookie/consent banner when one is shown now (copilot.md §2: `[aria-label="Dismiss"]`); one look, no wait. */
async function dismissBanner(nav: Navigator): Promise<void> {
  const dismiss = await nav.waitForAnchor(COPILOT_DISMISS, { what: "consent_dismiss", timeoutMs: 0, optional: true });
  if (dismiss !== null) await nav.click(dismiss);
}

/**
 * Selects `mode` in the composer's mode menu, unless the menu already shows it (the site's default needs no clicks).
 * When the menu or the option cannot be found (labels are localised), the mode is patched into the `send` frame.
 */
async function chooseMode(pageSession: PageSession, nav: Navigator, capture: CaptureSession, mode: CopilotMode): Promise<void> {
  const labels = COPILOT_MODE_LABELS[mode];
  const until = Date.now() + MODE_PICK_WINDOW_MS;
  for (;;) {
    const trigger = await nav.waitForAnchor(COPILOT_MODE_TRIGGER, { what: "mode_menu", timeoutMs: 3_000, optional: true });
    if (trigger !== null && (await pageSession.steps.time("mode_shown", () => menuShows(pageSession.page, labels)))) return;
    if (trigger !== null && (await pickMode(nav, trigger, labels))) {
      logChoice(nav, "page");
      return;
    }
    // a menu that is rendered but not hydrated yet ignores the click: try again while the window lasts
    if (trigger === null || Date.now() >= until || nav.remainingMs() <= 0) break;
  }
  await capture.setPatch(CHAT_RULE, { when: [["/event", "send"]], set: [["/mode", mode]] });
  logChoice(nav, "patch");
}

/** Says how the requested mode was applied: on the page (menu) or by patching the `send` frame (issue 29). */
function logChoice(nav: Navigator, via: "page" | "patch"): void {
  nav.logEvent("choice", { what: "mode", via });
}

/**
 * Whether the visible mode button names one of `labels` as the current mode (by its text or title). Read in the page
 * because the options may match the same anchor while hidden, and the engine's snapshot takes the first match.
 */
async function menuShows(page: Page, labels: readonly string[]): Promise<boolean> {
  const shown: unknown = await page.evaluate(VISIBLE_TRIGGER_TEXT).catch(() => null);
  if (!Array.isArray(shown)) return false;
  const names = shown.filter((name): name is string => typeof name === "string" && name.trim() !== "");
  return matchNames(names, labels).length > 0;
}

/** In-page: text and title of the first visible mode button (`[]` when there is none). */
const VISIBLE_TRIGGER_TEXT = `(() => {
  for (const selector of ${JSON.stringify(COPILOT_MODE_TRIGGER)}) {
    for (const element of document.querySelectorAll(selector)) {
      const style = getComputedStyle(element);
      if (style.display === "none" || style.visibility === "hidden" || element.getClientRects().length === 0) continue;
      return [element.textContent || "", element.getAttribute("title") || ""];
    }
  }
  return [];
})()`;

/** Opens the mode menu and clicks the option: by menu role and name, else the sheet's `button[title=…]`. */
async function pickMode(nav: Navigator, trigger: PageElement, labels: readonly string[]): Promise<boolean> {
  if (await nav.chooseMenuItem(trigger, labels, { what: "mode_option", menuTimeoutMs: MODE_MENU_TIMEOUT_MS })) return true;
  // Builds whose options are plain buttons in a popover (no menu role): the popover may still be open.
  const anchors = modeOptionAnchors(labels);
  let option = await nav.waitForAnchor(anchors, { what: "mode_option", timeoutMs: 300, optional: true });
  if (option === null) {
    await nav.click(trigger);
    option = await nav.waitForAnchor(anchors, { what: "mode_option", timeoutMs: 1_500, optional: true });
  }
  if (option === null) {
    await nav.pressKey("Escape");
    return false;
  }
  await nav.click(option);
  return true;
}

/** Clicks send (or presses Enter when there is no send button, or when the click started nothing). */
async function submit(steps: StepLog, nav: Navigator, capture: CaptureSession, signal: AbortSignal): Promise<void> {
  await dismissBanner(nav);
  const send =
    (await nav.waitForAnchor(COPILOT_SEND, { what: "send_button", timeoutMs: 2_000, optional: true })) ??
    (await nav.findByRole(COPILOT_SEND_BY_ROLE, { what: "send_button", timeoutMs: 1_000, optional: true }));
  if (send === null) {
    await nav.pressKey("Enter");
    return;
  }
  const before = capture.exchanges().length;
  await nav.click(send);
  // A click that started no request at all (a disabled or covered button): Enter sends from the composer. Never after
  // the page started something, so that the prompt cannot be sent twice.
  const started = await steps.time("send_started", () =>
    waitUntil(nav, capture, signal, SEND_CLICK_GRACE_MS, () => capture.exchanges().length > before || sentFrameSeen(capture)),
  );
  if (!started) await nav.pressKey("Enter");
}

function sentFrameSeen(capture: CaptureSession): boolean {
  return capture.exchanges(CHAT_RULE).some((exchange) => readChat(exchange).send !== null);
}

interface Expected {
  prompt: string;
  mode: CopilotMode;
  composer: PageElement;
  signal: AbortSignal;
}

/** The chat exchange to read: the last one that carries a `send` frame, else the last one the page opened. */
function currentChat(capture: CaptureSession): { exchange: CapturedExchange; reading: ChatReading } | null {
  const chats = capture.exchanges(CHAT_RULE).map((exchange) => ({ exchange, reading: readChat(exchange) }));
  return chats.filter((chat) => chat.reading.send !== null).at(-1) ?? chats.at(-1) ?? null;
}

function ended(exchange: CapturedExchange): boolean {
  return exchange.complete || exchange.error !== null;
}

/**
 * Waits until the chat exchange has an outcome the parser can read, and returns it. Throws for outcomes seen outside
 * the socket (a refused session start, a sign-in wall, a challenge page) and when the page never sent the prompt.
 */
async function awaitAnswer(nav: Navigator, capture: CaptureSession, expected: Expected): Promise<CapturedExchange> {
  let verified = false;
  // the page was checked right before typing: the next look is an interval from now, not at once, so that its round
  // trips do not compete with the page handling the first frames
  let lastBlockCheck = Date.now();
  // The DOM check (sign-in wall, challenge page) runs beside the loop: an answer that ends meanwhile is seen at once,
  // not after the check's round trips.
  const block: { check: Promise<void> | null; found: { kind: BlockKind | null } | null } = { check: null, found: null };
  const since = new Map<string, number>();
  /** ms since `key` was first seen in a row of polls (0 the first time); reset when the condition goes away. */
  const held = (key: string, condition: boolean): number => {
    if (!condition) {
      since.delete(key);
      return 0;
    }
    const first = since.get(key) ?? Date.now();
    since.set(key, first);
    return Date.now() - first;
  };

  for (;;) {
    nav.throwIfAborted();
    const chat = currentChat(capture);
    const send = chat?.reading.send ?? null;
    if (chat !== null && send !== null) {
      if (!verified) {
        verifySend(send, expected);
        verified = true;
        capture.answerRequestStarted();
      }
      const { exchange, reading } = chat;
      if (chatSettled(reading) || ended(exchange)) return exchange;
      const challenge = reading.unsolvedChallenge;
      const grace = challenge !== null && typeof challenge.method === "string" ? CHALLENGE_GRACE_MS : UNANSWERABLE_CHALLENGE_GRACE_MS;
      if (held("challenge", challenge !== null) >= grace) return exchange;
      if (held(`malformed:${exchange.frames.length}`, reading.malformed) >= MALFORMED_GRACE_MS) return exchange;
    } else {
      throwIfStartRefused(capture);
      // a handshake that failed, or a socket that closed before the prompt, unless the page opens another one
      if (chat !== null && held("closed", ended(chat.exchange)) >= RECONNECT_GRACE_MS) return chat.exchange;
      // Waiting on Copilot (a session start or a handshake without an answer yet) is not the page failing to send:
      // that wait is bounded by the caller's timeout only.
      if (held("page-idle", !waitingOnCopilot(capture)) >= REQUEST_START_TIMEOUT_MS) {
        throw nav.drift("request_not_sent", `no send frame on the chat socket for ${REQUEST_START_TIMEOUT_MS} ms with nothing pending`);
      }
    }
    if (block.found !== null) {
      const blocked = block.found.kind;
      block.found = null;
      if (blocked === "login_wall") throw new UpstreamError(COPILOT_DETAIL.login, { retryable: false, reason: "login_wall" });
      if (held("challenge-page", blocked === "challenge") >= CHALLENGE_GRACE_MS)
        throw new UpstreamError(COPILOT_DETAIL.challenge, { reason: "challenge" });
    }
    if (block.check === null && Date.now() - lastBlockCheck >= BLOCK_CHECK_INTERVAL_MS) {
      lastBlockCheck = Date.now();
      block.check = nav
        .detectBlock(COPILOT_BLOCKS, expected.composer)
        .catch(() => null)
        .then((kind) => {
          block.found = { kind };
          block.check = null;
        });
    }
    // The next frame or exchange wakes the loop at once, and so does a finished DOM check; the interval only re-checks
    // the time-based conditions above.
    const changed = capture.nextChange(POLL_MS, expected.signal);
    await (block.check === null ? changed : Promise.race([changed, block.check]));
  }
}

/** Whether a session start or a chat handshake has been sent and not answered yet. */
function waitingOnCopilot(capture: CaptureSession): boolean {
  return capture.exchanges().some((exchange) => exchange.status === 0 && !ended(exchange));
}

/** A refusal from `POST /c/api/start` (401, 429, `isBlocked`, no turns left) ends the scrape: the page will not chat. */
function throwIfStartRefused(capture: CaptureSession): void {
  for (const start of capture.exchanges(START_RULE)) {
    const failure = parseCopilotStart(start);
    if (failure !== null) throw failure;
  }
}

/** The `send` frame is the ground truth of what Copilot will do: it must carry the prompt and the requested mode. */
function verifySend(send: Record<string, unknown>, expected: Expected): void {
  const content = Array.isArray(send.content) ? send.content : [];
  const text = content
    .map((part: unknown) => (typeof part === "object" && part !== null ? Reflect.get(part, "text") : undefined))
    .filter((part): part is string => typeof part === "string")
    .join("\n");
  if (collapse(text) !== collapse(expected.prompt)) {
    throw new ScraperDriftError(PROVIDER, "prompt_not_sent", "the send frame's text is not the prompt");
  }
  const mode = typeof send.mode === "string" ? send.mode : "(none)";
  if (mode !== expected.mode) {
    throw new ScraperDriftError(PROVIDER, "mode_not_applied", `the send frame asked for mode ${mode} instead of ${expected.mode}`);
  }
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Re-checks `condition` (on the capture only) at every capture message until true or `timeoutMs` passes (bounded by
 * the deadline); never throws on time-out.
 */
async function waitUntil(
  nav: Navigator,
  capture: CaptureSession,
  signal: AbortSignal,
  timeoutMs: number,
  condition: () => boolean,
): Promise<boolean> {
  const until = Date.now() + Math.min(timeoutMs, nav.remainingMs());
  for (;;) {
    nav.throwIfAborted();
    if (condition()) return true;
    if (Date.now() >= until) return false;
    await capture.nextChange(until - Date.now(), signal);
  }
}
