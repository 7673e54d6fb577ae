/**
 * Evidence of a finished scrape taken from its page while the lease still holds it (docs/evidence.md): a screenshot of
 * the whole answer page and the page's HTML. Bounded: the screenshot is at most MAX_SCREENSHOT_PIXEL_HEIGHT device
 * pixels tall (a longer page is downscaled, one past MAX_SCREENSHOT_CSS_HEIGHT is cut there and says so) and at most
 * `maxBytes` encoded (PNG, else a JPEG of the same picture, else nothing and why). The HTML leaves out every script
 * (sites inline session tokens in them, and evidence is served where no script may run anyway) and the values of
 * hidden and password inputs.
 */
import type { Page } from "@cloudflare/puppeteer";

/** The tallest page captured: below it the whole page, above it its first this many CSS pixels. */
export const MAX_SCREENSHOT_CSS_HEIGHT = 24_000;
/** The tallest picture written: a taller capture is downscaled to it (text stays legible down to ~0.5). */
export const MAX_SCREENSHOT_PIXEL_HEIGHT = 12_000;
/** JPEG quality of the fallback when a PNG is over the size limit. */
const JPEG_FALLBACK_QUALITY = 70;

export interface PageScreenshot {
  bytes: Uint8Array;
  contentType: "image/png" | "image/jpeg";
  /** Picture size in pixels. */
  width: number;
  height: number;
  /** Device pixels per CSS pixel (1 unless the page was downscaled). */
  scale: number;
  /** true when the page was taller than MAX_SCREENSHOT_CSS_HEIGHT and only its top was captured. */
  truncated: boolean;
}

interface PageExtent {
  width: number;
  viewportHeight: number;
  /** The height at which nothing scrolls: the document's, or the viewport grown by what its largest scroller hides. */
  fullHeight: number;
}

/**
 * In-page: the page's extent. Answer pages often scroll inside a container rather than the document (a chat column of
 * 100vh): a viewport grown by what such a container hides lets its layout show all of it.
 */
const MEASURE_EXTENT = `(() => {
  const root = document.scrollingElement || document.documentElement;
  const documentHeight = Math.max(root.scrollHeight, document.body ? document.body.scrollHeight : 0);
  let hidden = 0;
  for (const element of document.querySelectorAll("body *")) {
    if (element.clientHeight < window.innerHeight * 0.3) continue;
    const overflow = getComputedStyle(element).overflowY;
    if (overflow !== "auto" && overflow !== "scroll") continue;
    hidden = Math.max(hidden, element.scrollHeight - element.clientHeight);
  }
  return { width: window.innerWidth, viewportHeight: window.innerHeight, fullHeight: Math.max(documentHeight, window.innerHeight + hidden) };
})()`;

/** In-page: the document as HTML without scripts and without the values of hidden and password inputs. */
const SERIALISE_WITHOUT_SCRIPTS = `(() => {
  const copy = document.documentElement.cloneNode(true);
  for (const script of copy.querySelectorAll("script, noscript, template")) script.remove();
  for (const input of copy.querySelectorAll('input[type="hidden"], input[type="password"]')) input.removeAttribute("value");
  const doctype = document.doctype ? "<!DOCTYPE " + document.doctype.name + ">\\n" : "";
  return doctype + copy.outerHTML;
})()`;

function isPageExtent(value: unknown): value is PageExtent {
  if (typeof value !== "object" || value === null) return false;
  return ["width", "viewportHeight", "fullHeight"].every((name) => {
    const field: unknown = Reflect.get(value, name);
    return typeof field === "number" && Number.isFinite(field) && field > 0;
  });
}

/** The whole page as a picture of at most `maxBytes`, or why there is none. */
export async function capturePageScreenshot(page: Page, maxBytes: number): Promise<PageScreenshot | { missing: string }> {
  const extent: unknown = await page.evaluate(MEASURE_EXTENT);
  if (!isPageExtent(extent)) return { missing: "the page reported no size (it was closed or navigated away)" };
  const cssHeight = Math.ceil(Math.min(extent.fullHeight, MAX_SCREENSHOT_CSS_HEIGHT));
  const truncated = extent.fullHeight > MAX_SCREENSHOT_CSS_HEIGHT;
  // Growing the viewport (rather than capturing beyond it) is what lets a 100vh layout lay out its scroller's content.
  if (cssHeight > extent.viewportHeight) await page.setViewport({ width: extent.width, height: cssHeight });
  const scale = Math.min(1, MAX_SCREENSHOT_PIXEL_HEIGHT / cssHeight);
  const clip = { x: 0, y: 0, width: extent.width, height: cssHeight, scale };
  const size = { width: Math.round(extent.width * scale), height: Math.round(cssHeight * scale), scale, truncated };
  const png = await page.screenshot({ type: "png", clip });
  if (png.byteLength <= maxBytes) return { bytes: new Uint8Array(png), contentType: "image/png", ...size };
  const jpeg = await page.screenshot({ type: "jpeg", quality: JPEG_FALLBACK_QUALITY, clip });
  if (jpeg.byteLength <= maxBytes) return { bytes: new Uint8Array(jpeg), contentType: "image/jpeg", ...size };
  // two decimals at most: 5 MiB reads "5", a test's small limit "0.01"
  return { missing: `the screenshot is larger than the ${Number((maxBytes / 1024 / 1024).toFixed(2))} MiB limit even as JPEG` };
}

/** The page's HTML at this moment, without scripts (see the module comment). */
export async function capturePageHtml(page: Page): Promise<string> {
  const html: unknown = await page.evaluate(SERIALISE_WITHOUT_SCRIPTS);
  if (typeof html !== "string") throw new TypeError("the page did not serialise to a string");
  return html;
}
