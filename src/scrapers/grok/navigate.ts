/**
 * Drives grok.com like a person: open the home page, pick the mode (unless it is the default), type the prompt into
 * the composer, send, and capture the NDJSON stream the page receives. The mode and the prompt are then verified in the
 * request the page actually sent. Everything after the capture is the pure parser's job.
 */
import { ScraperDriftError, UpstreamError } from "../../errors";
import { startCapture } from "../../browser/page/capture/capture";
import type { PageSession } from "../../browser/page/page-session";
import type { CapturedExchange } from "../../browser/page/capture/types";
import { createNavigator, requireJsonRequestBody, type Navigator } from "../../browser/page/navigation/engine";
import type { GrokMode } from "./declaration";
import {
  GROK_BLOCKS,
  GROK_COMPOSER,
  GROK_DEFAULT_MODE,
  GROK_MODE_IDS,
  GROK_MODE_PICKER,
  GROK_MODE_PICKER_ANCHORS,
  GROK_SEND,
  GROK_SEND_ANCHORS,
  GROK_SIGNED_OUT,
  GROK_STREAM_URL,
} from "./selectors";

const PROVIDER = "grok";
const REQUEST_START_TIMEOUT_MS = 20_000;
/**
 * How long the mode picker gets to open its menu. A picker that is rendered but not hydrated yet ignores clicks (the
 * page hydrates within seconds of the composer); each try clicks it again, so a choice is made on the page whenever the
 * page lets it be, and patched into the request only when the picker never opened a menu with the mode in it.
 */
const MODE_PICK_WINDOW_MS = 8_000;
const MODE_MENU_TIMEOUT_MS = 1_500;

export interface GrokNavigation {
  /** The scrape's page session (src/browser/page/page-session.ts): its page, step log and hot-page state. */
  pageSession: PageSession;
  origin: string;
  prompt: string;
  mode: GrokMode;
  signal: AbortSignal;
  deadline: number;
}

export async function captureGrokExchange({
  pageSession,
  origin,
  prompt,
  mode,
  signal,
  deadline,
}: GrokNavigation): Promise<CapturedExchange> {
  const capture = await startCapture(pageSession, [{ name: "conversation", url: GROK_STREAM_URL, transports: ["fetch", "xhr"] }], PROVIDER);
  const nav = createNavigator({ session: pageSession, signal, deadline, provider: PROVIDER });
  await nav.goto(`${origin}/`, { landing: true });

  // The composer may mount seconds after DOMContentLoaded (hydration): the engine waits for it and concludes a wall
  // only on evidence that persisted while it was still missing.
  const entry = await nav.awaitEntry({ what: "composer", anchors: GROK_COMPOSER, blocks: GROK_BLOCKS, signedOutEvidence: GROK_SIGNED_OUT });
  if (entry === "login_wall") throw new UpstreamError(DETAIL_LOGIN, { retryable: false, reason: "login_wall" });
  if (entry === "challenge") throw new UpstreamError(DETAIL_CHALLENGE, { reason: "challenge" });
  const composer = entry;
  // the page's own sign-in modal over the composer (sheet §2 "a modal instead of an answer"): the composer is there,
  // the session still cannot chat
  const blocked = await nav.detectBlock(GROK_BLOCKS, composer);
  if (blocked === "login_wall") throw new UpstreamError(DETAIL_LOGIN, { retryable: false, reason: "login_wall" });
  if (blocked === "challenge") throw new UpstreamError(DETAIL_CHALLENGE, { reason: "challenge" });

  const { modeId, label } = GROK_MODE_IDS[mode];
  if (mode !== GROK_DEFAULT_MODE) {
    if (await selectMode(nav, label)) logChoice(nav, "page");
    else {
      // The picker or its entry could not be used: ask for the mode in the request itself; verified below.
      await capture.setPatch("conversation", { set: [["/modeId", modeId]] });
      logChoice(nav, "patch");
    }
  }

  await nav.typeInto(composer, prompt);
  // the send control by its name, else the sheet's anchor; Enter sends too (sheet §2)
  const send =
    (await nav.findByRole(GROK_SEND, { what: "send_button", timeoutMs: 2_000, optional: true })) ??
    (await nav.waitForAnchor(GROK_SEND_ANCHORS, { what: "send_button", timeoutMs: 1_000, optional: true }));
  if (send === null) await nav.pressKey("Enter");
  else await nav.click(send);

  const exchange = await capture.waitForExchange("conversation", { signal, startTimeoutMs: REQUEST_START_TIMEOUT_MS });
  verifyRequest(exchange, prompt, modeId);
  return exchange;
}

const DETAIL_LOGIN = "Grok asked the browser session to sign in (login wall).";
const DETAIL_CHALLENGE = "Grok answered with an anti-bot challenge. Safe to retry.";

/** Says how the requested mode was applied: on the page (picker) or by patching the request (issue 29). */
function logChoice(nav: Navigator, via: "page" | "patch"): void {
  nav.logEvent("choice", { what: "mode", via });
}

/**
 * Opens the mode picker and chooses the mode; false when the picker or the entry is not there. The picker is found by
 * its accessible name first (a newer menu button of the composer bar may come before it), else by the sheet's
 * description "a button in the composer bar opening a menu". A picker that did not open a menu with the mode is tried
 * again until MODE_PICK_WINDOW_MS has passed (it may not be hydrated yet).
 */
async function selectMode(nav: Navigator, label: string): Promise<boolean> {
  const until = Date.now() + MODE_PICK_WINDOW_MS;
  for (;;) {
    const picker =
      (await nav.findByRole(GROK_MODE_PICKER, { what: "mode_picker", timeoutMs: 2_000, optional: true })) ??
      (await nav.waitForAnchor(GROK_MODE_PICKER_ANCHORS, { what: "mode_picker", timeoutMs: 1_000, optional: true }));
    if (picker !== null && (await nav.chooseMenuItem(picker, label, { what: "mode_item", menuTimeoutMs: MODE_MENU_TIMEOUT_MS })))
      return true;
    if (Date.now() >= until || nav.remainingMs() <= 0) return false;
  }
}

/**
 * The request body is the ground truth of what the site will do (grok.md §1): it must carry the prompt and the mode,
 * as the current `modeId` or the older `modelMode`. A body that cannot be read is a failure, not a pass.
 */
function verifyRequest(exchange: CapturedExchange, prompt: string, modeId: string): void {
  const body = requireJsonRequestBody(exchange, PROVIDER);
  // the composer may trim or fold whitespace (an editor's own rule); the words must be the prompt's
  if (typeof body.message !== "string" || collapse(body.message) !== collapse(prompt)) {
    throw new ScraperDriftError(PROVIDER, "prompt_not_sent", "the request's message is not the prompt");
  }
  const sentMode =
    typeof body.modeId === "string" ? body.modeId : typeof body.modelMode === "string" ? legacyModeId(body.modelMode) : undefined;
  // Auto is what the site does when the request names no mode.
  if ((sentMode ?? "auto") !== modeId) {
    throw new ScraperDriftError(PROVIDER, "mode_not_applied", `the request asked for mode ${sentMode ?? "(none)"} instead of ${modeId}`);
  }
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function legacyModeId(modelMode: string): string {
  return modelMode.replace(/^MODEL_MODE_/, "").toLowerCase();
}
