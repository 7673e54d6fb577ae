/**
 * Drives grok.com like a person: open the home page, pick the mode (unless it is the default), type the prompt into
 * the composer, send, and capture the NDJSON stream the page receives. The mode and the prompt are then verified in the
 * request the page actually sent. Everything after the capture is the pure parser's job.
 */
import type { Page } from "@cloudflare/puppeteer";
import { ScraperDriftError, UpstreamError } from "../../errors";
import { startCapture } from "../shared/capture/capture";
import type { CapturedExchange } from "../shared/capture/types";
import { createNavigator, requireJsonRequestBody, type Navigator } from "../shared/navigation/engine";
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
  GROK_STREAM_URL,
} from "./selectors";

const PROVIDER = "grok";
const REQUEST_START_TIMEOUT_MS = 20_000;

export interface GrokNavigation {
  page: Page;
  origin: string;
  prompt: string;
  mode: GrokMode;
  signal: AbortSignal;
  deadline: number;
}

export async function captureGrokExchange({ page, origin, prompt, mode, signal, deadline }: GrokNavigation): Promise<CapturedExchange> {
  const capture = await startCapture(page, [{ name: "conversation", url: GROK_STREAM_URL, transports: ["fetch", "xhr"] }], PROVIDER);
  const nav = createNavigator({ page, signal, deadline, provider: PROVIDER });
  await nav.goto(`${origin}/`, { landing: true });

  const composer = await nav.waitForAnchor(GROK_COMPOSER, { what: "composer", optional: true });
  const blocked = await nav.detectBlock(GROK_BLOCKS, composer);
  if (blocked === "login_wall") throw new UpstreamError("Grok asked the browser session to sign in (login wall).", { retryable: false });
  if (blocked === "challenge") throw new UpstreamError("Grok answered with an anti-bot challenge. Safe to retry.");
  if (composer === null) throw nav.drift("composer_missing", "no composer on the home page and no login wall or challenge either");

  const { modeId, label } = GROK_MODE_IDS[mode];
  if (mode !== GROK_DEFAULT_MODE && !(await selectMode(nav, label))) {
    // The picker or its entry could not be found: ask for the mode in the request itself; verified below.
    await capture.setPatch("conversation", { set: [["/modeId", modeId]] });
  }

  await nav.typeInto(composer, prompt);
  const send =
    (await nav.findByRole(GROK_SEND, { what: "send_button", timeoutMs: 2_000, optional: true })) ??
    (await nav.waitForAnchor(GROK_SEND_ANCHORS, { what: "send_button", timeoutMs: 1_000, optional: true }));
  if (send === null) await nav.pressKey("Enter");
  else await nav.click(send);

  const exchange = await capture.waitForExchange("conversation", { signal, startTimeoutMs: REQUEST_START_TIMEOUT_MS });
  verifyRequest(exchange, prompt, modeId);
  return exchange;
}

/** Opens the mode picker and chooses the mode; false when the picker or the entry is not there. */
async function selectMode(nav: Navigator, label: string): Promise<boolean> {
  const picker =
    (await nav.findByRole(GROK_MODE_PICKER, { what: "mode_picker", timeoutMs: 2_000, optional: true })) ??
    (await nav.waitForAnchor(GROK_MODE_PICKER_ANCHORS, { what: "mode_picker", timeoutMs: 1_000, optional: true }));
  if (picker === null) return false;
  return nav.chooseMenuItem(picker, label, { what: "mode_item" });
}

/**
 * The request body is the ground truth of what the site will do (grok.md §1): it must carry the prompt and the mode,
 * as the current `modeId` or the older `modelMode`. A body that cannot be read is a failure, not a pass.
 */
function verifyRequest(exchange: CapturedExchange, prompt: string, modeId: string): void {
  const body = requireJsonRequestBody(exchange, PROVIDER);
  if (body.message !== prompt) throw new ScraperDriftError(PROVIDER, "prompt_not_sent", "the request's message is not the prompt");
  const sentMode =
    typeof body.modeId === "string" ? body.modeId : typeof body.modelMode === "string" ? legacyModeId(body.modelMode) : undefined;
  // Auto is what the site does when the request names no mode.
  if ((sentMode ?? "auto") !== modeId) {
    throw new ScraperDriftError(PROVIDER, "mode_not_applied", `the request asked for mode ${sentMode ?? "(none)"} instead of ${modeId}`);
  }
}

function legacyModeId(modelMode: string): string {
  return modelMode.replace(/^MODEL_MODE_/, "").toLowerCase();
}
