/**
 * The Chromium the Node-side tests drive through playwright-core: Debian's package (the one
 * scripts/setup-local-browser.sh wraps for local Browser Rendering). The browser tests need it; the replica tests skip
 * their page part without it.
 */
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

export const CHROMIUM_PATH = "/usr/lib/chromium/chromium";

export const CHROMIUM_INSTALLED = existsSync(CHROMIUM_PATH);

/**
 * Flags for a headless run in a container: no sandbox (tests run as root), no GPU, a temporary folder instead of the
 * small /dev/shm of a container, and no background traffic to Google's services (the machines have no internet).
 */
const HEADLESS_CONTAINER_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"];

/** A fresh headless Chromium; the caller closes it. playwright-core loads only when a test asks for a browser. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: HEADLESS_CONTAINER_FLAGS });
}
